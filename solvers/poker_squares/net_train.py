"""Training the Poker Squares value network: batched self-play, TD(lambda) targets, replay, Adam, checkpoints.

A run proceeds in chunks. Chunk ``i``:

1. plays ``games_per_chunk`` one-player games on the batched environment
   (``gamut.envs.vector.make_vector``), every placement chosen by one compiled
   call for the whole batch: the network values every afterstate of the card
   (``net_model.afterstate_values``) and the best is taken, or with
   probability ``epsilon`` a uniformly random empty cell. In the first
   ``teacher_chunks`` chunks the ``crossline`` agent (the linear value the
   network is meant to surpass) chooses instead, and the targets of its
   games are their final scores: the network starts from the value of a
   good policy rather than from nothing;
2. turns each game's 24 afterstates (1 .. 24 cards placed) into TD(lambda)
   targets, ``G_t = (1 - lambda) V_{t+1} + lambda G_{t+1}`` with ``G`` of the
   last afterstate the final score, and adds them to a replay buffer (the
   newest ``buffer`` positions). ``V_{t+1}`` is what the target bootstraps
   from at the next move: with ``bootstrap = "drawn"`` the best afterstate
   value for the card that was drawn; with ``"expected"`` the mean of that
   best value over every card unseen at afterstate ``t`` (the expectation
   the two-ply search ``net_search`` takes, a search-labelled target: the
   luck of the next card leaves it; each move values every unseen card's
   afterstates, some 40 times those of the drawn card alone);
3. takes ``updates`` Adam steps on minibatches of ``batch`` positions drawn
   from the buffer (mean squared error in units of ``value_scale`` points);
4. writes a checkpoint (atomically).

With ``base = "crossline"`` the network is a residual over the ``crossline``
value (``net_model``, "Base"): self-play values afterstates by the sum, the
TD targets are built from the sum, and the network is fitted to the target
minus the base value of each afterstate. Its zero output layer makes chunk
0's games those of the ``crossline`` agent (with exploration), so no
teacher is needed.

Game ``g`` of chunk ``i`` deals from the stream of ``(stream_seed(seed, 2i), g)``
and explores from that of ``(stream_seed(seed, 2i + 1), g)``, so a chunk's
games are the same whether they are played in one process or split over
``workers`` parts on the runner's backends (local processes or Ray tasks,
:mod:`gamut.solvers.backends`; each part is a task of this module's
:func:`run_trial`), and the minibatches are drawn from a generator seeded
by ``(seed, i)``. A killed run resumes from its last checkpoint and ends with
the parameters of an uninterrupted one (the tests check this bit for bit).

The checkpoint holds a JSON header (format version, points, settings), the
parameters, Adam's state, the buffer, the chunk index, the per-chunk mean
scores and the training seconds, plus ``sha256``, the digest of all of them:
a damaged or altered checkpoint is refused, as is one whose settings differ
from the command's. ``export`` writes the weight file the agents read.

JAX and optax (the ``train`` extra) are imported only here, never by the
agents or the kernels.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import platform
import time
from pathlib import Path

import numba
import numpy as np

from gamut.envs.cards import NUM_CARDS
from gamut.envs.hands import HAND_TABLE
from gamut.envs.poker_squares import kernels as K
from gamut.envs.rng import below, uniform
from gamut.solvers.poker_squares import net_model as M
from gamut.solvers.poker_squares.crossline import corrected_cell, load_weights
from gamut.solvers.poker_squares.training import load_npz, load_values, save_npz, stream_seed

CHECKPOINT_VERSION = 1
POSITIONS_PER_GAME = K.NUM_CELLS - 1  # afterstates with 1 .. 24 cards; the full grid's value is its score
VALUE_SCALE = 100.0
DEFAULTS = {"games_per_chunk": 2048, "lam": 0.7, "epsilon": 0.05, "learning_rate": 1e-3, "batch": 256,
            "updates": 384, "buffer": 400_000, "hidden": [M.H1, M.H2, M.H3], "teacher_chunks": 0, "base": "none",
            "bootstrap": "drawn"}
BOOTSTRAPS = ("drawn", "expected")


@numba.njit(cache=True)
def _choose_cells(states, params, base_values, base_weights, cfg, table, epsilon, streams, move, actions,
                  best_values, grids):
    """Choose every row's cell for move ``move``; record the chosen afterstate and the best value."""
    values = np.empty(K.NUM_CELLS)
    grid = np.empty(K.NUM_CELLS, np.int64)
    for i in range(states.shape[0]):
        for cell in range(K.NUM_CELLS):
            grid[cell] = states[i, K.S_GRID + cell]
        card = K.card_to_place(states[i], 0)
        M.valued_afterstates(grid, card, params, base_values, base_weights, cfg, table, values)
        best, best_cell, empty = -np.inf, -1, 0
        for cell in range(K.NUM_CELLS):
            if grid[cell] < 0:
                empty += 1
                if values[cell] > best:
                    best, best_cell = values[cell], cell
        stream = streams[i:i + 1]
        cell = best_cell
        if uniform(stream) < epsilon:
            pick = below(stream, empty)
            for c in range(K.NUM_CELLS):
                if grid[c] < 0:
                    if pick == 0:
                        cell = c
                        break
                    pick -= 1
        actions[i] = cell
        best_values[i, move] = best
        grid[cell] = card
        for c in range(K.NUM_CELLS):
            grids[i, move, c] = grid[c]


