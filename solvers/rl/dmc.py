"""Deep Monte-Carlo (DMC): a Q-network over action features, trained on Monte-Carlo returns.

The learner of DouZero (Zha et al., 2021) and RLCard, on the batched
environments:

- **Q-network**: ``Q(s, a) = MLP(concat(x, f(a)))``, where ``x`` is the
  network input of the position (the tensor of the player to move, then the
  seat one-hot, as for PPO) and ``f(a)`` the action's features. The first
  layer is split, ``x @ W_s + f(a) @ W_a``, so the position's part is
  computed once per row and only the action's part once per legal action
  (:mod:`gamut.solvers.rl.features`, shared with PPO's action head).
  The features come from the game's declaration (``GAME.action_features``,
  e.g. what a Poker Squares placement does to its row and column); a game
  without one gets the one-hot of the action id, whose ``f(a) @ W_a`` is
  row ``a`` of ``W_a`` (no ``(N, A, A)`` array is ever built).
- **Acting**: epsilon-greedy on ``Q`` over the legal actions, one jitted call
  per step for the whole batch. A multi-player game is played by the same
  network in every seat (self-play).
- **Targets**: every decision's target is the mover's own final return of
  its game (``gamma = 1``), divided by ``reward_scale``: by default the
  features' ``return_scale`` (a typical return) where the game lends one,
  else the game's largest absolute utility. With ``score_rewards`` (on by
  default) a one-player game that lends a running score
  (:mod:`gamut.solvers.rl.scores`) learns the points still to come instead:
  the target is ``return - phi(before)``. ``phi(before)`` is the same for
  every action of a position, so the greedy action is unchanged, and the
  network does not spend capacity recounting the points already banked.
- **Games in flight**: a decision waits in its row's slot until its game ends
  (its target is not known before); each row holds up to the game's
  ``max_game_length`` decisions. The slots and the replay buffer must fit in
  ``memory_mb`` (a config that would not is refused when the trainer is made).
- **Actors** (``actors > 0``): instead of games in flight, each update plays
  a round of ``num_envs`` whole games with the current network, split into
  ``actors`` parts that may run on worker processes or Ray
  (:meth:`DMCTrainer.use_backend`, ``gamut train --backend``); the round's
  data do not depend on the split (:mod:`gamut.solvers.rl.actors`). An
  update then plays about ``num_envs`` x the game's length decisions;
  ``anneal_steps`` still counts updates of ``num_envs x rollout``, so set
  ``rollout`` near the game's length (25 for Poker Squares) to anneal over
  decisions.
- **League** (``league_share > 0``, games of two or more players, games in
  flight only): every ``league_every`` decisions the learner's parameters
  are frozen into a pool of its past selves, a ring of ``league_size``
  snapshots (the newest replaces the oldest). At every new game one seat is
  the learner's and every other seat is played, with probability
  ``league_share``, by a snapshot drawn uniformly from the pool (else by the
  learner too); a snapshot plays its greedy action and its decisions are not
  trained on (:mod:`gamut.solvers.rl.league`). The pool and the tables are
  in the checkpoint. Only the agent's own past selves sit at its tables:
  no hand-written player gives it moves or targets (``heuristic_share`` is
  0 in its weights file).
- **Learning**: finished games' decisions enter a ring buffer of the last
  ``buffer_size``; each update then takes ``sgd_steps`` Adam steps (optax) on
  uniform minibatches of ``batch_size``, minimising the mean squared error.

All randomness (weights, exploration, minibatches) comes from one NumPy
generator seeded by ``seed``, the games' chance from ``seed`` too; the
checkpoint holds the games in flight and the buffer, so a resumed run ends
with the same parameters as an uninterrupted one.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gamut.envs.loading import load_game
from gamut.envs.vector import make_vector
from gamut.solvers.rl.checkpoint import saved_group
from gamut.solvers.rl.evaluation import network_input, uses_info_state
# OneHotFeatures and action_features are this module's names too (the tests and older callers import them here).
from gamut.solvers.rl.features import (OneHotFeatures, action_features, features_name,  # noqa: F401
                                       score_actions, score_chosen)
from gamut.solvers.rl.networks import init_mlp, sample_masked
from gamut.solvers.rl.ppo import Hyperparameters
from gamut.solvers.rl.trainer_state import checked_learner, learner_state, restore_learner


def q_values(params: dict, x, feats, xp=np):
    """Q float32 ``(N, A)`` of every action: ``x`` ``(N, D)``, ``feats`` ``(N, A, F)`` or None (one-hot ids).

    ``xp`` is ``numpy`` (the ``dmc`` agent) or ``jax.numpy`` (training).
    """
    return score_actions(params, "q", x, feats, xp)


def q_chosen(params: dict, x, chosen, one_hot: bool, xp=np):
    """Q float32 ``(B,)`` of one action per row: ``chosen`` its ids int ``(B,)`` (one-hot) or features ``(B, F)``."""
    return score_chosen(params, "q", x, chosen, one_hot, xp)


@dataclass(frozen=True)
class DMCConfig(Hyperparameters):
    """Hyperparameters of :class:`DMCTrainer` (defaults tuned on Poker Squares)."""

    num_envs: int = 64
    rollout: int = 16
    hidden: tuple = (256, 256)
    learning_rate: float = 1e-4
    batch_size: int = 512
    sgd_steps: int = 4
    buffer_size: int = 32768
    epsilon: float = 0.05
    max_grad_norm: float = 10.0
    anneal_steps: int = 0
    final_learning_rate: float = 0.0
    reward_scale: float = 0.0
    score_rewards: bool = True
    memory_mb: int = 1024
    actors: int = 0
    league_share: float = 0.0
    league_every: int = 200_000
    league_size: int = 8
    NAME = "DMC"
    LATER_SETTINGS = ("anneal_steps", "final_learning_rate", "actors", "league_share", "league_every",
                      "league_size")

    def __post_init__(self):
        self._require_whole(("num_envs", "rollout", "batch_size", "sgd_steps", "buffer_size", "memory_mb"))
        self._normalise_hidden()
        if self.buffer_size < self.batch_size:
            raise ValueError(f"DMC buffer_size ({self.buffer_size}) must hold a minibatch ({self.batch_size})")
        for name in ("learning_rate", "max_grad_norm"):
            if not getattr(self, name) > 0:
                raise ValueError(f"DMC {name} must be > 0, got {getattr(self, name)}")
        if int(self.anneal_steps) != self.anneal_steps or self.anneal_steps < 0:
            raise ValueError(f"DMC anneal_steps must be a whole number >= 0 (0: a constant learning rate), "
                             f"got {self.anneal_steps}")
        if not 0 <= self.final_learning_rate <= self.learning_rate:
            raise ValueError(f"DMC final_learning_rate must lie in [0, learning_rate = {self.learning_rate}], "
                             f"got {self.final_learning_rate}")
        if not 0 <= self.epsilon <= 1:
            raise ValueError(f"DMC epsilon must lie in [0, 1], got {self.epsilon}")
        if int(self.actors) != self.actors or not 0 <= self.actors <= self.num_envs:
            raise ValueError(f"DMC actors must be a whole number in 0..num_envs = {self.num_envs} (0: games in "
                             f"flight in this process), got {self.actors}")
        if not self.reward_scale >= 0:
            raise ValueError(f"DMC reward_scale must be > 0, or 0 for the game's default, got {self.reward_scale}")
        if not 0 <= self.league_share <= 1:
            raise ValueError(f"DMC league_share must lie in [0, 1], got {self.league_share}")
        self._require_whole(("league_every", "league_size"))
        if self.league_share > 0 and self.actors:
            raise ValueError("DMC league_share needs games in flight (actors = 0); rounds of actors play "
                             "the current network in every seat")


def _learning_rate(config: DMCConfig):
    """Adam's step size: constant, or falling linearly to ``final_learning_rate`` over ``anneal_steps`` decisions.

    The schedule counts Adam's steps (``sgd_steps`` per update of ``num_envs x
    rollout`` decisions), which the checkpoint holds.
    """
    import optax

    if config.anneal_steps == 0:
        return config.learning_rate
    adam_steps = config.anneal_steps * config.sgd_steps // (config.num_envs * config.rollout)
    return optax.linear_schedule(config.learning_rate, config.final_learning_rate, max(adam_steps, 1))


def _running_score(game, wanted: bool):
    """The game's running score reader when ``score_rewards`` applies to it, else None (targets: the returns)."""
    from gamut.solvers.rl.scores import optional_running_score

    return optional_running_score(game) if wanted else None


