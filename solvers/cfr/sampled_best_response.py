"""Sampled best response: a lower bound on exploitability for games too big to extract.

For a fixed strategy of one player, the other player's best-response value is
the largest value any responder can reach; the value of *some* responder is a
lower bound on it. This module builds a responder by sampling and then measures
its value by independent Monte Carlo play:

1. Training: ``train_iterations`` external-sampling traversals for the
   responder only. Chance and the fixed player's actions are sampled (the fixed
   player's from the strategy); every responder action is explored, and its
   sampled counterfactual value is added to a table keyed by the responder's
   information state. A responder node passes up the value of the action its
   table currently ranks first.
2. The responder plays, at each of its information states, the action with the
   largest summed value (a best response to the sampled opponent behaviour);
   at states never seen in training it plays uniformly.
3. Evaluation: ``episodes`` fresh games (a separate random stream) of the
   responder against the strategy; the mean return estimates the responder's
   value, with a normal 95% confidence interval.

The expected estimate never exceeds the true best-response value, so it is a
lower bound up to sampling error; with enough training on a small game it
reaches the exact value (see the tests, which compare with the exact best
response on Kuhn poker).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pyspiel

from gamut.solvers.cfr.mccfr import PyspielWalker, _sample


@dataclass(frozen=True)
class SampledValue:
    """A Monte Carlo estimate with its sample size and 95% confidence half-width."""

    mean: float
    ci95: float
    samples: int


def _strategy_probs(strategy, key: str, actions: list) -> list:
    probs = strategy.action_probabilities(key, actions)
    weights = [probs.get(a, 0.0) for a in actions]
    total = sum(weights)
    if total <= 0.0:
        raise ValueError(f"strategy gives no probability to any legal action at {key!r}")
    return [w / total for w in weights]


def _walker(game):
    return PyspielWalker(game) if isinstance(game, pyspiel.Game) else game


def _train(walker, strategy, player: int, iterations: int, rng) -> dict:
    values: dict[str, list] = {}

    def traverse(state) -> float:
        if walker.is_terminal(state):
            return walker.returns(state)[player]
        if walker.is_chance(state):
            outcomes = walker.chance_outcomes(state)
            return traverse(walker.child(state, outcomes[_sample(rng, [p for _, p in outcomes])][0]))
        acting = walker.current_player(state)
        actions = walker.legal_actions(state)
        key = walker.infostate_key(state, acting)
        if acting != player:
            k = _sample(rng, _strategy_probs(strategy, key, actions))
            return traverse(walker.child(state, actions[k]))
        children = [traverse(walker.child(state, a)) for a in actions]
        table = values.setdefault(key, [0.0] * len(actions))
        for k, v in enumerate(children):
            table[k] += v
        # Continue with the set's current greedy choice, not this history's best
        # child: the responder cannot see the hidden information that separates
        # the histories of one information set.
        return children[max(range(len(table)), key=table.__getitem__)]

    for _ in range(iterations):
        traverse(walker.root())
    return values


def _play(walker, strategy, player: int, choice: dict, episodes: int, rng) -> SampledValue:
    returns = np.empty(episodes)
    for e in range(episodes):
        state = walker.root()
        while not walker.is_terminal(state):
            if walker.is_chance(state):
                outcomes = walker.chance_outcomes(state)
                state = walker.child(state, outcomes[_sample(rng, [p for _, p in outcomes])][0])
                continue
            acting = walker.current_player(state)
            actions = walker.legal_actions(state)
            key = walker.infostate_key(state, acting)
            if acting == player and key in choice:
                k = choice[key]
            elif acting == player:
                k = int(rng.integers(len(actions)))
            else:
                k = _sample(rng, _strategy_probs(strategy, key, actions))
            state = walker.child(state, actions[k])
        returns[e] = walker.returns(state)[player]
    spread = float(returns.std(ddof=1)) if episodes > 1 else math.inf
    return SampledValue(float(returns.mean()), 1.96 * spread / math.sqrt(episodes), episodes)


def sampled_best_response(game, strategy, player: int, train_iterations: int = 2000, episodes: int = 10_000,
                          seed: int = 0) -> tuple[SampledValue, dict]:
    """Lower-bound estimate of ``player``'s best-response value against ``strategy``.

    Parameters
    ----------
    game : pyspiel.Game or walker
        A two-player zero-sum game, or a walker (see ``gamut.solvers.cfr.mccfr.PyspielWalker``)
        whose ``infostate_key`` gives the keys ``strategy`` uses.
    strategy : TabularStrategy
        The fixed player's strategy (uniform at keys it lacks).
    player : {0, 1}
        The responder.
    train_iterations, episodes : int
        Training traversals and evaluation games.
    seed : int
        Seeds training and evaluation (two independent streams).

    Returns
    -------
    value : SampledValue
        The responder's estimated return, with 95% CI and sample size.
    choice : dict
        The responder's action index per information-state key.
    """
    if player not in (0, 1):
        raise ValueError(f"player must be 0 or 1, got {player}")
    if train_iterations < 1 or episodes < 2:
        raise ValueError(f"need train_iterations >= 1 and episodes >= 2, got {train_iterations} and {episodes}")
    walker = _walker(game)
    train_rng, play_rng = (np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(2))
    values = _train(walker, strategy, player, train_iterations, train_rng)
    choice = {key: int(np.argmax(v)) for key, v in values.items()}
    return _play(walker, strategy, player, choice, episodes, play_rng), choice


def sampled_exploitability(game, strategy, train_iterations: int = 2000, episodes: int = 10_000,
                           seed: int = 0) -> SampledValue:
    """Lower-bound estimate of ``(br_0 + br_1) / 2`` with a 95% CI; ``samples`` counts both seats' games."""
    seeds = np.random.SeedSequence(seed).generate_state(2)
    first, _ = sampled_best_response(game, strategy, 0, train_iterations, episodes, int(seeds[0]))
    second, _ = sampled_best_response(game, strategy, 1, train_iterations, episodes, int(seeds[1]))
    # Independent estimates: the half-widths add in quadrature.
    return SampledValue(0.5 * (first.mean + second.mean), 0.5 * math.hypot(first.ci95, second.ci95),
                        first.samples + second.samples)