@numba.njit(cache=True)
def expected_best(states, params, base_values, base_weights, cfg, table, move, out):
    """Write into ``out[i, move]`` the mean, over every card that could have come now, of its best afterstate value.

    ``states`` int64 (n, STATE_SIZE) are one-player states before move
    ``move``'s card is placed; the cards that could have come after the
    previous afterstate are those not dealt yet (``kernels.unseen_cards``)
    and the card to place. The values are the network's (over its base), as
    in ``_choose_cells``; the cards are taken in ascending order.
    """
    values = np.empty(K.NUM_CELLS)
    grid = np.empty(K.NUM_CELLS, np.int64)
    unseen = np.empty(NUM_CARDS, np.int64)
    could_come = np.empty(NUM_CARDS, np.bool_)
    for i in range(states.shape[0]):
        for cell in range(K.NUM_CELLS):
            grid[cell] = states[i, K.S_GRID + cell]
        could_come[:] = False
        for k in range(K.unseen_cards(states[i], unseen)):
            could_come[unseen[k]] = True
        could_come[K.card_to_place(states[i], 0)] = True
        total, count = 0.0, 0
        for card in range(NUM_CARDS):
            if could_come[card]:
                M.valued_afterstates(grid, card, params, base_values, base_weights, cfg, table, values)
                total += np.max(values)
                count += 1
        out[i, move] = total / count


@numba.njit(cache=True)
def _teacher_cells(states, cfg, table, values, weights, epsilon, streams, move, actions, grids):
    """Choose every row's cell by the ``crossline`` agent (epsilon-greedy); record the afterstates."""
    grid = np.empty(K.NUM_CELLS, np.int64)
    for i in range(states.shape[0]):
        cell = corrected_cell(states[i], 0, cfg, table, values, weights)
        stream = streams[i:i + 1]
        if uniform(stream) < epsilon:
            n = K.legal_cells(states[i], 0, grid)
            cell = grid[below(stream, n)]
        actions[i] = cell
        for c in range(K.NUM_CELLS):
            grids[i, move, c] = states[i, K.S_GRID + c]
        grids[i, move, cell] = K.card_to_place(states[i], 0)


def lambda_targets(best_values: np.ndarray, scores: np.ndarray, lam: float) -> np.ndarray:
    """TD(lambda) targets float64 (n, 24) of the afterstates after moves 0..23.

    ``best_values`` float64 (n, 25): the best afterstate value of each move
    (move 24's is the final score); ``scores`` (n,) the final scores.
    """
    n = len(scores)
    targets = np.empty((n, POSITIONS_PER_GAME))
    following = np.asarray(scores, dtype=np.float64)
    for t in range(POSITIONS_PER_GAME - 1, -1, -1):
        following = (1.0 - lam) * best_values[:, t + 1] + lam * following
        targets[:, t] = following
    return targets