class DMCTrainer:
    """Deep Monte-Carlo on ``game_string`` through its batched environment (see the module docstring).

    Parameters
    ----------
    game_string : str
    seed : int
    config : DMCConfig
    """

    algorithm = "dmc"

    def __init__(self, game_string: str, seed: int = 0, config: DMCConfig | None = None):
        import jax
        import optax

        cfg = self.config = config or DMCConfig()
        self.game = load_game(game_string)
        self.game_string = str(self.game)
        self.seed = int(seed)
        self.features = action_features(self.game)
        self.one_hot = bool(self.features.one_hot)
        self.reward_scale = float(cfg.reward_scale or getattr(self.features, "return_scale", 0.0) or max(
            abs(self.game.max_utility()), abs(self.game.min_utility()), 1e-9))
        seeds = np.random.SeedSequence(self.seed).generate_state(2, dtype=np.uint32)
        self.rng = np.random.default_rng(int(seeds[0]))
        self.env = make_vector(self.game, cfg.num_envs, seed=int(seeds[1]), info_state=uses_info_state(self.game))
        self.step = self.env.reset()
        self.running_score = _running_score(self.game, cfg.score_rewards)
        width = network_input(self.step, self.game).shape[1]
        self._allocate(width)
        self.params = init_mlp("q", [width + self.features.size, *cfg.hidden, 1], self.rng, 1.0)
        self.optimizer = optax.chain(optax.clip_by_global_norm(cfg.max_grad_norm), optax.adam(_learning_rate(cfg)))
        self.opt_state = self.optimizer.init(self.params)
        self.steps = 0
        self.updates = 0
        self.finished_returns: list[float] = []
        self.backend = None
        self.league = None
        if cfg.league_share > 0:
            from gamut.solvers.rl.league import League

            if self.game.num_players() < 2:
                raise ValueError(f"DMC league_share needs a game of two or more players, not {self.game_string}")
            self.league = League(cfg.num_envs, self.game.num_players(), cfg.league_share, cfg.league_every,
                                 cfg.league_size, self.rng)
        optimizer, one_hot = self.optimizer, self.one_hot

        def loss(params, x, chosen, target):
            return jax.numpy.mean((q_chosen(params, x, chosen, one_hot, jax.numpy) - target) ** 2)

        def update(params, opt_state, x, chosen, target):
            grads = jax.grad(loss)(params, x, chosen, target)
            changes, opt_state = optimizer.update(grads, opt_state, params)
            return optax.apply_updates(params, changes), opt_state

        self._update = jax.jit(update)
        self._q = jax.jit(lambda p, x, f: q_values(p, x, f, jax.numpy))

    def _allocate(self, width: int) -> None:
        """The slots of the games in flight and the replay buffer, or ValueError when they exceed ``memory_mb``."""
        cfg = self.config
        length = int(self.game.max_game_length())
        chosen = 8 if self.one_hot else 4 * self.features.size
        in_flight = cfg.num_envs * length * (4 * width + chosen + 8 + 4)
        buffer = cfg.buffer_size * (4 * width + chosen + 4)
        if in_flight + buffer > cfg.memory_mb * 2 ** 20:
            raise ValueError(
                f"DMC needs {(in_flight + buffer) / 2 ** 20:,.0f} MB, more than memory_mb={cfg.memory_mb}: "
                f"{cfg.num_envs} games in flight of up to {length} decisions each (the game's max_game_length) "
                f"take {in_flight / 2 ** 20:,.0f} MB and a replay buffer of {cfg.buffer_size} decisions "
                f"{buffer / 2 ** 20:,.0f} MB; lower num_envs or buffer_size, or raise memory_mb")
        chosen_shape = () if self.one_hot else (self.features.size,)
        chosen_type = np.int64 if self.one_hot else np.float32
        self.slots = {"x": np.zeros((cfg.num_envs, length, width), np.float32),
                      "chosen": np.zeros((cfg.num_envs, length, *chosen_shape), chosen_type),
                      "player": np.zeros((cfg.num_envs, length), np.int64),
                      "banked": np.zeros((cfg.num_envs, length), np.float32)}
        if cfg.league_share > 0:  # which decisions were the learner's (a snapshot's are not trained on)
            self.slots["learner"] = np.zeros((cfg.num_envs, length), np.bool_)
        self.held = np.zeros(cfg.num_envs, np.int64)
        self.buffer = {"x": np.zeros((cfg.buffer_size, width), np.float32),
                       "chosen": np.zeros((cfg.buffer_size, *chosen_shape), chosen_type),
                       "target": np.zeros(cfg.buffer_size, np.float32)}
        self.filled = 0
        self.head = 0

    @property
    def steps_per_update(self) -> int:
        """Decisions played by one update (``num_envs x rollout``)."""
        return self.config.num_envs * self.config.rollout

    @property
    def heuristic_share(self) -> float:
        """Share of seats the game's heuristic plays in training: always 0 (DMC seats only itself and its past)."""
        return 0.0

    def config_dict(self) -> dict:
        return {"dmc": self.config.as_dict()}

    def _act(self, x: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        """Epsilon-greedy actions int64 ``(N,)`` and the features of every action (None for one-hot ids)."""
        feats = None if self.one_hot else self.features(x, mask)
        q = np.where(mask, np.asarray(self._q(self.params, x, feats)), -np.inf)
        # Fixed draws per step (an exploring flag and a random action per row) keep the generator in step.
        explore = self.rng.random(len(x)) < self.config.epsilon
        random_actions, _ = sample_masked(np.zeros(mask.shape, np.float32), mask, self.rng)
        return np.where(explore, random_actions, np.argmax(q, axis=1)), feats

    def use_backend(self, backend) -> None:
        """Run the parts of each round (``actors > 0``) on ``backend``, an opened backend (None: this process)."""
        self.backend = backend

    def train_update(self) -> None:
        """Play ``rollout`` steps in every game (or a round, with ``actors``), bank what ended, take the Adam steps."""
        if self.config.actors:
            self._train_round()
            return
        cfg = self.config
        rows = np.arange(cfg.num_envs)
        limit = self.slots["player"].shape[1]
        finished = []
        for _ in range(cfg.rollout):
            x, mask = network_input(self.step, self.game), self.step.legal_mask
            actions, feats = self._act(x, mask)
            if self.league is not None:
                learner = self.league.play(actions, self.step.current_player, x, feats, mask)
            if (self.held >= limit).any():
                raise RuntimeError(f"a game of {self.game_string} ran past its max_game_length ({limit})")
            slot = self.held
            self.slots["x"][rows, slot] = x
            self.slots["chosen"][rows, slot] = actions if self.one_hot else feats[rows, actions]
            self.slots["player"][rows, slot] = self.step.current_player
            if self.league is not None:
                self.slots["learner"][rows, slot] = learner
            if self.running_score is not None:
                self.slots["banked"][rows, slot] = self.running_score(self.env) / self.reward_scale
            self.held += 1
            self.step = self.env.step(actions)
            for row in np.flatnonzero(self.step.terminated):
                self._bank(row, self.step.returns[row] / self.reward_scale)
            if self.league is None:
                finished.extend(self.step.returns[self.step.terminated, 0].tolist())
            else:
                ended = np.flatnonzero(self.step.terminated)
                finished.extend(self.step.returns[ended, self.league.learner_seat(ended)].tolist())
                self.league.new_games(ended)
        self._learn()
        self.steps += cfg.num_envs * cfg.rollout
        self.updates += 1
        self.finished_returns = finished
        if self.league is not None:
            self.league.maybe_snapshot(self.params, self.steps)

    def _train_round(self) -> None:
        """One round of ``num_envs`` whole games in ``actors`` parts (:mod:`gamut.solvers.rl.actors`), then learn."""
        from gamut.solvers.rl.actors import play_round, round_seed

        cfg = self.config
        data = play_round(self.game_string, self.params, round_seed(self.seed, self.updates), cfg.num_envs,
                          cfg.actors, cfg.epsilon, self.reward_scale, self.running_score is not None, self.backend)
        self._push(data["x"], data["chosen"], data["target"])
        self._learn()
        self.steps += len(data["target"])
        self.updates += 1
        self.finished_returns = data["returns"][:, 0].tolist()

    def _learn(self) -> None:
        """``sgd_steps`` Adam steps on uniform minibatches of the buffer, once it holds a minibatch."""
        cfg = self.config
        if self.filled < cfg.batch_size:
            return
        for _ in range(cfg.sgd_steps):
            pick = self.rng.integers(0, self.filled, cfg.batch_size)
            self.params, self.opt_state = self._update(self.params, self.opt_state, self.buffer["x"][pick],
                                                       self.buffer["chosen"][pick], self.buffer["target"][pick])
        self.params = {k: np.asarray(v) for k, v in self.params.items()}

    def _push(self, x: np.ndarray, chosen: np.ndarray, target: np.ndarray) -> None:
        """Append decisions to the ring buffer (of more than it holds, the last ``buffer_size``)."""
        size = self.config.buffer_size
        first = max(0, len(target) - size)
        where = (self.head + np.arange(len(target) - first)) % size
        self.buffer["x"][where] = x[first:]
        self.buffer["chosen"][where] = chosen[first:]
        self.buffer["target"][where] = target[first:]
        self.head = int((self.head + len(target) - first) % size)
        self.filled = min(self.filled + len(target) - first, size)

    def _bank(self, row: int, returns: np.ndarray) -> None:
        """Move row ``row``'s decisions into the buffer, each with its mover's target; empty the row's slots."""
        count = int(self.held[row])
        players = self.slots["player"][row, :count]
        keep = self.slots["learner"][row, :count] if self.league is not None else slice(None)
        self._push(self.slots["x"][row, :count][keep], self.slots["chosen"][row, :count][keep],
                   (returns[players] - self.slots["banked"][row, :count])[keep])
        self.held[row] = 0

    def q_numpy(self, inputs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Q float32 ``(N, A)`` of every action in NumPy (as the ``dmc`` agent computes it)."""
        return q_values(self.params, inputs, None if self.one_hot else self.features(inputs, mask))

    def act_greedy(self, inputs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The legal action of largest Q in each row (how the ``dmc`` agent plays)."""
        return np.argmax(np.where(mask, self.q_numpy(inputs, mask), -np.inf), axis=1)

    def probabilities(self, inputs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The greedy policy float64 ``(N, A)``: probability 1 at :meth:`act_greedy`'s action."""
        probs = np.zeros(mask.shape)
        probs[np.arange(len(mask)), self.act_greedy(inputs, mask)] = 1.0
        return probs

    # -- checkpoint support ---------------------------------------------------
    def state(self) -> tuple[dict, dict]:
        """JSON-able counters and generator state, and every array of the run (filled parts only)."""
        info, arrays = learner_state(self)
        longest = int(self.held.max())
        arrays.update({f"slots/{k}": v[:, :longest].copy() for k, v in self.slots.items()})
        arrays["held"] = self.held.copy()
        arrays.update({f"buffer/{k}": v[:self.filled].copy() for k, v in self.buffer.items()})
        info.update(filled=self.filled, head=self.head)
        if self.league is not None:
            league_info, league_arrays = self.league.state()
            info["league"] = league_info
            arrays.update({f"league/{k}": v for k, v in league_arrays.items()})
        return info, arrays

    def load_state(self, info: dict, arrays: dict) -> None:
        """Restore what :meth:`state` returned (shapes checked; raises ValueError on a mismatch)."""
        checked = checked_learner(self, arrays)
        held, filled = arrays["held"], int(info["filled"])
        longest = int(held.max()) if held.size else 0
        if held.shape != self.held.shape or filled > self.config.buffer_size:
            raise ValueError("the saved games in flight or replay buffer do not match this configuration")
        for name, own in (*(("slots/" + k, v[:, :longest]) for k, v in self.slots.items()),
                          *(("buffer/" + k, v[:filled]) for k, v in self.buffer.items())):
            if arrays[name].shape != own.shape:
                raise ValueError(f"the saved {name} has shape {arrays[name].shape}, this run needs {own.shape}")
        if self.league is not None:
            self.league.load_state(info["league"], saved_group(arrays, "league"), self.params)
        for k, v in self.slots.items():
            v[:, :longest] = arrays[f"slots/{k}"]
        for k, v in self.buffer.items():
            v[:filled] = arrays[f"buffer/{k}"]
        self.held[:] = held
        self.filled, self.head = filled, int(info["head"])
        restore_learner(self, info, arrays, checked)

    def weights_arrays(self) -> dict:
        """What a weights file ships: the Q-network (``q/*``)."""
        return {k: np.asarray(v) for k, v in self.params.items()}

    def weights_metadata(self) -> dict:
        """How to read the Q-network: its features, and the scale and meaning of its output."""
        return {"action_features": features_name(self.game), "feature_size": int(self.features.size),
                "value_scale": self.reward_scale,
                "value_meaning": "points to come" if self.running_score is not None else "final return"}
