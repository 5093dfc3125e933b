"""A dice policy network trained on the exact solution's option values (imitation, DAgger), not by RL.

The ``imitation`` agent plays a flat policy network (one logit per action id,
the observation tensor in, :func:`gamut.solvers.rl.networks.forward` in
NumPy) of the same form and weights format as the ``ppo`` agent's, so it plays
wherever a learned agent does. Its targets are exact: at every decision the
learner reaches, :func:`option_values` gives the optimal expected points to
come of every legal action (the values :meth:`DiceSolution.options` ranks, for
a whole batch of games in one compiled call), and the loss is the
cross-entropy of the network's masked softmax against the softmax of those
values divided by ``temperature`` (points). A choice that costs a tenth of a
point is then nearly as good a target as the best, one that costs ten points
is pushed to probability 0: the loss weighs mistakes by what they cost.

The states trained on are the learner's own (DAgger, Ross et al. 2011): each
update plays ``rollout`` decisions in each of ``num_envs`` games of the
batched environment with the current network (its greedy action, or with
probability ``sample_share`` an action drawn from its softmax, so the states
near its own mistakes are seen too), labels every decision with the exact
values, and takes ``epochs x minibatches`` Adam steps on them. Fresh games
every update: nothing is replayed, so there is nothing to overfit.

Training runs through :func:`gamut.solvers.rl.training.train` (evaluation,
checkpoints, resume, weights with their metadata) and the command ``gamut
dice imitate``. Same seed, same parameters, across a checkpoint too.

    >>> import numpy as np, gamut
    >>> from gamut.envs.vector import make_vector
    >>> from gamut.solvers.poker_dice.solution import solve
    >>> env = make_vector("poker_dice(variant=yacht12,players=1)", 2, seed=0)
    >>> step = env.reset()
    >>> q = option_values(solve("yacht12"), env.game, env.states)
    >>> q.shape, bool(np.isfinite(q[step.legal_mask]).all()), bool(np.isinf(q[~step.legal_mask]).all())
    ((2, 477), True, True)
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np
from gamut.envs import dice
from gamut.envs.loading import load_game
from gamut.envs.poker_dice import kernels as K
from gamut.envs.poker_dice.scorecard import (
    AUX_BANK,
    P_AUX_KIND,
    P_BANK_STAGE_OK,
    P_GROUP_MASK,
    P_NUM_AUX,
    P_NUM_BOXES,
    P_NUM_SUMS,
    P_SUM_LO,
)
from gamut.envs.poker_dice.scoring import allowed_boxes, current_stage, record
from gamut.envs.vector import make_vector
from gamut.solvers.poker_dice.dp import _keep_expectations, _turn_buffers, _turn_levels
from gamut.solvers.poker_dice.solution import solve, variant_digest
from gamut.solvers.rl.checkpoint import RLFileError
from gamut.solvers.rl.evaluation import network_input
from gamut.solvers.rl.networks import (
    MASKED_LOGIT,
    forward,
    init_mlp,
    masked_log_softmax,
    sample_masked,
)
from gamut.solvers.rl.neural_bot import NeuralBot
from gamut.solvers.rl.ppo import Hyperparameters
from gamut.solvers.rl.shipped import shipped_path
from gamut.solvers.rl.trainer_state import checked_learner, learner_state, restore_learner

ALGORITHM = "imitation"


@numba.njit(cache=True)
def _option_values(states, p, bx, rd, values, offsets, keys, G, L2, L1, final, ev, best, allowed, reroll, out):
    """Fill ``out`` float64 ``(N, NUM_ACTIONS)`` with the exact value of every legal action (``-inf`` elsewhere).

    ``states`` int64 ``(N, >= S_PLAYERS + PLAYER_FIELDS)``: one-player kernel
    states waiting for a decision. ``keys`` int64 ``(N, 3)`` (in/out) holds the
    ``(mask, total, aux)`` whose turn levels ``G`` and ``L2`` float64 ``(N,
    num_aux, 252)`` already hold for the row (``-1``: none), so the decisions
    of one turn compute its levels once. The rest are scratch buffers of
    :func:`gamut.solvers.poker_dice.dp._turn_buffers`. A value counts the
    points scored now plus the optimal expectation of the points to come,
    as :meth:`DiceSolution.options` does.
    """
    lo, num_aux, group = p[P_SUM_LO], p[P_NUM_AUX], p[P_GROUP_MASK]
    hi = lo + p[P_NUM_SUMS] - 1
    banked = p[P_AUX_KIND] == AUX_BANK
    base = K.S_PLAYERS
    for n in range(states.shape[0]):
        st = states[n]
        out[n, :] = -np.inf
        if st[K.S_PHASE] != K.PH_DECIDE:
            continue
        mask, aux, roll, rolls = st[base + K.F_MASK], st[base + K.F_AUX], st[K.S_ROLL], st[K.S_ROLLS]
        # Once the group is complete its total no longer matters: the table keeps it at sum_lo.
        total = lo if mask & group == group else min(max(st[base + K.F_TOTAL], lo), hi)
        if keys[n, 0] != mask or keys[n, 1] != total or keys[n, 2] != aux:
            _turn_levels(p, bx, rd, values, offsets, mask, total, G[n], L2[n], L1, final, ev, best, allowed,
                         reroll, aux)
            keys[n, 0], keys[n, 1], keys[n, 2] = mask, total, aux
        rolls_left = max(0, K.BASE_ROLLS - rolls)
        bank = aux - max(0, rolls - K.BASE_ROLLS)  # banked rolls already spent this turn
        bank_after = bank + rolls_left if banked else aux
        allowed_boxes(p, bx, rd, mask, roll, allowed)
        for b in range(p[P_NUM_BOXES]):
            if allowed[b]:
                points, m2, s2, a2 = record(p, bx, rd, mask, total, aux, roll, rolls == 1, b, bank_after)
                out[n, K.BOX_BASE + b] = points + values[offsets[m2] + (s2 - lo) * num_aux + a2]
        extras = banked and p[P_BANK_STAGE_OK + current_stage(p, bx, mask)] == 1
        if rolls_left == 2:
            _keep_expectations(L2[n, aux], ev)
        elif rolls_left == 1:
            _keep_expectations(G[n, bank if banked else aux], ev)
        elif extras and bank > 0:
            _keep_expectations(G[n, bank - 1], ev)
        else:
            continue
        for i in range(dice.ROLL_KEEPS_START[roll], dice.ROLL_KEEPS_START[roll + 1]):
            k = dice.ROLL_KEEPS[i]
            if dice.KEEP_SIZE[k] < dice.NUM_DICE:
                out[n, k] = ev[k]


class OptionValues:
    """Exact option values of a batch of games, with each row's turn levels kept between calls.

    Parameters
    ----------
    solution : DiceSolution
        The exact solution of ``game``'s variant.
    game : pyspiel.Game
        One-player ``poker_dice`` of that variant.
    rows : int
        Batch size ``N`` of the states passed to :meth:`__call__`.
    """

    def __init__(self, solution, game, rows: int):
        game = load_game(game)
        if game.get_type().short_name != "poker_dice" or game.variant is None or game.num_players() != 1:
            raise ValueError(f"exact option values need a one-player poker_dice scorecard variant, not {game}")
        if variant_digest(game.tables) != variant_digest(solution.tables):
            raise ValueError(f"{game} is not the solved variant {solution.variant.name} "
                             f"(joker={solution.variant.joker})")
        t = solution.tables
        self._solution, self._tables = solution, t
        self.rows = int(rows)
        self._keys = np.full((self.rows, 3), -1, np.int64)
        self._G = np.zeros((self.rows, t.num_aux, dice.NUM_ROLLS))
        self._L2 = np.zeros((self.rows, t.num_aux, dice.NUM_ROLLS))
        _, _, self._L1, self._final, self._reroll, self._ev, self._best, self._allowed = \
            _turn_buffers(t.num_aux, t.num_boxes)

    def __call__(self, states: np.ndarray) -> np.ndarray:
        """float64 ``(N, NUM_ACTIONS)``: every legal action's exact value, ``-inf`` at the others."""
        states = np.ascontiguousarray(states, np.int64)
        if states.ndim != 2 or states.shape[0] != self.rows or states.shape[1] < K.S_PLAYERS + K.PLAYER_FIELDS:
            raise ValueError(f"states must have shape ({self.rows}, >= {K.S_PLAYERS + K.PLAYER_FIELDS}), "
                             f"got {states.shape}")
        t, s = self._tables, self._solution
        out = np.empty((self.rows, K.NUM_ACTIONS))
        _option_values(states, t.params, t.box_data, t.roll_data, s.values, s.layout.offsets, self._keys,
                       self._G, self._L2, self._L1, self._final, self._ev, self._best, self._allowed,
                       self._reroll, out)
        return out


