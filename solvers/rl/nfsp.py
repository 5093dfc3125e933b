"""Neural fictitious self-play (NFSP, Heinrich and Silver 2016) on the batched environments.

Why NFSP: of the self-play methods that approach an equilibrium of an
imperfect-information game (NFSP, R-NaD, PSRO with an RL oracle), NFSP is the
one whose *average* policy is a plain supervised network over the
information state, which the exact best-response code can score on the small
Poke deal at any point of training, and it needs no meta-game solver (PSRO)
and no regularised-game schedule (R-NaD). Its average policy approaches a
Nash equilibrium of two-player zero-sum games as fictitious play does.

Each agent (here one shared set of networks for both seats, the seat's
one-hot in the input) has

- a best response: a DQN over the information-state tensor (Huber loss, target
  network, epsilon-greedy exploration), learning from a circular replay buffer
  of its own transitions;
- an average policy: a softmax network trained by cross-entropy on a
  reservoir sample of the best response's own actions.

At the start of every game each seat of each row follows its best response with
probability ``anticipatory`` and its average policy otherwise. Illegal actions
are masked out of both networks (their Q-values and logits are never chosen).
A transition of a player links its decision to that player's next decision in
the same row (the opponents' moves in between are the environment), or to the
end of the game with that player's return.

All randomness comes from one NumPy generator seeded by ``seed``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gamut.envs.loading import load_game
from gamut.envs.vector import make_vector
from gamut.solvers.rl import rollout
from gamut.solvers.rl.checkpoint import check_same_shapes, saved_group, saved_optimizer, saved_params
from gamut.solvers.rl.evaluation import network_input, uses_info_state
from gamut.solvers.rl.networks import MASKED_LOGIT, forward, init_mlp, masked_log_softmax, sample_masked
from gamut.solvers.rl.ppo import Hyperparameters
from gamut.solvers.rl.trainer_state import load_step, step_arrays


@dataclass(frozen=True)
class NFSPConfig(Hyperparameters):
    """Hyperparameters of :class:`NFSPTrainer` (those of the NFSP paper's Leduc runs, scaled to batches)."""

    num_envs: int = 64
    hidden: tuple = (128,)
    replay_size: int = 100_000
    reservoir_size: int = 400_000
    anticipatory: float = 0.1
    epsilon_start: float = 0.06
    epsilon_end: float = 0.001
    epsilon_decay_steps: int = 2_000_000
    q_learning_rate: float = 0.01
    sl_learning_rate: float = 0.005
    batch_size: int = 128
    min_buffer: int = 1_000
    target_every: int = 300
    NAME = "NFSP"

    def __post_init__(self):
        self._require_whole(("num_envs", "replay_size", "reservoir_size", "epsilon_decay_steps", "batch_size",
                             "min_buffer", "target_every"))
        if not 0 < self.anticipatory <= 1:
            raise ValueError(f"NFSP anticipatory must lie in (0, 1], got {self.anticipatory}")
        if not 0 <= self.epsilon_end <= self.epsilon_start <= 1:
            raise ValueError("NFSP needs 0 <= epsilon_end <= epsilon_start <= 1")
        self._normalise_hidden()


def _q_loss(q_params, target_params, batch):
    import jax.numpy as jnp
    import optax

    q = forward(q_params, "q", batch["inputs"], jnp)
    chosen = jnp.take_along_axis(q, batch["actions"][:, None], axis=1)[:, 0]
    following = forward(target_params, "q", batch["next_inputs"], jnp)
    best_next = jnp.max(jnp.where(batch["next_mask"], following, MASKED_LOGIT), axis=1)
    target = batch["rewards"] + jnp.where(batch["done"], 0.0, best_next)
    return jnp.mean(optax.huber_loss(chosen, target))


def _sl_loss(avg_params, batch):
    import jax
    import jax.numpy as jnp

    logits = jnp.where(batch["mask"], forward(avg_params, "avg", batch["inputs"], jnp), MASKED_LOGIT)
    logp = jax.nn.log_softmax(logits)
    return -jnp.mean(jnp.take_along_axis(logp, batch["actions"][:, None], axis=1))


class NFSPTrainer:
    """NFSP self-play on a two-player zero-sum game of the toolkit (shared networks, seat in the input)."""

    algorithm = "nfsp"

    def __init__(self, game_string: str, seed: int = 0, config: NFSPConfig | None = None):
        import jax
        import optax

        self.config = cfg = config or NFSPConfig()
        self.game = load_game(game_string)
        info = self.game.get_type()
        if self.game.num_players() != 2 or info.utility != info.utility.ZERO_SUM:
            raise ValueError(f"NFSP here trains two-player zero-sum games; {self.game} has "
                             f"{self.game.num_players()} players and utility {info.utility}")
        self.game_string = str(self.game)
        self.seed = int(seed)
        self.reward_scale = float(max(abs(self.game.max_utility()), abs(self.game.min_utility()), 1e-9))
        seeds = np.random.SeedSequence(self.seed).generate_state(2, dtype=np.uint32)
        self.rng = np.random.default_rng(int(seeds[0]))
        self.env = make_vector(self.game, cfg.num_envs, seed=int(seeds[1]), info_state=uses_info_state(self.game))
        self.step = self.env.reset()
        width = network_input(self.step, self.game).shape[1]
        actions = self.game.num_distinct_actions()
        q = init_mlp("q", [width, *cfg.hidden, actions], self.rng)
        self.params = {**q, **{f"target/{k}": v.copy() for k, v in q.items()},
                       **init_mlp("avg", [width, *cfg.hidden, actions], self.rng, 0.01)}
        self.q_optimizer = optax.adam(cfg.q_learning_rate)
        self.sl_optimizer = optax.adam(cfg.sl_learning_rate)
        self.q_opt = self.q_optimizer.init(self._head("q"))
        self.sl_opt = self.sl_optimizer.init(self._head("avg"))
        n = cfg.num_envs
        self.buffers = {
            "replay/inputs": np.zeros((cfg.replay_size, width), np.float32),
            "replay/actions": np.zeros(cfg.replay_size, np.int64),
            "replay/rewards": np.zeros(cfg.replay_size, np.float32),
            "replay/next_inputs": np.zeros((cfg.replay_size, width), np.float32),
            "replay/next_mask": np.zeros((cfg.replay_size, actions), np.bool_),
            "replay/done": np.zeros(cfg.replay_size, np.bool_),
            "reservoir/inputs": np.zeros((cfg.reservoir_size, width), np.float32),
            "reservoir/mask": np.zeros((cfg.reservoir_size, actions), np.bool_),
            "reservoir/actions": np.zeros(cfg.reservoir_size, np.int64),
            "pending/inputs": np.zeros((n, 2, width), np.float32),
            "pending/actions": np.zeros((n, 2), np.int64),
            "pending/valid": np.zeros((n, 2), np.bool_),
            "best_response_mode": self.rng.random((n, 2)) < cfg.anticipatory,
        }
        self.replay_added = 0
        self.reservoir_seen = 0
        self.steps = 0
        self.learn_steps = 0
        self.finished_returns: list[float] = []
        q_opt, sl_opt = self.q_optimizer, self.sl_optimizer

        def learn_q(q_params, target_params, opt_state, batch):
            grads = jax.grad(_q_loss)(q_params, target_params, batch)
            changes, opt_state = q_opt.update(grads, opt_state, q_params)
            return optax.apply_updates(q_params, changes), opt_state

        def learn_sl(avg_params, opt_state, batch):
            grads = jax.grad(_sl_loss)(avg_params, batch)
            changes, opt_state = sl_opt.update(grads, opt_state, avg_params)
            return optax.apply_updates(avg_params, changes), opt_state

        self._learn_q = jax.jit(learn_q)
        self._learn_sl = jax.jit(learn_sl)
        self._heads = jax.jit(lambda p, x: (forward(p, "q", x, jax.numpy), forward(p, "avg", x, jax.numpy)))

    @property
    def steps_per_update(self) -> int:
        """Decisions played by one :meth:`train_update` (one per game of the batch)."""
        return self.config.num_envs

    def config_dict(self) -> dict:
        return {"nfsp": self.config.as_dict()}

    def _head(self, head: str) -> dict:
        return {k: v for k, v in self.params.items() if k.startswith(f"{head}/")}

    def epsilon(self) -> float:
        cfg = self.config
        frac = min(1.0, self.steps / cfg.epsilon_decay_steps)
        return cfg.epsilon_start + frac * (cfg.epsilon_end - cfg.epsilon_start)

    def train_update(self) -> None:
        """One decision in every game of the batch, then one learning step of each network."""
        cfg, b = self.config, self.buffers
        n = cfg.num_envs
        rows = np.arange(n)
        x = network_input(self.step, self.game)
        mask = self.step.legal_mask
        player = self.step.current_player
        q_values, avg_logits = (np.asarray(a) for a in self._heads(self.params, x))
        greedy = np.argmax(np.where(mask, q_values, -np.inf), axis=1)
        explore, _ = sample_masked(np.zeros_like(q_values), mask, self.rng)
        br_action = np.where(self.rng.random(n) < self.epsilon(), explore, greedy)
        avg_action, _ = sample_masked(avg_logits, mask, self.rng)
        in_br = b["best_response_mode"][rows, player]
        action = np.where(in_br, br_action, avg_action)
        self._add_reservoir(x[in_br], mask[in_br], action[in_br])
        # The previous decision of each row's mover continues into this one.
        linked = b["pending/valid"][rows, player]
        self._add_replay(b["pending/inputs"][rows[linked], player[linked]],
                         b["pending/actions"][rows[linked], player[linked]],
                         np.zeros(int(linked.sum()), np.float32), x[linked], mask[linked],
                         np.zeros(int(linked.sum()), np.bool_))
        b["pending/inputs"][rows, player] = x
        b["pending/actions"][rows, player] = action
        b["pending/valid"][rows, player] = True
        self.step = self.env.step(action)
        ended = np.flatnonzero(self.step.terminated)
        for seat in (0, 1):
            open_ = ended[b["pending/valid"][ended, seat]]
            self._add_replay(b["pending/inputs"][open_, seat], b["pending/actions"][open_, seat],
                             (self.step.returns[open_, seat] / self.reward_scale).astype(np.float32),
                             np.zeros((len(open_), x.shape[1]), np.float32),
                             np.zeros((len(open_), mask.shape[1]), np.bool_), np.ones(len(open_), np.bool_))
        b["pending/valid"][ended] = False
        b["best_response_mode"][ended] = self.rng.random((len(ended), 2)) < cfg.anticipatory
        self.finished_returns.extend(self.step.returns[ended, 0].tolist())
        del self.finished_returns[:-1000]
        self.steps += n
        self._learn()

    def _add_replay(self, inputs, actions, rewards, next_inputs, next_mask, done) -> None:
        size = self.config.replay_size
        slots = (self.replay_added + np.arange(len(actions))) % size
        b = self.buffers
        b["replay/inputs"][slots], b["replay/actions"][slots], b["replay/rewards"][slots] = inputs, actions, rewards
        b["replay/next_inputs"][slots], b["replay/next_mask"][slots], b["replay/done"][slots] = \
            next_inputs, next_mask, done
        self.replay_added += len(actions)

    def _add_reservoir(self, inputs, mask, actions) -> None:
        # Reservoir sampling (Vitter's algorithm R): item k of the stream is kept with
        # probability size / k, replacing a uniform slot; later items overwrite earlier ones.
        size, count = self.config.reservoir_size, len(actions)
        seen = self.reservoir_seen + np.arange(count)
        slots = np.where(seen < size, seen, self.rng.integers(0, seen + 1))
        keep = slots < size
        b = self.buffers
        b["reservoir/inputs"][slots[keep]] = inputs[keep]
        b["reservoir/mask"][slots[keep]] = mask[keep]
        b["reservoir/actions"][slots[keep]] = actions[keep]
        self.reservoir_seen += count

    def _learn(self) -> None:
        cfg, b = self.config, self.buffers
        filled = min(self.replay_added, cfg.replay_size)
        held = min(self.reservoir_seen, cfg.reservoir_size)
        if filled < cfg.min_buffer or held < cfg.min_buffer:
            return
        pick = self.rng.integers(0, filled, cfg.batch_size)
        batch = {k.split("/")[1]: b[k][pick] for k in b if k.startswith("replay/")}
        target = {k[len("target/"):]: v for k, v in self.params.items() if k.startswith("target/")}
        q, self.q_opt = self._learn_q(self._head("q"), target, self.q_opt, batch)
        pick = self.rng.integers(0, held, cfg.batch_size)
        avg, self.sl_opt = self._learn_sl(self._head("avg"), self.sl_opt,
                                          {k.split("/")[1]: b[k][pick] for k in b if k.startswith("reservoir/")})
        self.params.update({k: np.asarray(v) for k, v in {**q, **avg}.items()})
        self.learn_steps += 1
        if self.learn_steps % cfg.target_every == 0:
            self.params.update({f"target/{k}": v.copy() for k, v in self._head("q").items()})

    def policy_logits(self, inputs: np.ndarray) -> np.ndarray:
        """Average-policy logits float32 ``(batch, actions)`` (before masking), in NumPy."""
        return forward(self._head("avg"), "avg", inputs)

    def probabilities(self, inputs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Average-policy probabilities float64 ``(batch, actions)`` (0 at illegal actions)."""
        return np.exp(masked_log_softmax(self.policy_logits(inputs), mask))

    def act_sampled(self, inputs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Actions drawn from the average policy (how the ``nfsp`` agent plays)."""
        return sample_masked(self.policy_logits(inputs), mask, self.rng)[0]

    def weights_arrays(self) -> dict:
        """The average-policy network's parameters, as shipped in a weights file (head ``pi``)."""
        return {"pi/" + k.split("/", 1)[1]: np.asarray(v) for k, v in self._head("avg").items()}

    def weights_metadata(self) -> dict:
        """Nothing beyond the training's metadata: the weights file holds the average policy only."""
        return {}

    # -- checkpoint support ---------------------------------------------------
    def state(self) -> tuple[dict, dict]:
        import jax

        arrays = {f"params/{k}": np.asarray(v) for k, v in self.params.items()}
        for name, opt in (("q_opt", self.q_opt), ("sl_opt", self.sl_opt)):
            arrays.update({f"{name}/{i}": np.asarray(x) for i, x in enumerate(jax.tree_util.tree_leaves(opt))})
        arrays.update({f"buffer/{k}": v for k, v in self.buffers.items()})
        arrays.update({f"env/{k}": v for k, v in rollout.env_arrays(self.env).items()})
        arrays.update(step_arrays(self.step))
        info = {"steps": self.steps, "learn_steps": self.learn_steps, "replay_added": self.replay_added,
                "reservoir_seen": self.reservoir_seen, "rng": self.rng.bit_generator.state,
                "finished_returns": self.finished_returns}
        return info, arrays

    def load_state(self, info: dict, arrays: dict) -> None:
        params = saved_params(arrays, self.params)
        buffers = saved_group(arrays, "buffer")
        check_same_shapes("buffers", self.buffers, buffers)
        restored = {name: saved_optimizer(arrays, opt, name, f"the optimizer state {name}")
                    for name, opt in (("q_opt", self.q_opt), ("sl_opt", self.sl_opt))}
        rollout.restore_env(self.env, saved_group(arrays, "env"))
        self.step = load_step(arrays, self.step)
        self.params, self.buffers = params, {k: v.copy() for k, v in buffers.items()}
        self.q_opt, self.sl_opt = restored["q_opt"], restored["sl_opt"]
        self.rng.bit_generator.state = info["rng"]
        self.steps, self.learn_steps = int(info["steps"]), int(info["learn_steps"])
        self.replay_added, self.reservoir_seen = int(info["replay_added"]), int(info["reservoir_seen"])
        self.finished_returns = list(info["finished_returns"])