def play_games(game_string: str, params: tuple, deal_seed: int, explore_seed: int, first: int, count: int,
               epsilon: float, teacher: bool = False, base: str = "none", bootstrap: str = "drawn") -> dict:
    """Games ``first .. first + count - 1`` of a chunk: afterstate grids int8 (count, 25, 25), best values, scores.

    ``grids[g, t]`` is game ``g``'s grid after move ``t``; ``best[g, t]`` the
    best afterstate value of move ``t`` (zero when the ``teacher``, the
    ``crossline`` agent on the committed learned table and correction, plays
    instead of the network; with ``bootstrap = "expected"``, for t >= 1, its
    mean over the cards that could have come, ``expected_best``); ``scores``
    (count,) the final scores. ``base`` names the network's base
    (``net_model.load_base``).
    """
    from gamut.envs.vector import game_streams, make_vector

    env = make_vector(game_string, num_envs=count, seed=0, copy=False)
    # Each row's deal stream is that of its game index in the chunk, whoever plays it.
    env.streams = game_streams(deal_seed, count, first)
    explore = game_streams(explore_seed, count, first)
    step = env.reset()
    cfg = env.game.cfg
    actions = np.zeros(count, np.int64)
    best = np.zeros((count, K.NUM_CELLS))
    grids = np.zeros((count, K.NUM_CELLS, K.NUM_CELLS), np.int8)
    points = tuple(int(p) for p in cfg[K.C_POINTS:])
    if teacher:
        values, weights = load_values(points), load_weights(points)
    else:
        base_values, base_weights = M.load_base(base, points)[0]
    for move in range(K.NUM_CELLS):
        if teacher:
            _teacher_cells(env.states, cfg, HAND_TABLE, values, weights, epsilon, explore, move, actions, grids)
        else:
            _choose_cells(env.states, params, base_values, base_weights, cfg, HAND_TABLE, epsilon, explore, move,
                          actions, best, grids)
            if bootstrap == "expected" and move > 0:  # move 0's value is no target's bootstrap
                expected_best(env.states, params, base_values, base_weights, cfg, HAND_TABLE, move, best)
        step = env.step(actions)
    if not step.terminated.all():
        raise RuntimeError("every game should end after 25 placements")
    return {"grids": grids, "best": best, "scores": step.returns[:, 0].astype(np.float64)}


def run_trial(params: dict, spec: dict, seed: int) -> dict:
    """One part of a chunk's games, as a backend task: ``play_games`` on ``params`` and ``spec``'s game range.

    ``params`` holds ``game_string``, ``net`` (the forward parameters), ``deal_seed``,
    ``explore_seed``, ``epsilon``, ``teacher``, ``base`` and ``bootstrap``; ``spec`` the part's ``first``
    game and ``count``. ``seed`` is unused: the part's games depend only on the
    chunk's two stream seeds, whatever the split.
    """
    return play_games(params["game_string"], params["net"], params["deal_seed"], params["explore_seed"],
                      spec["first"], spec["count"], params["epsilon"], params["teacher"], params["base"],
                      params["bootstrap"])


