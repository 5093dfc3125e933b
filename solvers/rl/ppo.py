"""Proximal policy optimisation with invalid-action masking, on the batched environments.

One update plays ``rollout`` steps in each of ``num_envs`` games (one compiled
environment call and one network call per step for the whole batch), credits
every transition to the player who made it (:mod:`gamut.solvers.rl.rollout`),
computes generalised advantages along each player's chain of decisions and
takes ``epochs x minibatches`` clipped-objective Adam steps (optax).

- **Masking**: the policy's logits of illegal actions are replaced by a huge
  negative number before the softmax (Huang and Ontanon's invalid-action
  masking), so an illegal action has probability 0, gets no gradient, and is
  never drawn.
- **Policy head** (``policy``): ``flat`` is an MLP from the network input to
  one logit per action id. ``actions`` scores each legal action with **one
  shared network** over the position and that action's features, ``logit[n,
  a] = MLP(concat(x_n, f(a)))`` (:mod:`gamut.solvers.rl.features`, the
  network of Deep Monte-Carlo's Q, with one output), then the masked softmax;
  the features are the game's own (``GAME.action_features``, e.g. what a
  Poker Squares placement does to its row and column), else the action's
  one-hot. ``auto`` (the default) takes ``actions`` where the game declares
  features and ``flat`` elsewhere. A flat head must learn separately, for
  every id, what an action does in every position; with features, what it
  learns about one placement carries to every cell where the placement does
  the same thing, which is what lets PPO learn Poker Squares: the flat head
  stays at random play's level (14.5 American) after 6.8 M decisions; the
  plain ``gamut train --game poker_squares --algo ppo --steps 2000000``
  reaches 103.3 (102.7 .. 103.9, n = 10,000) after 2 M decisions and 722 s
  of CPU on one thread (``results/rl/README.md``). The loss
  scores only the legal pairs of a minibatch. The value head is the same
  MLP either way. With the action head, ``reward_scale`` 0 means the
  features' ``return_scale`` where they lend one (Poker Squares: 100), and a
  one-player game with a running score is paid its score as it accrues
  whatever ``score_rewards`` says (DMC's recipe), with ``score_rewards=True``
  still refusing a game without one.
- **Self-play**: a multi-player game is played by **one shared policy and
  value network** in every seat; the input is the tensor of the player to move
  (the information-state tensor where the game has one) followed by the
  seat's one-hot, so the network can tell the seats apart while every game
  trains all of them. Each player's transitions are credited with that
  player's own return.
- **Heuristic seats** (``heuristic_share > 0``, Poke and Palace Poker): at
  the start of every game one seat is the learner's and each other seat is
  played by the game's heuristic with probability ``heuristic_share``
  (:mod:`gamut.solvers.rl.opponents`), else by the learner too. The
  heuristic's moves shape the learner's games but are not trained on: the
  loss averages over the learner's transitions only. With the default 0 the
  run is pure self-play.
- **Learning rate**: constant, or with ``anneal_steps > 0`` falling linearly to
  ``final_learning_rate`` over that many decisions (late updates then refine
  the policy instead of jittering around it).
- **Rewards** are divided by the game's largest absolute utility, so returns
  lie in [-1, 1] whatever the game's units, or by ``reward_scale`` when it is
  set (the action head's default is above). A game whose typical return is
  far below its largest one (Poker Squares: about 15 to 130 points of a
  possible 1,000 American) otherwise has value targets near 0, and Adam's
  steps of a fixed size move the value network's output by more than the
  differences it must resolve; a scale near the typical return keeps the
  targets near 1.
- **Score rewards**: by default a flat head's game pays its return on the
  last decision. With ``score_rewards=True`` (one-player dice and Poker
  Squares games), and under the action head wherever the game keeps a
  running score, every decision is paid the change in the running score it
  causes (:mod:`gamut.solvers.rl.scores`). Under ``gamma = 1`` a game's rewards
  still sum to its return, so the objective is unchanged; the value network
  then learns the points still to come instead of the whole score, and a
  decision's advantage is not drowned by the error on the points already
  banked.

All randomness (initial weights, actions, minibatch order) comes from one
NumPy generator seeded by ``seed``; the environment's chance streams from
``seed`` too. Same seed, same parameters after the same number of updates,
including across a checkpoint and resume (see
:mod:`gamut.solvers.rl.checkpoint`).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, fields

import numpy as np

from gamut.envs.loading import load_game
from gamut.envs.vector import make_vector
from gamut.solvers.rl import rollout
from gamut.solvers.rl.checkpoint import saved_group
from gamut.solvers.rl.scores import optional_running_score, running_score_reader
from gamut.solvers.rl.evaluation import network_input, uses_info_state
from gamut.solvers.rl.features import action_features, declares_features, features_name, score_actions, score_pairs
from gamut.solvers.rl.opponents import batched_heuristic, draw_tables
from gamut.solvers.rl.networks import MASKED_LOGIT, forward, init_mlp, masked_log_softmax, sample_masked
from gamut.solvers.rl.trainer_state import checked_learner, learner_state, restore_learner


class Hyperparameters:
    """Checks and JSON form shared by the algorithms' frozen config dataclasses (``NAME`` prefixes errors)."""

    NAME = ""
    # Settings added after checkpoints were first written: recorded only when they differ from
    # their default, so a file written before a setting existed still matches a run that keeps it.
    LATER_SETTINGS: tuple = ()

    def _require_whole(self, names) -> None:
        for name in names:
            if int(getattr(self, name)) < 1:
                raise ValueError(f"{self.NAME} {name} must be >= 1, got {getattr(self, name)}")

    def _normalise_hidden(self) -> None:
        if not self.hidden or any(int(h) < 1 for h in self.hidden):
            raise ValueError(f"{self.NAME} hidden sizes must be positive, got {self.hidden}")
        object.__setattr__(self, "hidden", tuple(int(h) for h in self.hidden))

    @classmethod
    def from_overrides(cls, overrides: dict | None, label: str):
        """The default configuration changed by ``overrides`` (``--set`` pairs); ValueError naming a bad name or value.

        ``hidden`` may be given as layer widths joined by ``x`` (``"128x128"``)
        or one width; an int is accepted for a float setting. ``label`` names
        the algorithm in the errors.
        """
        overrides = dict(overrides or {})
        names = [f.name for f in fields(cls)]
        unknown = sorted(set(overrides) - set(names))
        if unknown:
            raise ValueError(f"{label} has no setting {unknown[0]!r}; its settings: {', '.join(names)}")
        if "hidden" in overrides and isinstance(overrides["hidden"], (str, int)):
            text = str(overrides["hidden"])
            try:
                overrides["hidden"] = tuple(int(h) for h in text.split("x"))
            except ValueError:
                raise ValueError(f"hidden takes layer widths joined by 'x' (e.g. 128x128), got {text!r}") from None
        defaults = cls()
        for key, value in overrides.items():
            wanted = type(getattr(defaults, key))
            if wanted is float and isinstance(value, int) and not isinstance(value, bool):
                overrides[key] = float(value)
            elif not isinstance(value, wanted) or (isinstance(value, bool) and wanted is not bool):
                raise ValueError(f"{label} setting {key!r} takes {wanted.__name__}, got {value!r}")
        return cls(**overrides)

    def as_dict(self) -> dict:
        values = asdict(self)
        for name in self.LATER_SETTINGS:
            if values[name] == getattr(type(self), name):
                del values[name]
        return json.loads(json.dumps(values))


