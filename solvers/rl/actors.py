"""Self-play data in parts that fan out on the runner's backends, the same data for any split.

Deep Monte-Carlo with ``actors > 0`` (:mod:`gamut.solvers.rl.dmc`) plays its
self-play games in rounds: round ``r`` plays ``num_envs`` whole games with the
current Q-network, epsilon-greedy, and hands every decision to the learner
with its Monte-Carlo target. A round's games are split into ``actors`` parts
that run in this process, on local worker processes or as Ray tasks
(:mod:`gamut.solvers.backends`, as ``gamut squares train-net`` does), and the
parts' data are joined in game order. Nothing in a game depends on where it
runs or beside which other games:

- game ``g`` of round ``r`` deals from the chance stream of
  ``(round_seed(seed, r), g)`` (:func:`gamut.envs.vector.game_streams`);
- its ``k``-th decision explores when a counter-based uniform of
  ``(round_seed, g, k)`` falls below ``epsilon``, and then plays the legal
  action picked by a second such uniform (:func:`counter_uniforms`);
- the Q-values are computed in NumPy (``float32``) by every part alike.

So a round's data, hence the whole run, is the same for one part in this
process, for any number of worker processes, and on Ray (the tests check it).
"""

from __future__ import annotations

import numpy as np

from gamut.envs.loading import load_game
from gamut.envs.rng import splitmix64
from gamut.envs.vector import game_streams, make_vector
from gamut.solvers.rl.evaluation import network_input, uses_info_state
from gamut.solvers.rl.features import action_features, score_actions

def counter_uniforms(key: int, games: np.ndarray, index: int, salt: int) -> np.ndarray:
    """Uniforms float64 ``(len(games),)`` in [0, 1), a function of ``(key, game, index, salt)`` alone.

    >>> a = counter_uniforms(7, np.array([0, 1, 2]), 4, 0)
    >>> b = counter_uniforms(7, np.array([2]), 4, 0)
    >>> bool(a[2] == b[0]) and bool(((0 <= a) & (a < 1)).all())
    True
    """
    # The toolkit's splitmix64 (compiled, wrapping modulo 2**64) mixes whole arrays as well as scalars.
    z = splitmix64(np.full(len(games), key % (1 << 64), np.uint64) ^ np.uint64(salt))
    z = splitmix64(z ^ np.asarray(games, np.uint64))
    z = splitmix64(z ^ np.uint64(index))
    return (z >> np.uint64(11)).astype(np.float64) * 2.0 ** -53


def round_seed(seed: int, round_index: int) -> int:
    """The seed of round ``round_index``'s chance streams and exploration (``0 <= value < 2**63``)."""
    return int(np.random.SeedSequence([int(seed), 0xDEC, int(round_index)]).generate_state(1, np.uint64)[0] >> 1)


