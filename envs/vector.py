"""Batched environments: N games of one game string stepped by one compiled call.

``make_vector(game_string, num_envs, seed=0)`` returns the batched environment of
any game of the toolkit. Every call steps the whole batch and returns one
:class:`VectorStep` record::

    >>> import numpy as np
    >>> from gamut.envs.vector import make_vector
    >>> env = make_vector("poker_squares", num_envs=4, seed=7)
    >>> step = env.reset()
    >>> step.obs.shape, step.legal_mask.shape          # float32 (N, obs_size), bool (N, actions)
    ((4, 606), (4, 25))
    >>> actions = np.argmax(step.legal_mask, axis=1)   # the first legal cell of each game
    >>> step = env.step(actions)

Conventions shared by every game (the per-game classes live in
``gamut.envs.<game>.vector``):

- The observation of row ``i`` is the pyspiel ``observation_tensor`` of game
  ``i`` for its ``current_player`` (and ``info_state`` the information-state
  tensor when the environment was made with ``info_state=True``).
- Chance is sampled inside the kernels; a call returns at the next decision
  node of every game. A game that ends during a call reports its final
  ``returns`` (zero in the other rows), sets ``terminated``, and is reset at
  once: the row's observation is then the first decision of the next game.
- ``rewards`` are the rewards of the call (every game here pays at the end, so
  they equal ``returns``).
- Game ``i`` draws its chance from its own stream, seeded by ``(seed, i)``:
  its trajectories under the same actions do not depend on ``num_envs``, on
  the number of threads, or on the other games.
- A bad action array (wrong shape or type, an id out of range, an illegal
  action in any row) raises ``ValueError`` naming the first bad row and its
  legal actions, before any game is changed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np
import pyspiel

from gamut.envs.declaration import resolve
from gamut.envs.loading import load_game
from gamut.envs.memory import format_bytes, physical_memory
from gamut.envs.registry import declaration_of, declarations
from gamut.envs.rng import below, rng_state, splitmix64



@dataclass(frozen=True)
class VectorStep:
    """What one ``reset()`` or ``step()`` returns for a batch of ``N`` games.

    Attributes
    ----------
    obs : float32 (N, obs_size)
        pyspiel ``observation_tensor(current_player)`` of each game.
    legal_mask : bool (N, num_distinct_actions)
        ``legal_mask[i, a]`` is True when action ``a`` is legal in game ``i``.
    current_player : int64 (N,)
        The player to move in each game (always a decision node).
    rewards : float32 (N, num_players)
        Rewards of the call for every player.
    terminated : bool (N,)
        True where a game ended during the call (and was reset).
    returns : float32 (N, num_players)
        Final returns of the games that ended during the call, zero elsewhere.
    info_state : float32 (N, info_state_size) or None
        pyspiel ``information_state_tensor(current_player)``, when requested.
    """

    obs: np.ndarray
    legal_mask: np.ndarray
    current_player: np.ndarray
    rewards: np.ndarray
    terminated: np.ndarray
    returns: np.ndarray
    info_state: np.ndarray | None = None


@numba.njit(cache=True)
def _fill_streams(seed, first, out):
    for k in range(out.shape[0]):
        key = splitmix64(splitmix64(np.uint64(seed)) ^ np.uint64(first + k))
        out[k] = rng_state(key)[0]


def game_streams(seed: int, num_envs: int, first: int = 0) -> np.ndarray:
    """Generator states ``uint64 (num_envs,)`` of games ``first .. first + num_envs - 1``.

    Entry ``k`` is a one-element xorshift state (``gamut.envs.rng``) seeded by
    ``(seed, first + k)`` alone; a kernel advances game ``i``'s stream in place
    through the view ``streams[i:i + 1]``.
    """
    out = np.empty(num_envs, dtype=np.uint64)
    _fill_streams(np.uint64(seed % (1 << 64)), np.int64(first), out)
    return out


_BLOCK = 32


@numba.njit(cache=True)
def random_legal_actions(legal_mask, streams, out):
    """Write a uniformly random legal action of each row into ``out`` (int64 (N,)).

    Row ``i`` draws from ``streams[i:i + 1]``, so it does not depend on the
    other rows. A ready-made policy for benchmarks, tests and baselines.
    """
    n, a = legal_mask.shape
    for i in range(n):
        count = 0
        for j in range(a):
            count += legal_mask[i, j]
        pick = below(streams[i:i + 1], count)
        # Skip whole blocks of the row (summed without branches) before walking
        # to the chosen legal action: masks of hundreds of actions stay cheap.
        j = 0
        while j + _BLOCK <= a:
            block = 0
            for k in range(j, j + _BLOCK):
                block += legal_mask[i, k]
            if pick < block:
                break
            pick -= block
            j += _BLOCK
        while True:
            if legal_mask[i, j]:
                if pick == 0:
                    out[i] = j
                    break
                pick -= 1
            j += 1


class BatchedGame:
    """Base of every game's batched environment: buffers, seeding, checks.

    A game's subclass sets the class attribute ``game_name`` and implements

    - ``_setup()``: allocate its state arrays (after the shared buffers exist);
    - ``_reset_rows()``: start every game and advance each to its first
      decision node, writing the shared output buffers;
    - ``_step_rows(actions)``: apply ``actions`` (already checked), sample
      chance to the next decision node, finish and reset ended games, and write
      the shared output buffers;
    - optionally ``action_string(row, action)`` for error messages and
      ``max_chance_per_step`` with a chance trace (see ``trace``).

    Parameters
    ----------
    game : str or pyspiel.Game
        Game string (or loaded game) of this game.
    num_envs : int
        Number of games ``N`` (>= 1).
    seed : int
        Seed of the chance streams (``0 <= seed < 2**63``).
    info_state : bool
        Also write the information-state tensor of the player to move.
    copy : bool
        Return copies of the output buffers (default). With ``False`` the record
        holds the environment's buffers, overwritten by the next call.
    threads : int or None
        ``None`` steps the games on one core; ``k >= 1`` steps them on ``k``
        Numba threads (the same numbers, game by game).
    trace : bool
        Record the chance outcomes applied in each row during the last call
        (``chance_trace[i, :chance_count[i]]``, in order), for replay checks.
    """

    game_name = ""
    max_chance_per_step = 0

    def __init__(self, game, num_envs: int, seed: int = 0, *, info_state: bool = False, copy: bool = True,
                 threads: int | None = None, trace: bool = False):
        self.game = load_game(game)
        if self.game.get_type().short_name != self.game_name:
            raise ValueError(f"{type(self).__name__} steps {self.game_name} games, got {self.game}")
        # Every entry of the observation and information-state tensors lies in
        # [obs_low, obs_high] (the game's declaration; documented per game in docs/games/<game>.md).
        self.obs_low, self.obs_high = observation_bounds(self.game)
        self.num_envs = _check_count("num_envs", num_envs, low=1)
        self.seed = _check_count("seed", seed, low=0, high=(1 << 63) - 1)
        self.threads = None if threads is None else _check_count("threads", threads, low=1,
                                                                  high=numba.config.NUMBA_NUM_THREADS)
        self.info_state_requested = bool(info_state)
        if info_state and not self.game.get_type().provides_information_state_tensor:
            raise ValueError(f"{self.game} has no information-state tensor")
        self.copy = bool(copy)
        self.num_players = self.game.num_players()
        self.tracing = bool(trace)
        self._check_memory()
        self.num_actions = self.game.num_distinct_actions()
        n = self.num_envs
        self.obs_buf = np.zeros((n, self.game.observation_tensor_size()), np.float32)
        self.info_buf = (np.zeros((n, self.game.information_state_tensor_size()), np.float32)
                         if info_state else np.zeros((n, 0), np.float32))
        self.mask_buf = np.zeros((n, self.num_actions), np.bool_)
        self.player_buf = np.zeros(n, np.int64)
        self.rewards_buf = np.zeros((n, self.num_players), np.float32)
        self.terminated_buf = np.zeros(n, np.bool_)
        self.returns_buf = np.zeros((n, self.num_players), np.float32)
        self.streams = game_streams(self.seed, n)
        width = self.max_chance_per_step if trace else 0
        self.chance_trace = np.full((n, width), -1, np.int64)
        self.chance_count = np.zeros(n, np.int64)
        self._started = False
        self._setup()

    # -- the public API -----------------------------------------------------
    def reset(self, seed: int | None = None) -> VectorStep:
        """Start a new game in every row and return the first decisions.

        ``seed`` re-seeds every row's stream from ``(seed, i)``; without it the
        first ``reset`` uses the environment's seed and later ones continue
        each row's stream (new games).
        """
        if seed is not None:
            self.seed = _check_count("seed", seed, low=0, high=(1 << 63) - 1)
            self.streams = game_streams(self.seed, self.num_envs)
        self._clear_outputs()
        self._run(self._reset_rows)
        self._started = True
        return self._record()

    def step(self, actions) -> VectorStep:
        """Apply one action in every row; see the module docstring for what comes back."""
        if not self._started:
            raise RuntimeError("call reset() before the first step()")
        checked = self.check_actions(actions)
        self._clear_outputs()
        self._run(self._step_rows, checked)
        return self._record()

    def check_actions(self, actions) -> np.ndarray:
        """``actions`` as int64 (N,) after checking them against the legal masks.

        Raises ``ValueError`` for a wrong shape, a non-integer type, or an
        illegal action (naming the first bad row and its legal actions).
        """
        arr = np.asarray(actions)
        if arr.shape != (self.num_envs,):
            raise ValueError(f"actions must have shape ({self.num_envs},) (one per game), got shape {arr.shape}")
        if arr.dtype == np.bool_ or not np.issubdtype(arr.dtype, np.integer):
            raise ValueError(f"actions must be integers (action ids), got dtype {arr.dtype}")
        arr = arr.astype(np.int64, copy=False)
        in_range = (arr >= 0) & (arr < self.num_actions)
        legal = np.zeros(self.num_envs, np.bool_)
        legal[in_range] = self.mask_buf[np.flatnonzero(in_range), arr[in_range]]
        if not legal.all():
            row = int(np.flatnonzero(~legal)[0])
            action = int(arr[row])
            allowed = np.flatnonzero(self.mask_buf[row]).tolist()
            named = (f"{action} ({self.action_string(row, action)})" if 0 <= action < self.num_actions
                     else f"{action} (outside 0..{self.num_actions - 1})")
            names = ", ".join(f"{a} ({self.action_string(row, a)})" for a in allowed)
            raise ValueError(f"row {row}: action {named} is not legal for player "
                             f"{int(self.player_buf[row])}; legal actions: {names}")
        return arr

    def action_string(self, row: int, action: int) -> str:
        """Name of ``action`` for the player to move in ``row`` (used by error messages)."""
        return str(action)

    # -- for the subclasses ---------------------------------------------------
    def _setup(self) -> None:
        raise NotImplementedError

    def _reset_rows(self, parallel: bool) -> None:
        raise NotImplementedError

    def _step_rows(self, parallel: bool, actions: np.ndarray) -> None:
        raise NotImplementedError

    # -- internals -----------------------------------------------------------
    def _bytes_per_game(self) -> int:
        """Bytes of the shared buffers of one row (a game's own state arrays come on top)."""
        info = self.game.information_state_tensor_size() if self.info_state_requested else 0
        width = self.max_chance_per_step if self.tracing else 0
        return (4 * (self.game.observation_tensor_size() + info) + self.game.num_distinct_actions()
                + 8 * self.num_players + 8 * (3 + width) + 1)

    def _check_memory(self) -> None:
        # Refuse a batch whose buffers alone exceed the machine, rather than fail inside numpy.
        total, each = physical_memory(), self._bytes_per_game()
        if total is not None and self.num_envs * each > total:
            raise ValueError(f"num_envs={self.num_envs:,} needs at least {format_bytes(self.num_envs * each)} "
                             f"({each:,} bytes a game) and this machine has {format_bytes(total)}: use at most "
                             f"{total // each:,}")

    def _run(self, fn, *args) -> None:
        if self.threads is None:
            fn(False, *args)
            return
        before = numba.get_num_threads()
        numba.set_num_threads(self.threads)
        try:
            fn(True, *args)
        finally:
            numba.set_num_threads(before)

    def _clear_outputs(self) -> None:
        self.rewards_buf.fill(0.0)
        self.returns_buf.fill(0.0)
        self.terminated_buf.fill(False)
        self.chance_count.fill(0)

    def _record(self) -> VectorStep:
        take = np.copy if self.copy else _read_only_view
        return VectorStep(
            obs=take(self.obs_buf), legal_mask=take(self.mask_buf), current_player=take(self.player_buf),
            rewards=take(self.rewards_buf), terminated=take(self.terminated_buf), returns=take(self.returns_buf),
            info_state=take(self.info_buf) if self.info_state_requested else None,
        )


def _read_only_view(buffer: np.ndarray) -> np.ndarray:
    # The environment keeps updating its buffers in place: a caller must not write into them.
    view = buffer.view()
    view.flags.writeable = False
    return view


def _check_count(name: str, value, low: int, high: int = (1 << 62)) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not low <= value <= high:
        raise ValueError(f"{name} must be a whole number in {low}..{high}, got {value!r}")
    return int(value)


def _vector_class(game: pyspiel.Game) -> type[BatchedGame]:
    declaration = declaration_of(game)
    if declaration is None or declaration.vector is None:
        batched = sorted(name for name, d in declarations().items() if d.vector)
        raise ValueError(f"no batched environment for {game.get_type().short_name!r}; the games with one are "
                         f"{', '.join(batched)}")
    return resolve(declaration.vector)


def observation_bounds(game_string) -> tuple[float, float]:
    """``(low, high)``: every entry of the game's observation and information-state tensors lies in it.

    Raises ``ValueError`` for a game that declares none (not a game of the toolkit).
    """
    game = load_game(game_string)
    declaration = declaration_of(game)
    if declaration is None:
        raise ValueError(f"{game} is not a game of the toolkit: it declares no observation bounds")
    low, high = declaration.observation_bounds
    return float(low), float(high)


def make_vector(game_string, num_envs: int, seed: int = 0, **options) -> BatchedGame:
    """The batched environment of ``game_string`` with ``num_envs`` games.

    ``options`` are those of :class:`BatchedGame` (``info_state``, ``copy``,
    ``threads``, ``trace``). Raises ``ValueError`` for a game string that does
    not load (named as by :func:`gamut.load_game`) or a game of another toolkit.
    """
    game = load_game(game_string)
    return _vector_class(game)(game, num_envs, seed, **options)