@dataclass(frozen=True)
class PPOConfig(Hyperparameters):
    """Hyperparameters of :class:`PPOTrainer` (defaults suit the dice games and, with the action head, Poker Squares).

    ``policy`` is ``auto`` (the action head where the game declares action
    features, else flat), ``flat`` or ``actions`` (see the module docstring).
    """

    num_envs: int = 128
    rollout: int = 64
    hidden: tuple = (128, 128)
    learning_rate: float = 3e-4
    epochs: int = 4
    minibatches: int = 4
    gamma: float = 1.0
    lam: float = 0.95
    clip: float = 0.2
    entropy: float = 0.01
    value_coef: float = 0.5
    max_grad_norm: float = 0.5
    heuristic_share: float = 0.0
    anneal_steps: int = 0
    final_learning_rate: float = 0.0
    score_rewards: bool = False
    reward_scale: float = 0.0
    policy: str = "auto"
    NAME = "PPO"
    LATER_SETTINGS = ("heuristic_share", "anneal_steps", "final_learning_rate", "score_rewards", "reward_scale",
                      "policy")
    POLICIES = ("auto", "flat", "actions")

    def __post_init__(self):
        self._require_whole(("num_envs", "rollout", "epochs", "minibatches"))
        if (self.num_envs * self.rollout) % self.minibatches:
            raise ValueError(f"PPO minibatches ({self.minibatches}) must divide num_envs x rollout "
                             f"({self.num_envs * self.rollout})")
        self._normalise_hidden()
        for name in ("learning_rate", "clip", "max_grad_norm"):
            if not getattr(self, name) > 0:
                raise ValueError(f"PPO {name} must be > 0, got {getattr(self, name)}")
        if not (0 <= self.gamma <= 1 and 0 <= self.lam <= 1):
            raise ValueError(f"PPO gamma and lam must lie in [0, 1], got {self.gamma} and {self.lam}")
        if int(self.anneal_steps) != self.anneal_steps or self.anneal_steps < 0:
            raise ValueError(f"PPO anneal_steps must be a whole number >= 0 (0: a constant learning rate), "
                             f"got {self.anneal_steps}")
        object.__setattr__(self, "anneal_steps", int(self.anneal_steps))
        if not 0 <= self.final_learning_rate <= self.learning_rate:
            raise ValueError(f"PPO final_learning_rate must lie in [0, learning_rate = {self.learning_rate}], "
                             f"got {self.final_learning_rate}")
        if not 0 <= self.heuristic_share < 1:
            raise ValueError(f"PPO heuristic_share must lie in [0, 1) (a seat of every game is the learner's), "
                             f"got {self.heuristic_share}")
        if not self.reward_scale >= 0:
            raise ValueError(f"PPO reward_scale must be > 0, or 0 for the game's largest absolute utility, "
                             f"got {self.reward_scale}")
        if self.policy not in self.POLICIES:
            raise ValueError(f"PPO policy must be one of {', '.join(self.POLICIES)}, got {self.policy!r}")
        if self.score_rewards and self.gamma != 1:
            raise ValueError(f"PPO score_rewards needs gamma = 1 (the rewards then sum to the return), "
                             f"got gamma = {self.gamma}")


