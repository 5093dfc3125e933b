"""Playing chance in tests: a sampled outcome of a chance node, random moves, positions reached by them,
and whole games of a chooser against chance."""

import itertools

import numpy as np
import pyspiel


def apply_sampled_chance(state, rng: np.random.Generator) -> None:
    """Apply one outcome of chance node ``state``, drawn by ``rng`` with the outcomes' probabilities."""
    outcomes, probs = zip(*state.chance_outcomes())
    state.apply_action(int(rng.choice(outcomes, p=probs)))


def apply_uniform_chance(state, rng: np.random.Generator) -> None:
    """Apply one outcome of chance node ``state``, drawn uniformly by ``rng`` (ignoring the probabilities)."""
    outcomes = state.chance_outcomes()
    state.apply_action(outcomes[rng.integers(len(outcomes))][0])


def random_move(state, rng: np.random.Generator) -> None:
    """Apply a uniformly random chance outcome (ignoring its probability) or legal action to ``state``."""
    if state.is_chance_node():
        apply_uniform_chance(state, rng)
    else:
        legal = state.legal_actions()
        state.apply_action(legal[rng.integers(len(legal))])


def random_position(game, rng, min_moves, max_moves):
    """A pyspiel state after uniformly random moves (possibly terminal)."""
    state = game.new_initial_state()
    target = rng.integers(min_moves, max_moves + 1)
    while not state.is_terminal() and len(state.history()) < target:
        random_move(state, rng)
    return state


def positions_where(game, rng, min_moves, max_moves, wanted):
    """Endless positions of ``game`` after random moves (:func:`random_position`): those not terminal that pass
    ``wanted(state)``."""
    while True:
        state = random_position(game, rng, min_moves, max_moves)
        if not state.is_terminal() and wanted(state):
            yield state


def decision_positions(spec, count, seed, min_moves=8, max_moves=80):
    """``(game, states)``: ``count`` decision states of ``spec`` after ``min_moves`` to ``max_moves`` random moves."""
    game = pyspiel.load_game(spec)
    found = positions_where(game, np.random.default_rng(seed), min_moves, max_moves,
                            lambda state: not state.is_chance_node())
    return game, list(itertools.islice(found, count))


def states_along_random_games(game, count, seed, wanted):
    """The first ``count`` states that pass ``wanted(state)`` met along games of uniformly random moves, copied."""
    rng = np.random.default_rng(seed)
    found = []
    while len(found) < count:
        state = game.new_initial_state()
        while not state.is_terminal() and len(found) < count:
            if wanted(state):
                found.append(state.clone())
            random_move(state, rng)
    return found


def play_game(game, rng: np.random.Generator, choose, chance=apply_sampled_chance):
    """Play one game of ``game`` to its end and return the terminal state.

    Chance nodes are played by ``chance(state, rng)``; at a decision node
    ``choose(state)`` names the move, which must be legal.
    """
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            chance(state, rng)
        else:
            action = choose(state)
            assert action in state.legal_actions(), (action, state.legal_actions())
            state.apply_action(action)
    return state