def part_bounds(games: int, parts: int) -> list[tuple[int, int]]:
    """``(first game, count)`` of each of ``parts`` near-equal parts of ``games`` (empty parts left out)."""
    edges = [games * k // parts for k in range(parts + 1)]
    return [(lo, hi - lo) for lo, hi in zip(edges[:-1], edges[1:]) if hi > lo]


def play_part(game_string: str, params: dict, seed: int, first: int, count: int, epsilon: float,
              reward_scale: float, score_rewards: bool) -> dict:
    """Play games ``first .. first + count - 1`` of the round seeded by ``seed`` to their ends.

    Returns the decisions in game order, then move order: ``x`` float32
    ``(M, D)``, ``chosen`` (action ids int64 ``(M,)``, or features float32
    ``(M, F)`` where the game declares them), ``target`` float32 ``(M,)`` (the
    mover's return divided by ``reward_scale``, less the running score
    before the move with ``score_rewards``), and ``returns`` float32
    ``(count, P)``, each game's returns.
    """
    from gamut.solvers.rl.scores import running_score_reader

    game = load_game(game_string)
    features = action_features(game)
    env = make_vector(game, count, seed=seed, info_state=uses_info_state(game))
    env.streams = game_streams(seed, count, first)
    step = env.reset()
    running = None
    if score_rewards:
        try:
            running = running_score_reader(game)
        except ValueError:  # no running score (or several players): the targets are the returns
            running = None
    games = np.arange(first, first + count)
    done = np.zeros(count, bool)
    returns = np.zeros((count, game.num_players()), np.float32)
    taken = {"x": [], "chosen": [], "player": [], "banked": [], "game": []}
    index = 0
    while not done.all():
        x, mask = network_input(step, game), step.legal_mask
        feats = None if features.one_hot else features(x, mask)
        q = np.where(mask, score_actions(params, "q", x, feats), -np.inf)
        explore = counter_uniforms(seed, games, index, 0) < epsilon
        # The random action: the legal action at a uniform rank among the legal ones.
        rank = np.floor(counter_uniforms(seed, games, index, 1) * mask.sum(axis=1))
        random_actions = np.argmax(np.cumsum(mask, axis=1) > rank[:, None], axis=1)
        actions = np.where(explore, random_actions, np.argmax(q, axis=1))
        live = np.flatnonzero(~done)
        taken["x"].append(x[live])
        taken["chosen"].append(actions[live] if features.one_hot else feats[live, actions[live]])
        taken["player"].append(step.current_player[live])
        banked = running(env)[live] / reward_scale if running is not None else np.zeros(len(live), np.float32)
        taken["banked"].append(banked.astype(np.float32))
        taken["game"].append(live)
        step = env.step(actions)
        # A row's first game is the part's; the games the environment starts after it are not played for.
        ended = live[step.terminated[live]]
        returns[ended] = step.returns[ended]
        done[ended] = True
        index += 1
    game_of = np.concatenate(taken["game"])
    order = np.argsort(game_of, kind="stable")  # game order, each game's decisions in move order
    players = np.concatenate(taken["player"])[order]
    target = returns[game_of[order], players] / reward_scale - np.concatenate(taken["banked"])[order]
    return {"x": np.concatenate(taken["x"])[order], "chosen": np.concatenate(taken["chosen"])[order],
            "target": target.astype(np.float32), "returns": returns}


def run_trial(params: dict, spec: dict, seed: int) -> list[dict]:
    """A part as a backend task (:class:`gamut.solvers.backends.TrialTask`); ``seed`` is unused.

    ``params`` holds the round's ``game_string``, ``net``, ``seed``, ``epsilon``,
    ``reward_scale`` and ``score_rewards``; ``spec`` the part's ``first`` game
    and ``count``.
    """
    return [play_part(params["game_string"], params["net"], params["seed"], spec["first"], spec["count"],
                      params["epsilon"], params["reward_scale"], params["score_rewards"])]


def play_round(game_string: str, net: dict, seed: int, games: int, parts: int, epsilon: float,
               reward_scale: float, score_rewards: bool, backend=None) -> dict:
    """The ``games`` games of a round seeded by ``seed``, in ``parts`` parts joined in game order.

    Without a ``backend`` (an opened :mod:`gamut.solvers.backends` backend)
    the parts run one after another in this process. The data do not depend
    on ``parts`` or on the backend.
    """
    from gamut.solvers.backends import TrialTask

    task = {"game_string": game_string, "net": {k: np.asarray(v, np.float32) for k, v in net.items()},
            "seed": int(seed), "epsilon": float(epsilon), "reward_scale": float(reward_scale),
            "score_rewards": bool(score_rewards)}
    specs = [{"trial": k, "first": first, "count": count} for k, (first, count) in enumerate(part_bounds(games,
                                                                                                        parts))]
    if backend is None:
        results = [run_trial(task, spec, 0)[0] for spec in specs]
    else:
        records = sorted(backend.run([TrialTask(__name__, task, spec, 0) for spec in specs]),
                         key=lambda record: record["trial"])
        results = [record["rows"][0] for record in records]
    return {key: np.concatenate([r[key] for r in results]) for key in results[0]}
