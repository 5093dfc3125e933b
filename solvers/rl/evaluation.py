"""Evaluating a policy network: batched games against random play or the heuristic, and exact exploitability.

A policy here is a function ``act(inputs, mask) -> actions`` on whole batches
(network inputs as :func:`gamut.solvers.rl.networks.policy_input` builds
them), so evaluation runs on the batched environments, one compiled call per
step for every game.
"""

from __future__ import annotations

import functools

import numpy as np

from gamut.envs.vector import game_streams, make_vector, random_legal_actions
from gamut.solvers.rl.networks import policy_input


def uses_info_state(game) -> bool:
    """Whether a network of ``game`` reads the information-state tensor (multi-player games that have one)."""
    return game.num_players() > 1 and game.get_type().provides_information_state_tensor


def network_input(step, game) -> np.ndarray:
    """Network input float32 ``(N, size)`` of a ``VectorStep`` (tensor of the player to move, then its seat)."""
    tensors = step.info_state if uses_info_state(game) else step.obs
    return policy_input(tensors, step.current_player, game.num_players())


OPPONENTS = ("random", "heuristic")


def play_against(game_string: str, act, games: int, seed: int, num_envs: int = 256,
                 opponent: str = "random") -> np.ndarray:
    """Returns float64 ``(games,)`` of the policy ``act``, one per game, the others' seats played by ``opponent``.

    In a one-player game the policy plays every game. With ``P`` players, game
    ``i`` of a row seats the policy at ``(row + i) % P``, so every seat is
    played about equally. Same seed, same games and the same returns.
    ``opponent`` is ``random`` (uniform over the legal actions) or
    ``heuristic``, the game's heuristic (Poke and Palace Poker,
    the batched heuristic its declaration lends, :func:`gamut.solvers.rl.opponents.batched_heuristic`).
    """
    from gamut.envs.loading import load_game

    if opponent not in OPPONENTS:
        raise ValueError(f"unknown evaluation opponent {opponent!r}; choose from {', '.join(OPPONENTS)}")
    game = load_game(game_string)
    env = make_vector(game, max(1, min(num_envs, games)), seed=seed, info_state=uses_info_state(game))
    heuristic = None
    if opponent == "heuristic" and game.num_players() > 1:
        from gamut.solvers.rl.opponents import batched_heuristic

        heuristic = batched_heuristic(game, seed)
    return _play(env, act, games, seed, heuristic)


def _play(env, act, games: int, seed: int, heuristic=None) -> np.ndarray:
    game = env.game
    players = game.num_players()
    n = env.num_envs
    rows = np.arange(n)
    seat = rows % players
    streams = game_streams(seed ^ 0x5EED, n)
    random_actions = np.zeros(n, np.int64)
    out = np.empty(games)
    filled = 0
    step = env.reset()
    while filled < games:
        learner = step.current_player == seat
        actions = np.zeros(n, np.int64)
        if learner.any():
            actions[learner] = act(network_input(step, game)[learner], step.legal_mask[learner])
        if heuristic is not None:
            others = np.flatnonzero(~learner)
            actions[others] = heuristic.actions(env.states, others)
        elif players > 1:
            random_legal_actions(step.legal_mask, streams, random_actions)
            actions = np.where(learner, actions, random_actions)
        step = env.step(actions)
        ended = np.flatnonzero(step.terminated)
        take = ended[:games - filled]
        out[filled:filled + len(take)] = step.returns[take, seat[take]]
        filled += len(take)
        seat[ended] = (seat[ended] + 1) % players
    return out


def paired_returns(game, make_agent, make_opponent, deals: int, seed: int) -> np.ndarray:
    """The agent's mean return per deal float64 ``(deals,)``, playing every seat once against the opponent.

    ``make_agent(player, seed)`` and ``make_opponent(player, seed)`` build
    ``pyspiel.Bot``s. Deal ``d`` is played ``P`` times, the agent in seat
    ``s`` and the opponent in every other seat, each time with chance drawn
    from the same generator seeded by ``(seed, d)`` (paired deals: the seats
    share the luck).
    """
    players = game.num_players()
    out = np.empty(deals)
    for d in range(deals):
        total = 0.0
        for seat in range(players):
            rng = np.random.default_rng([seed, d])
            bots = [make_agent(p, seed + d) if p == seat else make_opponent(p, seed + d + p) for p in range(players)]
            state = game.new_initial_state()
            for bot in bots:
                bot.restart_at(state)
            while not state.is_terminal():
                if state.is_chance_node():
                    outcomes, probs = zip(*state.chance_outcomes())
                    state.apply_action(int(outcomes[rng.choice(len(outcomes), p=np.asarray(probs) / sum(probs))]))
                else:
                    state.apply_action(bots[state.current_player()].step(state))
            total += state.returns()[seat]
        out[d] = total / players
    return out


@functools.lru_cache(maxsize=4)
def infoset_inputs(game_string: str):
    """One entry per information set of a small game: keys, legal actions, network inputs and masks.

    Walks every decision state once (cached per game string); the input of a
    set is its information-state tensor followed by the seat's one-hot.
    """
    from gamut.envs.loading import load_game

    game = load_game(game_string)
    seen, inputs, masks, keys, legal_lists = set(), [], [], [], []
    stack = [game.new_initial_state()]
    while stack:
        state = stack.pop()
        if state.is_terminal():
            continue
        if state.is_chance_node():
            stack.extend(state.child(a) for a, _ in state.chance_outcomes())
            continue
        p = state.current_player()
        key = state.information_state_string(p)
        if key not in seen:
            seen.add(key)
            legal = state.legal_actions(p)
            mask = np.zeros(game.num_distinct_actions(), np.bool_)
            mask[legal] = True
            tensor = np.asarray(state.information_state_tensor(p), np.float32)[None]
            inputs.append(policy_input(tensor, np.array([p]), game.num_players())[0])
            masks.append(mask)
            keys.append(key)
            legal_lists.append(legal)
        stack.extend(state.child(a) for a in state.legal_actions(p))
    if not keys:
        raise ValueError(f"{game} has no decision state to evaluate")
    return tuple(keys), tuple(legal_lists), np.stack(inputs), np.stack(masks)


def tabular_policy(game, probabilities_fn, tree):
    """The network's policy on every information set of an extracted game tree, as CFR's policy array.

    ``probabilities_fn(inputs, mask)`` returns float64 ``(batch, actions)``
    (zero at illegal actions), evaluated on :func:`infoset_inputs`.
    """
    from gamut.solvers.cfr.policy_io import TabularStrategy

    keys, legal_lists, inputs, masks = infoset_inputs(str(game))
    probs = probabilities_fn(inputs, masks)
    table = {key: (legal, [float(probs[i, a]) for a in legal]) for i, (key, legal) in enumerate(zip(keys, legal_lists))}
    return TabularStrategy.from_table(str(game), table).on_tree(tree)


def exact_exploitability(game, probabilities_fn, tree=None) -> float:
    """Exact exploitability (mean of the two best-response gains) of the network policy on a small game."""
    from gamut.solvers.cfr.best_response import exploitability
    from gamut.solvers.cfr.extract import extract_game

    if tree is None:
        tree = extract_game(game, report=None)
    return float(exploitability(tree, tabular_policy(game, probabilities_fn, tree)))
