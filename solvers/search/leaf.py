"""Leaf evaluators for tree search: play-outs through the pyspiel API or a game's own kernel.

A leaf evaluator is a callable ``evaluate(state, seed) -> returns`` (the
protocol is specified in :mod:`gamut.solvers.ismcts`): it may advance ``state`` in
place, the same ``seed`` gives the same returns, and ``returns`` holds one
float per player.

- :func:`random_rollout`: uniform random legal actions and exact chance
  probabilities through the pyspiel API, in place (works for every game).
- :func:`state_rollout`: calls ``state.rollout_returns(seed)``, a game's fast
  play-out (typically a Numba kernel on the state's array).
- :func:`make_evaluator`: picks one by name and averages several play-outs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pyspiel

LeafEvaluator = Callable[[pyspiel.State, int], Sequence[float]]

CHANCE = int(pyspiel.PlayerId.CHANCE)
EVALUATOR_NAMES = ("auto", "api", "state")

# Knuth's MMIX linear congruential generator: a few integer operations per draw,
# far cheaper than building a random.Random (about 5 us) for every play-out.
_LCG_MUL = 6364136223846793005
_LCG_ADD = 1442695040888963407
_MASK64 = (1 << 64) - 1
# Distinct seeds for the repeated play-outs of one leaf (golden-ratio increments).
_SEED_STEP = 0x9E3779B97F4A7C15
_SEED_MASK = (1 << 63) - 1


def _scramble(seed: int) -> int:
    """splitmix64's output function: nearby seeds (0, 1, 2, ...) start unrelated LCG streams."""
    z = (seed + _SEED_STEP) & _MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return z ^ (z >> 31)


def sample_outcome(outcomes: Sequence[tuple[int, float]], u: float) -> int:
    """The chance outcome at cumulative probability ``u`` in [0, 1) of ``[(action, prob), ...]``."""
    for action, prob in outcomes:
        u -= prob
        if u < 0.0:
            return action
    return outcomes[-1][0]  # probabilities that sum to slightly under 1


def random_rollout(state: pyspiel.State, seed: int) -> list[float]:
    """Play ``state`` to the end in place, uniformly at random, and return its returns.

    Decisions are uniform over ``legal_actions()``; chance outcomes follow
    ``chance_outcomes()``. The draws come from a 64-bit LCG started at the
    splitmix64 scramble of ``seed`` (its high bits: an action index is
    ``(x >> 32) * n >> 32``, a chance uniform ``(x >> 11) / 2**53``), so the
    same seed gives the same play-out.
    """
    x = _scramble(seed & _MASK64)
    while True:
        player = state.current_player()
        x = (x * _LCG_MUL + _LCG_ADD) & _MASK64
        if player >= 0:
            legal = state.legal_actions()
            state.apply_action(legal[((x >> 32) * len(legal)) >> 32])
        elif player == CHANCE:
            state.apply_action(sample_outcome(state.chance_outcomes(), (x >> 11) * 2.0**-53))
        else:
            return state.returns()


def state_rollout(state: pyspiel.State, seed: int) -> np.ndarray:
    """The game's own play-out: ``state.rollout_returns(seed)`` (the state is left unchanged)."""
    return state.rollout_returns(seed)


def _averaged(evaluate: LeafEvaluator, rollouts: int, changes_state: bool) -> LeafEvaluator:
    """Mean of ``rollouts`` play-outs from one leaf, with seeds spread from the one given."""

    def evaluate_many(state, seed):
        total = None
        for k in range(rollouts):
            # An evaluator that plays in place gets clones, except for the last play-out.
            target = state.clone() if changes_state and k < rollouts - 1 else state
            returns = np.asarray(evaluate(target, (seed + k * _SEED_STEP) & _SEED_MASK), dtype=np.float64)
            total = returns if total is None else total + returns
        return total / rollouts

    return evaluate_many


def make_evaluator(game: pyspiel.Game, evaluator: str | LeafEvaluator = "auto",
                   rollouts: int = 1) -> LeafEvaluator:
    """The leaf evaluator named ``evaluator`` for ``game``, averaging ``rollouts`` play-outs.

    Parameters
    ----------
    game : pyspiel.Game
        Its fresh state tells whether the states define ``rollout_returns``.
    evaluator : str or callable
        ``"auto"``: ``state_rollout`` if the states define ``rollout_returns``, else
        ``random_rollout``; ``"api"``: ``random_rollout``; ``"state"``: ``state_rollout``
        (ValueError if the states lack ``rollout_returns``); or a callable
        ``evaluate(state, seed) -> returns``, which may change ``state``.
    rollouts : int
        Play-outs per evaluation (>= 1); their returns are averaged.
    """
    if isinstance(rollouts, bool) or not isinstance(rollouts, int) or rollouts < 1:
        raise ValueError(f"rollouts must be an int >= 1, got {rollouts!r}")
    if callable(evaluator):
        chosen, changes_state = evaluator, True
    elif evaluator in EVALUATOR_NAMES:
        has_kernel = callable(getattr(game.new_initial_state(), "rollout_returns", None))
        if evaluator == "state" and not has_kernel:
            raise ValueError(
                f"evaluator 'state' needs states with a rollout_returns(seed) method; "
                f"{game.get_type().short_name} states have none (use 'auto' or 'api')"
            )
        use_kernel = has_kernel and evaluator != "api"
        chosen, changes_state = (state_rollout, False) if use_kernel else (random_rollout, True)
    else:
        raise ValueError(
            f"unknown leaf evaluator {evaluator!r}; use one of {', '.join(EVALUATOR_NAMES)} or a callable"
        )
    return chosen if rollouts == 1 else _averaged(chosen, rollouts, changes_state)