def play_chunk(game_string: str, params: tuple, seed: int, chunk: int, games: int, epsilon: float,
               workers: int = 1, teacher: bool = False, backend=None, base: str = "none",
               bootstrap: str = "drawn") -> dict:
    """The games of chunk ``chunk``, split into ``workers`` parts (the same games for any ``workers``).

    The parts run on ``backend`` (an opened :mod:`gamut.solvers.backends`
    backend); without one, a single part runs in this process and several on
    a local backend of ``workers`` processes opened for this call.
    """
    from gamut.solvers.backends import LocalBackend, TrialTask

    deal_seed, explore_seed = stream_seed(seed, 2 * chunk), stream_seed(seed, 2 * chunk + 1)
    bounds = [games * k // workers for k in range(workers + 1)]
    task_params = {"game_string": game_string, "net": params, "deal_seed": deal_seed,
                   "explore_seed": explore_seed, "epsilon": epsilon, "teacher": teacher, "base": base,
                   "bootstrap": bootstrap}
    tasks = [TrialTask(__name__, task_params, {"trial": k, "first": lo, "count": hi - lo}, 0)
             for k, (lo, hi) in enumerate(zip(bounds[:-1], bounds[1:])) if hi > lo]
    if backend is None and len(tasks) == 1:
        results = [run_trial(task_params, tasks[0].spec, 0)]
    else:
        # Worker processes are spawned: the parent has JAX's threads running, which fork would copy half-way.
        runner = backend or LocalBackend(len(tasks))
        records = sorted(runner.run(tasks), key=lambda record: record["trial"])
        results = [record["rows"][0] for record in records]
    return {key: np.concatenate([r[key] for r in results]) for key in results[0]}


class Trainer:
    """The JAX side: forward pass, loss, Adam step, and the optimizer state as flat arrays."""

    def __init__(self, learning_rate: float):
        import jax
        import optax

        self.jax = jax
        self.optimizer = optax.adam(learning_rate)

        def loss(params, lines, glob, empty, target):
            return ((forward(params, lines, glob, empty) - target) ** 2).mean()

        def update(params, opt_state, lines, glob, empty, target):
            value, grads = jax.value_and_grad(loss)(params, lines, glob, empty, target)
            updates, opt_state = self.optimizer.update(grads, opt_state, params)
            return optax.apply_updates(params, updates), opt_state, value

        self.update = jax.jit(update)

    def init_state(self, params):
        return self.optimizer.init(params)

    def flatten(self, opt_state) -> list[np.ndarray]:
        return [np.asarray(leaf) for leaf in self.jax.tree_util.tree_leaves(opt_state)]

    def unflatten(self, params, leaves: list[np.ndarray]):
        treedef = self.jax.tree_util.tree_structure(self.init_state(params))
        return self.jax.tree_util.tree_unflatten(treedef, [self.jax.numpy.asarray(x) for x in leaves])


@functools.lru_cache(maxsize=4)
def _trainer(learning_rate: float) -> Trainer:
    """One compiled trainer per step size in a process (compiling the update takes seconds)."""
    return Trainer(learning_rate)


def forward(params, lines, glob, empty):
    """JAX forward pass (unscaled output) of a batch: lines (B, 10, 40), glob (B, 18), empty (B, 25) -> (B,)."""
    import jax.numpy as jnp

    shared = glob @ params["u1"] + params["b1"]
    hidden = jnp.maximum(lines @ params["w1"] + shared[:, None, :], 0.0)
    emb = jnp.maximum(hidden @ params["w2"] + params["b2"], 0.0)
    mean = emb.mean(axis=1)
    cells = jnp.asarray(K.CELL_LINES)
    cross = (empty[:, :, None] * emb[:, cells[:, 0], :] * emb[:, cells[:, 1], :]).sum(axis=1) * M.CROSS_SCALE
    joint = jnp.concatenate([mean, cross], axis=1)
    head = jnp.maximum(joint @ params["w3"] + params["b3"], 0.0)
    return head @ params["w4"] + mean @ params["a"] + params["b4"][0]


def encode(grids: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Network inputs (float32) of grids (B, 25): lines (B, 10, 40), global (B, 18), empty cells (B, 25)."""
    n = len(grids)
    lines = np.empty((n, K.NUM_LINES, M.LINE_INPUTS), np.float32)
    glob = np.empty((n, M.GLOBAL_INPUTS), np.float32)
    empty = np.empty((n, K.NUM_CELLS), np.float32)
    M.encode_grids(grids, lines, glob, empty)
    return lines, glob, empty


def _digest(arrays: dict) -> str:
    h = hashlib.sha256()
    for name in sorted(arrays):
        arr = np.ascontiguousarray(arrays[name])
        h.update(name.encode() + str(arr.dtype).encode() + str(arr.shape).encode())
        h.update(arr.tobytes())
    return h.hexdigest()


def load_checkpoint(path: Path, header: dict) -> dict:
    """A checkpoint's arrays, checked: readable, its digest, its format and settings those of ``header``."""
    saved = load_npz(path, ("header", "sha256", "chunk", "buffer_grids", "buffer_targets"), "training checkpoint")
    digest = str(saved.pop("sha256"))
    if digest != _digest(saved):
        raise ValueError(f"{path}: its arrays do not match its SHA-256 digest: the checkpoint is corrupted; "
                         "remove it to start over")
    theirs = json.loads(str(saved["header"]))
    if theirs.get("version") != CHECKPOINT_VERSION:
        raise ValueError(f"{path} is a version {theirs.get('version')} checkpoint; this code reads version "
                         f"{CHECKPOINT_VERSION}")
    # A setting added after a checkpoint was written reads as its default there.
    differ = [f"{key} {theirs.get(key, DEFAULTS.get(key))!r} (now {value!r})" for key, value in header.items()
              if theirs.get(key, DEFAULTS.get(key)) != value]
    if differ:
        raise ValueError(f"{path} holds a run with other settings: {', '.join(differ)}; pass the same settings "
                         "to resume, or another --out")
    return saved


def train_net(scoring: str, positions: int, path: Path, seed: int = 0, resume: bool = False, workers: int = 1,
              progress=None, command: str = "", backend: str = "local", address: str | None = None,
              **settings) -> dict:
    """Train (or resume) the value network of ``scoring`` until ``positions`` afterstates have been played.

    ``settings`` override ``DEFAULTS``. Without ``resume`` an existing ``path``
    is refused (it would be overwritten); with it, the run continues from the
    checkpoint, which must have the same settings. ``positions`` may exceed
    the checkpoint's target: training continues. ``progress(done, total,
    mean, seconds)`` is called after every chunk. Each chunk's games are split
    into ``workers`` parts that run on ``backend`` (``local`` processes, or
    ``ray``: a local Ray instance, or the cluster at ``address``); the games do
    not depend on either. Returns a summary.
    """
    import jax.numpy as jnp

    from gamut.envs.loading import load_game
    from gamut.envs.poker_squares.game import parse_points
    from gamut.solvers.backends import make_backend

    unknown = set(settings) - set(DEFAULTS)
    if unknown:
        raise ValueError(f"unknown training settings {sorted(unknown)}; known: {sorted(DEFAULTS)}")
    cfg = {**DEFAULTS, **settings}
    if cfg["bootstrap"] not in BOOTSTRAPS:
        raise ValueError(f"unknown bootstrap {cfg['bootstrap']!r}; known: {', '.join(BOOTSTRAPS)}")
    cfg["hidden"] = [int(h) for h in cfg["hidden"]]
    points = [int(p) for p in parse_points(scoring)]
    game_string = "poker_squares(scoring=" + ";".join(str(p) for p in points) + ")"
    header = {"version": CHECKPOINT_VERSION, "points": points, "seed": int(seed), **cfg}
    # The base is loaded (and checked) before anything runs; a run over a correction that has since changed
    # is refused on resume, as its weights would be at load.
    (base_values, base_weights), base_digest = M.load_base(cfg["base"], points)
    if cfg["base"] != "none":
        header["base_sha256"] = base_digest
        cfg_array = load_game(game_string).cfg
    path = Path(path)
    per_chunk = cfg["games_per_chunk"] * POSITIONS_PER_GAME
    chunks = -(-positions // per_chunk)
    # A bad backend or address is refused before anything runs; one local part needs no worker processes.
    runner = make_backend(backend, address, workers)
    if backend == "local" and workers == 1:
        runner = None
    trainer = _trainer(cfg["learning_rate"])
    if path.exists() and not resume:
        raise ValueError(f"--out {path} exists: pass --resume to continue its run, or choose another file")
    if path.exists():
        saved = load_checkpoint(path, header)
        params = {name: jnp.asarray(saved["p_" + name]) for name in M.PARAM_NAMES}
        leaves = [saved[f"opt_{k}"] for k in range(int(saved["opt_leaves"]))]
        opt_state = trainer.unflatten(params, leaves)
        chunk, means = int(saved["chunk"]), list(saved["chunk_means"])
        buf_grids, buf_targets = saved["buffer_grids"].copy(), saved["buffer_targets"].copy()
        elapsed = float(saved["seconds"])
    else:
        params = {k: jnp.asarray(v, dtype=jnp.float32) for k, v in M.initial_params(seed, *cfg["hidden"]).items()}
        opt_state = trainer.init_state(params)
        chunk, means, elapsed = 0, [], 0.0
        buf_grids = np.zeros((0, K.NUM_CELLS), np.int8)
        buf_targets = np.zeros(0, np.float32)
    path.parent.mkdir(parents=True, exist_ok=True)
    if runner is not None:
        runner.open()  # a Ray cluster is joined once for the run; an unreachable one fails before any chunk
    try:
        while chunk < chunks:
            started = time.perf_counter()
            numpy_params = {k: np.asarray(v, dtype=np.float64) for k, v in params.items()}
            teacher = chunk < cfg["teacher_chunks"]
            games = play_chunk(game_string, M.forward_params(numpy_params, VALUE_SCALE), seed, chunk,
                               cfg["games_per_chunk"], cfg["epsilon"], workers, teacher, runner, cfg["base"],
                               cfg["bootstrap"])
            # The teacher's games have no network values to bootstrap from: their targets are the final scores.
            targets = lambda_targets(games["best"], games["scores"], 1.0 if teacher else cfg["lam"]).reshape(-1)
            new_grids = games["grids"][:, :POSITIONS_PER_GAME].reshape(-1, K.NUM_CELLS)
            if cfg["base"] != "none":
                base = np.empty(len(new_grids))
                M.base_values_of(new_grids, cfg_array, HAND_TABLE, base_values, base_weights, base)
                targets = targets - base  # the network is fitted to what the base misses
            buf_grids = np.concatenate([buf_grids, new_grids])
            buf_targets = np.concatenate([buf_targets, (targets / VALUE_SCALE).astype(np.float32)])
            buf_grids, buf_targets = buf_grids[-cfg["buffer"]:], buf_targets[-cfg["buffer"]:]
            rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(chunk, 0x42)))
            for _ in range(cfg["updates"]):
                pick = rng.integers(0, len(buf_targets), cfg["batch"])
                lines, glob, empty = encode(buf_grids[pick])
                params, opt_state, _ = trainer.update(params, opt_state, lines, glob, empty, buf_targets[pick])
            chunk += 1
            means.append(float(games["scores"].mean()))
            elapsed += time.perf_counter() - started
            arrays = {"header": np.str_(json.dumps(header, sort_keys=True)), "chunk": np.int64(chunk),
                      "chunk_means": np.array(means), "seconds": np.float64(elapsed),
                      "buffer_grids": buf_grids, "buffer_targets": buf_targets}
            arrays.update({"p_" + k: np.asarray(v) for k, v in params.items()})
            leaves = trainer.flatten(opt_state)
            arrays["opt_leaves"] = np.int64(len(leaves))
            arrays.update({f"opt_{k}": leaf for k, leaf in enumerate(leaves)})
            save_npz(path, sha256=np.str_(_digest(arrays)), **arrays)
            if progress:
                progress(chunk * per_chunk, chunks * per_chunk, means[-1], elapsed)
        where = runner.describe() if runner else {"name": "local", "workers": 1}
        return {"checkpoint": str(path), "chunks": chunk, "positions": chunk * per_chunk,
                "games": chunk * cfg["games_per_chunk"], "last_chunk_mean": means[-1] if means else None,
                "seconds": elapsed, "workers": workers, "backend": where, "command": command}
    finally:
        if runner is not None:
            runner.close()


def export(checkpoint: Path, out: Path, command: str = "") -> dict:
    """Write the weight file of a checkpoint's network (what the agents load); return its metadata."""
    import gamut

    saved = load_npz(checkpoint, ("header", "sha256", "chunk"), "training checkpoint")
    header = json.loads(str(saved["header"]))
    load_checkpoint(checkpoint, header)
    chunk = int(saved["chunk"])
    metadata = {"training_positions": chunk * header["games_per_chunk"] * POSITIONS_PER_GAME,
                "training_games": chunk * header["games_per_chunk"], "chunks": chunk,
                "wall_seconds": round(float(saved["seconds"]), 1), "cores": os.cpu_count(),
                "seed": header["seed"], "settings": {k: header.get(k, DEFAULTS[k]) for k in DEFAULTS},
                "chunk_means": [round(float(m), 3) for m in saved["chunk_means"]],
                "command": command, "toolkit_version": getattr(gamut, "__version__", "unknown"),
                "commit": _commit(), "machine": platform.machine()}
    params = {name: saved["p_" + name] for name in M.PARAM_NAMES}
    digest = M.save_net(out, params, VALUE_SCALE, header["points"], metadata, header.get("base", "none"),
                        header.get("base_sha256", ""))
    return {**metadata, "path": str(out), "sha256": digest}


def _commit() -> str:
    import subprocess

    try:
        return subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, check=True,
                              cwd=Path(__file__).resolve().parent).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
