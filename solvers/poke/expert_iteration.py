"""Expert iteration for Poke's ``nn_ismcts``: the search's root values become the Q-network's targets.

A Deep Monte-Carlo network (``gamut train --algo dmc``) learns the returns of
its own play. As the prior or the leaf value of ``nn_ismcts`` it then guides
a search that plays far better than the network does, and the search follows
it into worse moves (``results/nn_ismcts/README.md``). Expert iteration turns
this around: the search (``ismcts``) plays one-deal games against itself,
and at each of its decisions the mean return it found for every candidate
action (at the root, after ``iterations`` iterations) becomes a regression
target for the network's Q-value of that action, weighted by the
candidate's visits (a mean over ``n`` play-outs has a variance that falls as
``1 / n``). The network then estimates what the search would find, and a
search guided by it starts from that.

:func:`search_targets` plays the deals and records the targets;
:func:`fit_to_targets` fits a network's Q-head to them with Adam, keeping the
epoch of least loss on held-out deals; :func:`save_fitted` writes a weights
file that ``nn_ismcts`` reads (``weights=PATH``). The command is
``python -m gamut.experiments.studies.poke_expert_iteration``.

Every deal is seeded by ``(seed, deal index)``, so the targets of deals
``[a, b)`` do not depend on how the deals are split into chunks or workers.

Example
-------
>>> data = search_targets("poke(mode=deal,trick_value=34.0)", WEIGHTS, 0, 2, 50, seed=1)  # doctest: +SKIP
>>> data.target.shape == data.rows.shape == data.visits.shape                                # doctest: +SKIP
True
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gamut.envs.loading import load_game
from gamut.solvers.poke.chance import draw_chance
from gamut.solvers.poke.nn_search import deal_prior
from gamut.solvers.rl.checkpoint import file_sha256, load_weights, save_weights

HEAD = "q"


@dataclass
class SearchTargets:
    """The search's root values at its decisions of a range of deals.

    Attributes
    ----------
    x : numpy.ndarray
        float32 ``(M, D)``: the network input (information-state tensor and seat one-hot) of the
        player to move at each of the ``M`` decisions.
    rows : numpy.ndarray
        int64 ``(P,)``: the decision (row of ``x``) of each of the ``P`` (decision, candidate) pairs.
    feats : numpy.ndarray
        float32 ``(P, F)``: the candidate's action features.
    target : numpy.ndarray
        float32 ``(P,)``: the search's mean return of the candidate for the player to move, divided
        by the network's ``value_scale`` (the units of its Q-values).
    visits : numpy.ndarray
        int64 ``(P,)``: the candidate's visits at the root (pairs without visits are left out).
    deals : numpy.ndarray
        int64 ``(M,)``: the deal index of each decision.

    Example: a decision with three candidates visited 150, 100 and 50 times, whose means are
    +38.6, 0 and -19.3 points with ``value_scale`` 193, adds one row to ``x`` and the pairs
    ``rows = [m, m, m]``, ``target = [0.2, 0.0, -0.1]``, ``visits = [150, 100, 50]``.
    """

    x: np.ndarray
    rows: np.ndarray
    feats: np.ndarray
    target: np.ndarray
    visits: np.ndarray
    deals: np.ndarray

    @classmethod
    def concatenate(cls, parts: list[SearchTargets]) -> SearchTargets:
        """The decisions of ``parts`` in order, as one set (``rows`` renumbered)."""
        offsets = np.cumsum([0] + [len(p.x) for p in parts[:-1]])
        return cls(np.concatenate([p.x for p in parts]),
                   np.concatenate([p.rows + o for p, o in zip(parts, offsets)]),
                   np.concatenate([p.feats for p in parts]), np.concatenate([p.target for p in parts]),
                   np.concatenate([p.visits for p in parts]), np.concatenate([p.deals for p in parts]))

    def arrays(self) -> dict[str, np.ndarray]:
        """The fields by name (what a chunk file holds)."""
        return {"x": self.x, "rows": self.rows, "feats": self.feats, "target": self.target,
                "visits": self.visits, "deals": self.deals}

    def where(self, keep_decisions: np.ndarray) -> SearchTargets:
        """The decisions where the bool ``(M,)`` mask holds, with their pairs."""
        new_row = np.cumsum(keep_decisions) - 1
        pairs = keep_decisions[self.rows]
        return SearchTargets(self.x[keep_decisions], new_row[self.rows[pairs]], self.feats[pairs],
                             self.target[pairs], self.visits[pairs], self.deals[keep_decisions])


def require_deal_game(game) -> None:
    """ValueError unless ``game`` is a one-deal Poke game (the search's targets are a deal's returns)."""
    if game.get_type().short_name != "poke" or game.params["mode"] != "deal":
        raise ValueError(f"expert iteration plays one-deal Poke games, poke(mode=deal,...), not {game}")


def search_targets(game_string: str, weights: str, first_deal: int, count: int, iterations: int,
                   seed: int) -> SearchTargets:
    """Play deals ``[first_deal, first_deal + count)`` with ``ismcts`` in both seats and record its root values.

    Parameters
    ----------
    game_string : str
        A one-deal Poke game; the search values a deal as its ``trick_value`` says.
    weights : str
        The network whose inputs and units the targets are written in (a ``dmc`` file of a one-deal
        game with the same deck and ``trick_value``).
    first_deal, count : int
        The deals to play (``count >= 0``).
    iterations : int
        ISMCTS iterations per decision (>= 1).
    seed : int
        Seeds every deal with ``(seed, deal index)``: its cards and both searches.
    """
    from gamut.solvers.bots import make_bot

    game = load_game(game_string)
    require_deal_game(game)
    if count < 0 or first_deal < 0:
        raise ValueError(f"deals must be a range of indices >= 0, got first_deal={first_deal}, count={count}")
    prior = deal_prior(game, weights)
    if prior.head != HEAD or prior.features is None or prior.features.one_hot:
        raise ValueError(f"expert iteration fits a Q-network over action features (gamut train --algo dmc); "
                         f"{weights} is not one")
    if prior.network_game.trick_value != game.trick_value:
        raise ValueError(f"the targets are values of {game} and would be fitted into a network of "
                         f"{prior.network_game}: their trick_value must agree")
    scale = float(prior.metadata["value_scale"])
    xs, rows, feats, targets, visits, deals = [], [], [], [], [], []
    for deal in range(first_deal, first_deal + count):
        rng = np.random.default_rng([seed, deal])
        bots = [make_bot(game, "ismcts", seat, int(rng.integers(2**62)), iterations=iterations,
                         trick_value=game.trick_value) for seat in (0, 1)]
        state = game.new_initial_state()
        draw_chance(state, rng)
        while not state.is_terminal():
            player = state.current_player()
            bot = bots[player]
            bot.last_search = None
            action = bot.step(state)
            found = bot.last_search
            if found is not None:
                seen = np.array(found.visits) > 0
                x, f = prior.inputs(state, player, found.actions)
                rows.append(np.full(int(seen.sum()), len(xs), np.int64))
                xs.append(x[0])
                feats.append(f[0][seen])
                targets.append(np.array(found.mean_returns)[seen] / scale)
                visits.append(np.array(found.visits)[seen])
                deals.append(deal)
            state.apply_action(action)
            draw_chance(state, rng)
    width = prior.features.size
    return SearchTargets(
        np.array(xs, np.float32).reshape(len(xs), -1) if xs else np.zeros((0, 0), np.float32),
        np.concatenate(rows) if rows else np.zeros(0, np.int64),
        np.concatenate(feats).astype(np.float32) if feats else np.zeros((0, width), np.float32),
        np.concatenate(targets).astype(np.float32) if targets else np.zeros(0, np.float32),
        np.concatenate(visits).astype(np.int64) if visits else np.zeros(0, np.int64),
        np.array(deals, np.int64))


def weighted_loss(params: dict, data: SearchTargets) -> float:
    """Visit-weighted mean squared error of the network's Q-values against the targets (NumPy)."""
    from gamut.solvers.rl.features import score_chosen

    q = score_chosen(params, HEAD, data.x[data.rows], data.feats, False)
    return float(np.sum(data.visits * (q - data.target) ** 2) / max(data.visits.sum(), 1))


