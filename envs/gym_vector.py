"""Gymnasium ``VectorEnv`` over the batched environment of a one-player game.

``make_gym_vector(game_string, num_envs, seed=0)`` wraps
``gamut.envs.vector.make_vector`` in the Gymnasium 1.x vector API, so code
written for ``gymnasium.vector.VectorEnv`` (and its vector wrappers) runs on
the toolkit's one-player games: Poker Squares (``poker_squares``,
``poker_squares(variant=open)``, any scoring) and the one-player poker dice
variants (``poker_dice(variant=yacht12,players=1)``, ...)::

    >>> import numpy as np
    >>> from gamut.envs.gym_vector import make_gym_vector
    >>> env = make_gym_vector("poker_squares", num_envs=4, seed=7)
    >>> obs, info = env.reset()
    >>> obs.shape, obs.dtype, info["action_mask"].shape     # float32 (N, 606), bool (N, 25)
    ((4, 606), dtype('float32'), (4, 25))
    >>> actions = np.argmax(info["action_mask"], axis=1)     # the first legal cell of each game
    >>> obs, rewards, terminated, truncated, info = env.step(actions)

What the adapter declares and returns:

- ``single_observation_space``: ``Box(low, high, (obs_size,), float32)`` with
  the game's documented bounds (``gamut.envs.vector.observation_bounds``);
  ``observation_space`` the batched ``Box`` ``(N, obs_size)``.
- ``single_action_space``: ``Discrete(num_distinct_actions)``;
  ``action_space``: ``MultiDiscrete`` of ``N`` of them. Not every action is
  legal: ``info["action_mask"]`` (bool ``(N, actions)``) says which are, and an
  illegal action raises ``ValueError`` naming the row (nothing is repaired).
- ``rewards`` float64 ``(N,)``: the final score of the games that ended in the
  call, 0 elsewhere. ``terminated`` marks them; ``truncated`` is always False
  (every game ends by its rules within a bounded number of moves).
- Auto-reset: ``metadata["autoreset_mode"]`` is ``AutoresetMode.SAME_STEP``.
  A game that ends is restarted within the same ``step``: its row of ``obs``
  and ``info["action_mask"]`` already belong to the next game. As Gymnasium
  specifies for this mode, ``info["final_info"]`` holds the info of the
  finished games (``returns`` and their empty ``action_mask``) and
  ``info["final_obs"]`` their final observation (an object array, ``None`` in
  the other rows) where the game's batched environment keeps it
  (``final_obs_buf``); each comes with its ``_key`` row mask.
- ``reset(seed=s)`` reseeds game ``i`` from ``(s, i)``: the same seed and
  actions give the same episodes, whatever ``num_envs`` or the thread count.
  ``reset()`` without a seed starts new games from the streams' current
  positions.

``make_gym_env(game_string, seed=0)`` is the single-game ``gymnasium.Env``
view (row 0 of a batch, no auto-reset) for games whose batched environment
keeps final observations.
"""

from __future__ import annotations

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from gamut.envs.loading import load_game
from gamut.envs.vector import make_vector, observation_bounds


class GymVectorEnv(gymnasium.vector.VectorEnv):
    """``gymnasium.vector.VectorEnv`` stepping ``num_envs`` games of a one-player game (see the module docstring).

    Parameters
    ----------
    game_string : str
        A one-player game of the toolkit.
    num_envs : int
        Number of games ``N`` (>= 1).
    seed : int
        Seed of the first ``reset`` (``0 <= seed < 2**63``).
    threads : int or None
        As for ``make_vector``: ``None`` steps on one core, ``k`` on ``k`` Numba threads.
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(self, game_string, num_envs: int, seed: int = 0, *, threads: int | None = None):
        game = load_game(game_string)
        if game.num_players() != 1:
            raise ValueError(
                f"make_gym_vector takes one-player games; {game} has {game.num_players()} players "
                "(step multi-player games with gamut.envs.vector.make_vector and its current_player)")
        self.batched = make_vector(game, num_envs, seed, copy=True, threads=threads)
        self.num_envs = self.batched.num_envs
        low, high = observation_bounds(game)
        self.single_observation_space = gymnasium.spaces.Box(
            low, high, (game.observation_tensor_size(),), np.float32, seed=seed)
        self.single_action_space = gymnasium.spaces.Discrete(game.num_distinct_actions(), seed=seed)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._rows = np.ones(self.num_envs, np.bool_)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Start a new game in every row: ``(obs, {"action_mask": ...})``.

        ``seed`` reseeds every game from ``(seed, i)``; the first ``reset``
        without one uses the seed the environment was made with.
        """
        if options:
            raise ValueError(f"reset takes no options, got {sorted(options)}")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer))):
            raise ValueError(f"seed must be one whole number (game i is seeded by (seed, i)), got {seed!r}")
        step = self.batched.reset(seed)
        super().reset(seed=None if seed is None else int(seed))
        return step.obs, self._info(step.legal_mask)

    def step(self, actions):
        """Apply one action per game: ``(obs, rewards, terminated, truncated, info)``."""
        step = self.batched.step(actions)
        info = self._info(step.legal_mask)
        ended = step.terminated
        if ended.any():
            info["final_info"] = {
                "returns": np.where(ended, step.returns[:, 0], 0.0).astype(np.float64),
                "_returns": ended.copy(),
                "action_mask": np.zeros_like(step.legal_mask),
                "_action_mask": ended.copy(),
            }
            info["_final_info"] = ended.copy()
            final_obs = getattr(self.batched, "final_obs_buf", None)
            if final_obs is not None:
                kept = np.full(self.num_envs, None, dtype=object)
                for row in np.flatnonzero(ended):
                    kept[row] = final_obs[row].copy()
                info["final_obs"] = kept
                info["_final_obs"] = ended.copy()
        rewards = step.rewards[:, 0].astype(np.float64)
        return step.obs, rewards, ended, np.zeros(self.num_envs, np.bool_), info

    def _info(self, mask: np.ndarray) -> dict:
        return {"action_mask": mask, "_action_mask": self._rows.copy()}