def _learning_rate(config: PPOConfig):
    """Adam's step size: ``learning_rate``, or with ``anneal_steps`` a schedule over Adam's own steps.

    The rate falls linearly from ``learning_rate`` to ``final_learning_rate``
    over the first ``anneal_steps`` decisions, then stays there. One update
    plays ``num_envs x rollout`` decisions and takes ``epochs x minibatches``
    Adam steps, so 8,192 decisions are 16 Adam steps with the defaults.
    """
    import optax

    if config.anneal_steps == 0:
        return config.learning_rate
    adam_steps = config.anneal_steps * config.epochs * config.minibatches // (config.num_envs * config.rollout)
    return optax.linear_schedule(config.learning_rate, config.final_learning_rate, max(adam_steps, 1))


def _logits(params, x, feats, actions: bool, xp=np):
    """Policy logits float32 ``(N, A)`` before masking.

    The flat head is an MLP from ``x`` ``(N, D)`` to one logit per action id;
    the action head (``actions``) scores each action with one shared MLP over
    ``x`` and its features ``feats`` ``(N, A, F)`` (None: one-hot ids).
    """
    return score_actions(params, "pi", x, feats, xp) if actions else forward(params, "pi", x, xp)


def _pack_legal(mask: np.ndarray, feats: np.ndarray | None) -> dict:
    """The legal (row, action) pairs of a minibatch, padded to a multiple of a sixteenth of ``B x A``.

    The action head scores only these pairs in the loss (an illegal action's
    logit is masked anyway), which skips the filled cells of a Poker Squares
    grid, about half of them. Padding to a few sizes keeps the compiled
    shapes few; a padding pair writes its score to the dropped column ``A``.

    Returns ``pair_rows`` int32 ``(P,)``, ``pair_slots`` int32 ``(P,)`` (the
    action, ``A`` for padding) and ``pair_chosen``: the pairs' features
    float32 ``(P, F)``, or their ids int32 ``(P,)`` when ``feats`` is None.
    """
    count, actions = mask.shape
    rows, slots = np.nonzero(mask)
    step = max(1, count * actions // 16)
    size = -(-len(rows) // step) * step
    pair_rows = np.zeros(size, np.int32)
    pair_slots = np.full(size, actions, np.int32)
    pair_rows[:len(rows)], pair_slots[:len(rows)] = rows, slots
    if feats is None:
        chosen = np.where(pair_slots < actions, pair_slots, 0).astype(np.int32)
    else:
        chosen = np.zeros((size, feats.shape[2]), np.float32)
        chosen[:len(rows)] = feats[rows, slots]
    return {"pair_rows": pair_rows, "pair_slots": pair_slots, "pair_chosen": chosen}


def _packed_logits(params, batch, one_hot: bool, xp):
    """Action-head logits ``(B, A)`` from the packed legal pairs of ``batch`` (illegal ones MASKED_LOGIT)."""
    scores = score_pairs(params, "pi", batch["inputs"], batch["pair_rows"], batch["pair_chosen"], one_hot, xp)
    count, actions = batch["mask"].shape
    logits = xp.full((count, actions + 1), MASKED_LOGIT, scores.dtype)
    return logits.at[batch["pair_rows"], batch["pair_slots"]].set(scores)[:, :actions]


def _loss(params, batch, config: PPOConfig, actions: bool = False, one_hot: bool = False):
    """Clipped PPO loss of a minibatch; with ``batch["weight"]`` (heuristic seats) only weight-1 rows count.

    ``actions`` selects the action head, whose logits come from the packed
    legal pairs of :func:`_pack_legal` (``one_hot``: pairs of action ids);
    by default the flat head.
    """
    import jax
    import jax.numpy as jnp

    weight = batch.get("weight")

    def mean(x):
        return jnp.mean(x) if weight is None else jnp.sum(weight * x) / jnp.maximum(jnp.sum(weight), 1.0)

    if actions:
        logits = _packed_logits(params, batch, one_hot, jnp)
    else:
        logits = forward(params, "pi", batch["inputs"], jnp)
    logits = jnp.where(batch["mask"], logits, MASKED_LOGIT)
    logp_all = jax.nn.log_softmax(logits)
    logp = jnp.take_along_axis(logp_all, batch["actions"][:, None], axis=1)[:, 0]
    adv = batch["advantages"]
    if weight is None:
        adv = (adv - adv.mean()) / (adv.std() + 1e-8)
    else:
        centred = adv - mean(adv)
        adv = centred / (jnp.sqrt(mean(centred ** 2)) + 1e-8)
    ratio = jnp.exp(logp - batch["logp"])
    clipped = jnp.clip(ratio, 1.0 - config.clip, 1.0 + config.clip)
    policy_loss = -mean(jnp.minimum(ratio * adv, clipped * adv))
    entropy = -mean(jnp.sum(jnp.where(batch["mask"], jnp.exp(logp_all) * logp_all, 0.0), axis=1))
    value = forward(params, "v", batch["inputs"], jnp)[:, 0]
    value_loss = 0.5 * mean((value - batch["targets"]) ** 2)
    return policy_loss + config.value_coef * value_loss - config.entropy * entropy


class PPOTrainer:
    """PPO on ``game_string`` through its batched environment.

    Parameters
    ----------
    game_string : str
        Any game of the toolkit (one player, or self-play in every seat).
    seed : int
        Seed of the weights, the actions, the minibatches and the games.
    config : PPOConfig
    """

    algorithm = "ppo"

    def __init__(self, game_string: str, seed: int = 0, config: PPOConfig | None = None):
        import jax
        import optax

        self.config = config or PPOConfig()
        self.game = load_game(game_string)
        self.game_string = str(self.game)
        self.seed = int(seed)
        self.num_players = self.game.num_players()
        policy = self.config.policy
        self.actions = policy == "actions" or (policy == "auto" and declares_features(self.game))
        self.features = action_features(self.game) if self.actions else None
        # Only real features are stored per action; one-hot ids are gathered from the first layer.
        self.stored_features = self.actions and not self.features.one_hot
        return_scale = getattr(self.features, "return_scale", 0.0) if self.actions else 0.0
        self.reward_scale = float(self.config.reward_scale or return_scale or
                                  max(abs(self.game.max_utility()), abs(self.game.min_utility()), 1e-9))
        seeds = np.random.SeedSequence(self.seed).generate_state(2, dtype=np.uint32)
        self.rng = np.random.default_rng(int(seeds[0]))
        self.env = make_vector(self.game, self.config.num_envs, seed=int(seeds[1]),
                               info_state=uses_info_state(self.game))
        self.step = self.env.reset()
        if self.config.score_rewards:
            self.running_score = running_score_reader(self.game)  # refuses a game without one
        else:
            # The action head pays the score as it accrues wherever the game keeps one, as DMC does.
            self.running_score = optional_running_score(self.game) if self.actions else None
        self.heuristic = None
        if self.config.heuristic_share > 0:
            if self.num_players < 2:
                raise ValueError(f"PPO heuristic_share needs a multi-player game, not {self.game_string}")
            self.heuristic = batched_heuristic(self.game, int(seeds[1]))
            self.tables = draw_tables(self.rng, self.config.num_envs, self.num_players, self.config.heuristic_share)
        width = network_input(self.step, self.game).shape[1]
        hidden = list(self.config.hidden)
        policy_sizes = ([width + self.features.size, *hidden, 1] if self.actions
                        else [width, *hidden, self.game.num_distinct_actions()])
        self.params = {**init_mlp("pi", policy_sizes, self.rng, 0.01),
                       **init_mlp("v", [width, *hidden, 1], self.rng, 1.0)}
        self.optimizer = optax.chain(optax.clip_by_global_norm(self.config.max_grad_norm),
                                     optax.adam(_learning_rate(self.config)))
        self.opt_state = self.optimizer.init(self.params)
        self.steps = 0
        self.updates = 0
        self.finished_returns: list[float] = []
        config_, actions, one_hot = self.config, self.actions, self.actions and self.features.one_hot
        optimizer = self.optimizer

        def update(params, opt_state, batch):
            grads = jax.grad(_loss)(params, batch, config_, actions, one_hot)
            changes, opt_state = optimizer.update(grads, opt_state, params)
            return optax.apply_updates(params, changes), opt_state

        self._update = jax.jit(update)
        self._heads = jax.jit(lambda p, x, f: (_logits(p, x, f, actions, jax.numpy),
                                               forward(p, "v", x, jax.numpy)[:, 0]))

    @property
    def steps_per_update(self) -> int:
        """Decisions played by one update (``num_envs x rollout``)."""
        return self.config.num_envs * self.config.rollout

    def config_dict(self) -> dict:
        return {"ppo": self.config.as_dict()}

    def _features(self, inputs: np.ndarray, mask: np.ndarray) -> np.ndarray | None:
        """Action features float32 ``(batch, actions, F)`` the policy reads, or None (flat head, one-hot ids)."""
        return self.features(inputs, mask) if self.stored_features else None

    def policy_logits(self, inputs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Policy logits float32 ``(batch, actions)`` (before masking) of the current parameters, in NumPy.

        ``mask`` bool ``(batch, actions)`` is the legal mask the action features are computed with.
        """
        params = {k: np.asarray(v) for k, v in self.params.items() if k.startswith("pi/")}
        return _logits(params, inputs, self._features(inputs, mask), self.actions)

    def train_update(self) -> None:
        """Play one rollout and take the PPO steps on it."""
        cfg = self.config
        steps, n = cfg.rollout, cfg.num_envs
        inputs = np.zeros((steps, n, self.params["v/w0"].shape[0]), np.float32)
        num_actions = self.game.num_distinct_actions()
        masks = np.zeros((steps, n, num_actions), np.bool_)
        feats = np.zeros((steps, n, num_actions, self.features.size), np.float32) if self.stored_features else None
        actions = np.zeros((steps, n), np.int64)
        logps = np.zeros((steps, n), np.float32)
        values = np.zeros((steps, n), np.float32)
        players = np.zeros((steps, n), np.int64)
        terminated = np.zeros((steps, n), np.bool_)
        returns = np.zeros((steps, n, self.num_players), np.float32)
        learner = np.ones((steps, n), np.bool_)
        scored = np.zeros((steps, n), np.float32)
        finished = []
        for t in range(steps):
            if self.running_score is not None:
                before = self.running_score(self.env)
            x = network_input(self.step, self.game)
            f = self._features(x, self.step.legal_mask)
            logits, value = self._heads(self.params, x, f)
            act, logp = sample_masked(np.asarray(logits), self.step.legal_mask, self.rng)
            if self.heuristic is not None:
                learner[t] = ~self.tables[np.arange(n), self.step.current_player]
                bots = np.flatnonzero(~learner[t])
                act[bots] = self.heuristic.actions(self.env.states, bots)
            inputs[t], masks[t], actions[t], logps[t] = x, self.step.legal_mask, act, logp
            if feats is not None:
                feats[t] = f
            values[t], players[t] = np.asarray(value), self.step.current_player
            self.step = self.env.step(act)
            terminated[t] = self.step.terminated
            returns[t] = self.step.returns / self.reward_scale
            if self.running_score is not None:
                # A row that ended was reset at once: its last decision earns the return's remainder.
                after = np.where(self.step.terminated, self.step.returns[:, 0], self.running_score(self.env))
                scored[t] = (after - before) / self.reward_scale
            if self.heuristic is None:
                finished.extend(self.step.returns[self.step.terminated, 0].tolist())
            else:
                ended = np.flatnonzero(self.step.terminated)
                seat = np.argmin(self.tables[ended], axis=1)  # the learner's first seat at each ended table
                finished.extend(self.step.returns[ended, seat].tolist())
                self.tables[ended] = draw_tables(self.rng, len(ended), self.num_players, cfg.heuristic_share)
        reward, done, next_index = rollout.player_chains(players, terminated, returns)
        if self.running_score is not None:
            reward = scored  # one player: the same chains, the return paid as it is scored
        # A chain cut by the batch's end is bootstrapped with the value of its last state:
        # the player's next decision is not in the batch (only the row's next mover is).
        advantages = rollout.gae(reward, done, next_index, values, values, cfg.gamma, cfg.lam)
        targets = advantages + values
        flat = {"inputs": inputs.reshape(steps * n, -1), "mask": masks.reshape(steps * n, -1),
                "actions": actions.reshape(-1), "logp": logps.reshape(-1),
                "advantages": advantages.reshape(-1), "targets": targets.reshape(-1)}
        if feats is not None:
            feats = feats.reshape(steps * n, num_actions, -1)
        if self.heuristic is not None:
            flat["weight"] = learner.reshape(-1).astype(np.float32)
        size = steps * n // cfg.minibatches
        for _ in range(cfg.epochs):
            order = self.rng.permutation(steps * n)
            for k in range(cfg.minibatches):
                pick = order[k * size:(k + 1) * size]
                batch = {key: v[pick] for key, v in flat.items()}
                if self.actions:
                    batch.update(_pack_legal(batch["mask"], None if feats is None else feats[pick]))
                self.params, self.opt_state = self._update(self.params, self.opt_state, batch)
        self.params = {k: np.asarray(v) for k, v in self.params.items()}
        self.steps += steps * n
        self.updates += 1
        self.finished_returns = finished

    def act_greedy(self, inputs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Most probable legal action of each row (how the ``ppo`` agent plays by default)."""
        return np.argmax(masked_log_softmax(self.policy_logits(inputs, mask), mask), axis=1)

    def probabilities(self, inputs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Action probabilities float64 ``(batch, actions)`` of the policy (0 at illegal actions)."""
        return np.exp(masked_log_softmax(self.policy_logits(inputs, mask), mask))

    # -- checkpoint support ---------------------------------------------------
    def state(self) -> tuple[dict, dict]:
        """JSON-able counters and generator state, and every array of the run."""
        info, arrays = learner_state(self)
        if self.heuristic is not None:
            arrays["tables"] = self.tables.copy()
            arrays.update({f"heuristic/{k}": v for k, v in self.heuristic.state().items()})
        return info, arrays

    def load_state(self, info: dict, arrays: dict) -> None:
        """Restore what :meth:`state` returned (shapes checked; raises ValueError on a mismatch)."""
        checked = checked_learner(self, arrays)
        tables = arrays.get("tables")
        if self.heuristic is not None and (tables is None or tables.shape != self.tables.shape
                                           or any(f"heuristic/{k}" not in arrays for k in self.heuristic.state())):
            raise ValueError("the saved heuristic seats do not match this run")
        if self.heuristic is not None:
            self.heuristic.load_state(saved_group(arrays, "heuristic"))
            self.tables = tables.astype(np.bool_)
        restore_learner(self, info, arrays, checked)

    def weights_arrays(self) -> dict:
        """What a weights file ships: the policy network (``pi/*``) and the value network (``v/*``).

        The ``ppo`` agent plays the policy; a planner can read the value network,
        whose output times ``value_scale`` (the reward scale, recorded beside it)
        is the expected final return of the mover, or with ``score_rewards`` the
        points still to come (``value_meaning`` says which).
        """
        return {k: np.asarray(v) for k, v in self.params.items() if k.startswith(("pi/", "v/"))}

    def weights_metadata(self) -> dict:
        """What a weights file records besides the training's: the policy head and how to read the value network.

        ``policy_head`` is ``flat`` or ``actions``; an action head also records
        its ``action_features`` (the declared reference, or ``one-hot``) and
        ``feature_size``. A file without ``policy_head`` has the flat head.
        """
        head = {"policy_head": "actions", "action_features": features_name(self.game),
                "feature_size": int(self.features.size)} if self.actions else {"policy_head": "flat"}
        return {**head, "value_scale": self.reward_scale,
                "value_meaning": "points to come" if self.running_score is not None else "final return"}