def option_values(solution, game, states: np.ndarray) -> np.ndarray:
    """float64 ``(N, 477)``: the exact value of every legal action of each state (``-inf`` at illegal ones).

    ``states`` int64 ``(N, W)`` are one-player kernel states of ``game`` (the
    batched environment's ``states``); a row not waiting for a decision is all
    ``-inf``. The best legal action of a row is the optimal policy's choice.
    """
    return OptionValues(solution, game, len(states))(states)


def soft_targets(values: np.ndarray, mask: np.ndarray, temperature: float) -> np.ndarray:
    """float32 ``(N, A)``: the softmax of ``values / temperature`` over each row's legal actions (0 elsewhere)."""
    z = np.where(mask, values, -np.inf) / temperature
    z = z - z.max(axis=1, keepdims=True)
    e = np.where(mask, np.exp(z), 0.0)
    return (e / e.sum(axis=1, keepdims=True)).astype(np.float32)


@dataclass(frozen=True)
class ImitationConfig(Hyperparameters):
    """Hyperparameters of :class:`ImitationTrainer`.

    ``temperature`` (points) softens the targets (see the module docstring);
    ``sample_share`` is the share of the learner's moves drawn from its
    softmax instead of its greedy action; the learning rate falls linearly to
    ``final_learning_rate`` over ``anneal_steps`` decisions (0: constant).
    """

    num_envs: int = 256
    rollout: int = 16
    hidden: tuple = (512, 512, 256)
    learning_rate: float = 1e-3
    final_learning_rate: float = 1e-4
    anneal_steps: int = 0
    epochs: int = 1
    minibatches: int = 4
    temperature: float = 0.5
    sample_share: float = 0.1
    NAME = "imitation"

    def __post_init__(self):
        self._require_whole(("num_envs", "rollout", "epochs", "minibatches"))
        if (self.num_envs * self.rollout) % self.minibatches:
            raise ValueError(f"imitation minibatches ({self.minibatches}) must divide num_envs x rollout "
                             f"({self.num_envs * self.rollout})")
        self._normalise_hidden()
        for name in ("learning_rate", "temperature"):
            if not getattr(self, name) > 0:
                raise ValueError(f"imitation {name} must be > 0, got {getattr(self, name)}")
        if not 0 <= self.final_learning_rate <= self.learning_rate:
            raise ValueError(f"imitation final_learning_rate must lie in [0, learning_rate = {self.learning_rate}], "
                             f"got {self.final_learning_rate}")
        if int(self.anneal_steps) != self.anneal_steps or self.anneal_steps < 0:
            raise ValueError(f"imitation anneal_steps must be a whole number >= 0, got {self.anneal_steps}")
        object.__setattr__(self, "anneal_steps", int(self.anneal_steps))
        if not 0 <= self.sample_share <= 1:
            raise ValueError(f"imitation sample_share must lie in [0, 1], got {self.sample_share}")