def fit_to_targets(params: dict, train: SearchTargets, held_out: SearchTargets, epochs: int,
                   learning_rate: float, batch_size: int, seed: int) -> tuple[dict, list[dict]]:
    """Adam on the visit-weighted squared error; returns the epoch of least held-out loss and the curve.

    Parameters
    ----------
    params : dict
        The starting Q-network (``q/w0`` ... of a ``dmc`` file); not changed.
    train, held_out : SearchTargets
        Pairs to fit, and pairs of other deals to choose the epoch on.
    epochs : int
        Passes over ``train`` (>= 0; 0 returns ``params``).
    learning_rate : float
        Adam's step size (> 0).
    batch_size : int
        Pairs per step (>= 1), drawn without replacement in a seeded order each epoch.
    seed : int

    Returns
    -------
    (dict, list of dict)
        The parameters (NumPy float32) and one row per epoch (0: the start):
        ``{"epoch", "train_loss", "held_out_loss"}`` (``held_out_loss`` None without held-out pairs).
    """
    import jax
    import jax.numpy as jnp
    import optax

    from gamut.solvers.rl.features import score_chosen

    if epochs < 0 or batch_size < 1 or not learning_rate > 0:
        raise ValueError(f"need epochs >= 0, batch_size >= 1 and learning_rate > 0; got {epochs}, {batch_size}, "
                         f"{learning_rate}")
    if len(train.target) == 0:
        raise ValueError("no training pairs: play more deals")
    optimizer = optax.adam(learning_rate)

    def loss(p, x, feats, target, weight):
        q = score_chosen(p, HEAD, x, feats, False, jnp)
        return jnp.sum(weight * (q - target) ** 2) / jnp.sum(weight)

    @jax.jit
    def step(p, opt_state, x, feats, target, weight):
        grads = jax.grad(loss)(p, x, feats, target, weight)
        changes, opt_state = optimizer.update(grads, opt_state, p)
        return optax.apply_updates(p, changes), opt_state

    current = {k: jnp.asarray(v, jnp.float32) for k, v in params.items()}
    opt_state = optimizer.init(current)
    rng = np.random.default_rng(seed)
    weight = train.visits.astype(np.float32)

    def record(epoch, p):
        host = {k: np.asarray(v) for k, v in p.items()}
        return host, {"epoch": epoch, "train_loss": weighted_loss(host, train),
                      "held_out_loss": weighted_loss(host, held_out) if len(held_out.target) else None}

    best, row = record(0, current)
    curve = [row]
    for epoch in range(1, epochs + 1):
        order = rng.permutation(len(train.target))
        for start in range(0, len(order), batch_size):
            pick = order[start:start + batch_size]
            current, opt_state = step(current, opt_state, train.x[train.rows[pick]], train.feats[pick],
                                      train.target[pick], weight[pick])
        host, row = record(epoch, current)
        curve.append(row)
        # Without held-out pairs every epoch counts as an improvement: the last one is kept.
        if row["held_out_loss"] is None or row["held_out_loss"] < min(r["held_out_loss"] for r in curve[:-1]):
            best = host
    return {k: np.asarray(v, np.float32) for k, v in best.items()}, curve


def save_fitted(path, source: str, params: dict, record: dict) -> None:
    """Write ``params`` as a ``dmc`` weights file of ``source``'s game, its header naming how it was fitted.

    ``record`` (the data and fit settings, the curve) is stored under ``expert_iteration``, with
    the SHA-256 of ``source``; the heuristic played no seat, so ``heuristic_share`` stays 0.
    """
    _, header = load_weights(source, algorithm="dmc")
    metadata = {k: v for k, v in header.items() if k not in ("format", "toolkit_version", "digests",
                                                             "header_sha256")}
    metadata["expert_iteration"] = {"source_weights": str(source), "source_sha256": file_sha256(source),
                                    **record}
    metadata["policy"] = "greedy"
    save_weights(path, params, metadata)