def make_gym_vector(game_string, num_envs: int, seed: int = 0, *, threads: int | None = None) -> GymVectorEnv:
    """A Gymnasium vector environment of ``num_envs`` games of the one-player game ``game_string``.

    Raises ``ValueError`` for a game string that does not load, a game with
    more than one player, or a bad ``num_envs``, ``seed`` or ``threads``.
    """
    return GymVectorEnv(game_string, num_envs, seed, threads=threads)


class GymEnv(gymnasium.Env):
    """One game of a one-player game as a ``gymnasium.Env``, the single-game view of :class:`GymVectorEnv`.

    Its game is row 0 of a batched environment, so ``reset(seed=s)`` starts
    the game that row 0 of ``make_gym_vector(game, N).reset(seed=s)`` starts.
    There is no auto-reset: the step that ends the game returns the final
    observation (and an all-False ``action_mask``); call ``reset`` for the
    next game, which without a seed continues the row's random stream.
    """

    metadata = {"render_modes": []}

    def __init__(self, game_string, seed: int = 0):
        game = load_game(game_string)
        if game.num_players() != 1:
            raise ValueError(f"make_gym_env takes one-player games; {game} has {game.num_players()} players")
        self.batched = make_vector(game, 1, seed)
        if not hasattr(self.batched, "final_obs_buf"):
            raise ValueError(f"make_gym_env needs the final observation of a game, which the batched environment "
                             f"of {game} does not keep; use make_gym_vector")
        low, high = observation_bounds(game)
        self.observation_space = gymnasium.spaces.Box(low, high, (game.observation_tensor_size(),), np.float32)
        self.action_space = gymnasium.spaces.Discrete(game.num_distinct_actions())
        self._next = None  # (obs, mask) of the game the batched environment started after the last one ended
        self._over = True

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Start a game: ``(obs float32 (obs_size,), {"action_mask": bool (num_actions,)})``."""
        if options:
            raise ValueError(f"reset takes no options, got {sorted(options)}")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer))):
            raise ValueError(f"seed must be one whole number, got {seed!r}")
        super().reset(seed=None if seed is None else int(seed))
        if seed is not None or self._next is None:
            step = self.batched.reset(seed)
            self._next = (step.obs[0], step.legal_mask[0])
        self._over = False
        return self._next[0].copy(), {"action_mask": self._next[1].copy()}

    def step(self, action):
        """``(obs, reward, terminated, False, {"action_mask": ...})``; an illegal action raises ``ValueError``."""
        if self._over:
            raise RuntimeError("the game is over (or not started): call reset()")
        step = self.batched.step(np.array([action], dtype=np.int64))
        self._next = (step.obs[0], step.legal_mask[0])
        ended = bool(step.terminated[0])
        if ended:
            self._over = True
            obs = self.batched.final_obs_buf[0].copy()
            info = {"action_mask": np.zeros_like(step.legal_mask[0])}
        else:
            obs, info = step.obs[0].copy(), {"action_mask": step.legal_mask[0].copy()}
        return obs, float(step.rewards[0, 0]), ended, False, info


def make_gym_env(game_string, seed: int = 0) -> GymEnv:
    """One game of the one-player game ``game_string`` as a ``gymnasium.Env`` (``ValueError`` for more players)."""
    return GymEnv(game_string, seed)