def make_config(overrides: dict | None = None) -> ImitationConfig:
    """:class:`ImitationConfig` with ``overrides`` (``--set`` pairs); ValueError naming a bad name or value."""
    return ImitationConfig.from_overrides(overrides, "imitation")


def _loss(params, batch):
    """Mean cross-entropy of the masked policy against the soft targets of a minibatch."""
    import jax
    import jax.numpy as jnp

    logits = jnp.where(batch["mask"], forward(params, "pi", batch["inputs"], jnp), MASKED_LOGIT)
    logp = jax.nn.log_softmax(logits)
    return -jnp.mean(jnp.sum(jnp.where(batch["mask"], batch["targets"] * logp, 0.0), axis=1))


class ImitationTrainer:
    """Distils the exact optimum of a one-player scorecard variant into a policy network (DAgger).

    Parameters
    ----------
    game_string : str
        One-player ``poker_dice`` scorecard variant.
    seed : int
        Seed of the weights, the learner's sampled moves, the minibatches and the games.
    config : ImitationConfig
    solution : DiceSolution, optional
        The variant's exact solution (default: :func:`solve`, cached on disk).
    """

    algorithm = ALGORITHM

    def __init__(self, game_string: str, seed: int = 0, config: ImitationConfig | None = None, solution=None):
        import jax
        import optax

        self.config = config or ImitationConfig()
        self.game = load_game(game_string)
        self.game_string = str(self.game)
        if self.game.get_type().short_name != "poker_dice" or self.game.variant is None \
                or self.game.num_players() != 1:
            raise ValueError(f"imitation trains one-player poker_dice scorecard variants, not {self.game_string}")
        self.seed = int(seed)
        self.solution = solution or solve(self.game.params["variant"], self.game.params["joker"])
        cfg = self.config
        seeds = np.random.SeedSequence(self.seed).generate_state(2, dtype=np.uint32)
        self.rng = np.random.default_rng(int(seeds[0]))
        self.env = make_vector(self.game, cfg.num_envs, seed=int(seeds[1]))
        self.step = self.env.reset()
        self.targets = OptionValues(self.solution, self.game, cfg.num_envs)
        width = network_input(self.step, self.game).shape[1]
        self.params = init_mlp("pi", [width, *cfg.hidden, self.game.num_distinct_actions()], self.rng, 0.01)
        rate = cfg.learning_rate
        if cfg.anneal_steps:
            adam_steps = cfg.anneal_steps * cfg.epochs * cfg.minibatches // (cfg.num_envs * cfg.rollout)
            rate = optax.linear_schedule(cfg.learning_rate, cfg.final_learning_rate, max(adam_steps, 1))
        self.optimizer = optax.adam(rate)
        self.opt_state = self.optimizer.init(self.params)
        self.steps = 0
        self.updates = 0
        self.finished_returns: list[float] = []
        optimizer = self.optimizer

        def update(params, opt_state, batch):
            loss, grads = jax.value_and_grad(_loss)(params, batch)
            changes, opt_state = optimizer.update(grads, opt_state, params)
            return optax.apply_updates(params, changes), opt_state, loss

        self._update = jax.jit(update)
        self._logits = jax.jit(lambda p, x: forward(p, "pi", x, jax.numpy))
        self.last_loss = float("nan")

    @property
    def steps_per_update(self) -> int:
        """Decisions played by one update (``num_envs x rollout``)."""
        return self.config.num_envs * self.config.rollout

    def config_dict(self) -> dict:
        return {ALGORITHM: self.config.as_dict()}

    def policy_logits(self, inputs: np.ndarray) -> np.ndarray:
        """Logits float32 ``(batch, 477)`` of the current parameters, in NumPy (as the agent computes them)."""
        return forward(self.params, "pi", np.asarray(inputs, np.float32))

    def train_update(self) -> None:
        """Play one rollout with the learner, label it with the exact values, take the Adam steps."""
        cfg = self.config
        steps, n = cfg.rollout, cfg.num_envs
        inputs = np.zeros((steps, n, self.params["pi/w0"].shape[0]), np.float32)
        masks = np.zeros((steps, n, self.game.num_distinct_actions()), np.bool_)
        targets = np.zeros(masks.shape, np.float32)
        finished = []
        for t in range(steps):
            x = network_input(self.step, self.game)
            mask = self.step.legal_mask
            targets[t] = soft_targets(self.targets(self.env.states), mask, cfg.temperature)
            logits = np.asarray(self._logits(self.params, x))
            greedy, _ = sample_masked(logits, mask, self.rng, greedy=True)
            sampled, _ = sample_masked(logits, mask, self.rng)
            act = np.where(self.rng.random(n) < cfg.sample_share, sampled, greedy)
            inputs[t], masks[t] = x, mask
            self.step = self.env.step(act)
            finished.extend(self.step.returns[self.step.terminated, 0].tolist())
        flat = {"inputs": inputs.reshape(steps * n, -1), "mask": masks.reshape(steps * n, -1),
                "targets": targets.reshape(steps * n, -1)}
        size = steps * n // cfg.minibatches
        for _ in range(cfg.epochs):
            order = self.rng.permutation(steps * n)
            for k in range(cfg.minibatches):
                pick = order[k * size:(k + 1) * size]
                self.params, self.opt_state, loss = self._update(self.params, self.opt_state,
                                                                 {key: v[pick] for key, v in flat.items()})
        self.params = {k: np.asarray(v) for k, v in self.params.items()}
        self.last_loss = float(loss)
        self.steps += steps * n
        self.updates += 1
        self.finished_returns = finished

    def act_greedy(self, inputs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Most probable legal action of each row (how the ``imitation`` agent plays)."""
        return np.argmax(masked_log_softmax(self.policy_logits(inputs), mask), axis=1)

    def probabilities(self, inputs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Action probabilities float64 ``(batch, 477)`` of the network's softmax (0 at illegal actions)."""
        return np.exp(masked_log_softmax(self.policy_logits(inputs), mask))

    # -- checkpoint support ---------------------------------------------------
    def state(self) -> tuple[dict, dict]:
        """JSON-able counters and generator state, and every array of the run."""
        return learner_state(self)

    def load_state(self, info: dict, arrays: dict) -> None:
        """Restore what :meth:`state` returned (shapes checked; raises ValueError on a mismatch)."""
        restore_learner(self, info, arrays, checked_learner(self, arrays))
        # The turn levels kept per row belong to the games before the restore.
        self.targets = OptionValues(self.solution, self.game, self.config.num_envs)

    def weights_arrays(self) -> dict:
        """What a weights file ships: the policy network (``pi/*``); there is no value network."""
        return {k: np.asarray(v) for k, v in self.params.items()}

    def weights_metadata(self) -> dict:
        """The flat policy head, and where the targets came from."""
        return {"policy_head": "flat",
                "targets": f"exact option values of the solved variant (softmax at temperature "
                           f"{self.config.temperature} points), on the learner's own states (DAgger); not RL"}


def make_imitation_bot(game, player: int, seed: int, weights: str) -> NeuralBot:
    """Registry factory of ``imitation``: ``weights`` or the shipped imitation weights of ``game`` (greedy)."""
    path = weights or shipped_path(ALGORITHM, game)
    if path is None:
        raise RLFileError(f"no imitation weights ship for {game}; pass weights=PATH")
    return NeuralBot(game, path, player, seed, True, ALGORITHM)
