"""Playing chance in tests: one sampled outcome of a pyspiel chance node."""

import numpy as np


def apply_sampled_chance(state, rng: np.random.Generator) -> None:
    """Apply one outcome of chance node ``state``, drawn by ``rng`` with the outcomes' probabilities."""
    outcomes, probs = zip(*state.chance_outcomes())
    state.apply_action(int(rng.choice(outcomes, p=probs)))
