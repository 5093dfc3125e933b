"""What every trainer's checkpoint holds: the network, its optimizer, the games in progress and the counters.

A trainer (PPO, DMC, imitation) saves these under fixed prefixes of one
archive, ``params/NAME`` (the network), ``opt/I`` (the optimizer state's
leaves in pytree order), ``env/NAME`` (the batched environment), ``step/NAME``
(the batch position: observations, legal masks, players, information
states), and the counters ``steps``, ``updates``, ``rng`` and
``finished_returns`` in the JSON header. It adds its own arrays beside them
(a replay buffer, a league). Loading checks everything first and changes the
trainer only once all of it matches, so a checkpoint of another run raises
ValueError and leaves the trainer as it was.

    >>> import numpy as np
    >>> sorted(step_arrays(type("Step", (), {"obs": np.zeros(2), "legal_mask": np.ones(2, bool),
    ...                                       "current_player": None, "info_state": None})()))
    ['step/legal_mask', 'step/obs']
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from gamut.solvers.rl import rollout
from gamut.solvers.rl.checkpoint import saved_group, saved_optimizer, saved_params

STEP_FIELDS = ("obs", "legal_mask", "current_player", "info_state")


def step_arrays(step) -> dict:
    """The arrays of a batch position (``step/NAME`` for each of :data:`STEP_FIELDS` it has)."""
    return {f"step/{name}": np.asarray(getattr(step, name)) for name in STEP_FIELDS
            if getattr(step, name) is not None}


def load_step(arrays: dict, like):
    """The batch position saved by :func:`step_arrays`, checked against ``like`` (shapes and dtypes)."""
    fields = {}
    for name in STEP_FIELDS:
        current = getattr(like, name)
        if current is None:
            continue
        saved = arrays.get(f"step/{name}")
        if saved is None or saved.shape != current.shape or saved.dtype != current.dtype:
            raise ValueError(f"the saved batch position {name!r} does not match this environment")
        fields[name] = saved.copy()
    return replace(like, **fields)


def learner_state(trainer) -> tuple[dict, dict]:
    """The header fields and arrays every trainer saves (see the module docstring)."""
    import jax

    arrays = {f"params/{k}": np.asarray(v) for k, v in trainer.params.items()}
    arrays.update({f"opt/{i}": np.asarray(leaf) for i, leaf in enumerate(jax.tree_util.tree_leaves(trainer.opt_state))})
    arrays.update({f"env/{k}": v for k, v in rollout.env_arrays(trainer.env).items()})
    arrays.update(step_arrays(trainer.step))
    info = {"steps": trainer.steps, "updates": trainer.updates, "rng": trainer.rng.bit_generator.state,
            "finished_returns": trainer.finished_returns}
    return info, arrays


def checked_learner(trainer, arrays: dict) -> tuple:
    """The saved network, optimizer state and batch position of ``arrays``, checked; ``trainer`` is not changed."""
    rollout.check_env_arrays(trainer.env, saved_group(arrays, "env"))
    return (saved_params(arrays, trainer.params), saved_optimizer(arrays, trainer.opt_state),
            load_step(arrays, trainer.step))


def restore_learner(trainer, info: dict, arrays: dict, checked: tuple) -> None:
    """Put what :func:`checked_learner` returned, the environment and the counters into ``trainer``."""
    rollout.restore_env(trainer.env, saved_group(arrays, "env"))
    trainer.params, trainer.opt_state, trainer.step = checked
    trainer.rng.bit_generator.state = info["rng"]
    trainer.steps, trainer.updates = int(info["steps"]), int(info["updates"])
    trainer.finished_returns = list(info["finished_returns"])
