"""What an experiment is: a config file plus a module that runs one trial.

An experiment module (the registered ones live in ``experiments/trials/``;
any importable module works with ``gamut run package.module --config FILE``)
defines:

``NAME`` : str
    The experiment's name and results folder.
``VERSION`` : int
    Bumped whenever ``run_trial`` changes what it returns, so stale trials are
    never reused.
``PARAMS`` : dict
    Field name -> type (``int``, ``float``, ``str``, ``bool``, ``list``) or a
    checker function (e.g. :func:`gamut.experiments.config.game_string`); ``seed``
    and ``trials`` are always present.
``run_trial(params, spec, seed) -> list[dict]``
    Runs one trial and returns its rows (flat dicts) for the tidy table.
    ``spec`` is one entry of ``trial_specs``; ``seed`` is derived from the
    config's base seed and ``spec["stream"]``.
``summarize(table, params, writer) -> str``
    Aggregates the trials table (pandas DataFrame), writes summary tables and
    figures through ``writer`` and returns the Markdown for the report.

Optionally ``trial_specs(params) -> list[dict]`` (default: one spec
``{"trial": i, "stream": i}`` per trial), ``validate(params)`` for checks
across fields (the runner calls it before it touches any results: resolve
every agent, option and game string the trials will use there, so a bad
config fails before the first trial), and ``SUMMARY_PARAMS`` (a tuple of field names) for fields that
only ``summarize`` reads: changing one of them re-summarises the finished
trials on ``--resume`` instead of refusing (e.g. a reference figure quoted
beside the trials' own). Specs with the same ``stream`` get the same seed: that is how
two agents are scored on the same deals (common random numbers).
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import numpy as np

from gamut.experiments.config import CONFIG_DIR, ConfigError, ResolvedConfig, load_config

# Registered experiments, in the order `gamut reproduce` runs them.
EXPERIMENTS: dict[str, str] = {
    "hand_frequencies": "gamut.experiments.trials.hand_frequencies",
    "cfr_convergence": "gamut.experiments.trials.cfr_convergence",
    "poke_doubling": "gamut.experiments.trials.poke_doubling",
    "poker_squares_agents": "gamut.experiments.trials.poker_squares_agents",
    "poker_squares_bounds": "gamut.experiments.trials.poker_squares_bounds",
    "poker_squares_endgame": "gamut.experiments.trials.poker_squares_endgame",
    "poker_squares_lower_bound": "gamut.experiments.trials.poker_squares_lower_bound",
    "poker_squares_upper_bound": "gamut.experiments.trials.poker_squares_upper_bound",
    "palace_tournament": "gamut.experiments.trials.palace_tournament",
    "dice_optimal": "gamut.experiments.trials.dice_optimal",
    "dice_ranking": "gamut.experiments.trials.dice_ranking",
    "rl_learning_curve": "gamut.experiments.trials.rl_learning_curve",
    "learning_curves": "gamut.experiments.trials.learning_curves",
}

_REQUIRED = ("NAME", "VERSION", "PARAMS", "run_trial", "summarize")
_MODULE_PATH = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)+")
# An experiment's NAME is its results folder: one plain path component.
_FOLDER_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_-]*")


def trial_seed(base_seed: int, stream: int) -> int:
    """The seed of a trial: independent streams from one base seed, the same on every backend.

    Examples
    --------
    >>> trial_seed(7, 0) == trial_seed(7, 0) != trial_seed(7, 1)
    True
    """
    state = np.random.SeedSequence(base_seed, spawn_key=(stream,)).generate_state(2, dtype=np.uint32)
    return int(state[0]) << 31 | int(state[1]) >> 1


@dataclass(frozen=True)
class Experiment:
    """An experiment module with its resolved config."""

    module: ModuleType
    config: ResolvedConfig

    @property
    def name(self) -> str:
        return self.module.NAME

    @property
    def version(self) -> int:
        return int(self.module.VERSION)

    @property
    def summary_params(self) -> frozenset[str]:
        """Fields that only ``summarize`` reads (they do not decide the trials' results)."""
        names = frozenset(getattr(self.module, "SUMMARY_PARAMS", ()))
        unknown = sorted(names - set(self.config.params))
        if unknown:
            raise ConfigError(f"experiment {self.name}: SUMMARY_PARAMS names unknown fields {unknown}")
        return names

    def fingerprint(self) -> str:
        """Hash of the version and of every field that decides the trials' results."""
        return self.config.fingerprint(self.version, exclude=self.summary_params)

    def trial_specs(self) -> list[dict]:
        """Every trial of the run; each spec has a unique ``trial`` and a ``stream``."""
        params = self.config.params
        if hasattr(self.module, "trial_specs"):
            specs = [dict(spec) for spec in self.module.trial_specs(params)]
        else:
            specs = [{"trial": i} for i in range(params["trials"])]
        for spec in specs:
            spec.setdefault("stream", spec["trial"])
        ids = [spec["trial"] for spec in specs]
        if len(set(ids)) != len(ids):
            raise ValueError(f"experiment {self.name}: trial_specs gives duplicate trial ids")
        return specs


def resolve_module(name: str) -> ModuleType:
    """The module of a registered experiment name or of a dotted module path."""
    module_name = EXPERIMENTS.get(name, name)
    if name not in EXPERIMENTS and not _MODULE_PATH.fullmatch(str(name)):
        known = ", ".join(EXPERIMENTS) or "(none registered)"
        raise ConfigError(f"unknown experiment {name!r}; registered experiments: {known} "
                          "(or a dotted module path such as mypackage.my_experiment, with --config)")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as err:
        raise ConfigError(f"experiment module {module_name!r} cannot be imported: {err}") from None
    missing = [attr for attr in _REQUIRED if not hasattr(module, attr)]
    if missing:
        raise ConfigError(f"experiment module {module_name!r} lacks {', '.join(missing)}")
    if not isinstance(module.NAME, str) or not _FOLDER_NAME.fullmatch(module.NAME):
        raise ConfigError(f"experiment module {module_name!r}: NAME {module.NAME!r} must be letters, digits, "
                          "'_' and '-' (it names the results folder)")
    return module


def load_experiment(name: str, profile: str = "full", config_path: str | Path | None = None) -> Experiment:
    """Import an experiment and check its config in full, before any work.

    Parameters
    ----------
    name : str
        A registered experiment name (see ``gamut list``) or a dotted module path.
    profile : {"full", "quick"}
        Which parameter set to use.
    config_path : path, optional
        Config file; default ``experiments/configs/<NAME>.toml``.
    """
    module = resolve_module(name)
    path = Path(config_path) if config_path is not None else CONFIG_DIR / f"{module.NAME}.toml"
    config = load_config(path, profile, module.PARAMS, module.NAME)
    if hasattr(module, "validate"):
        try:
            module.validate(config.params)
        except ValueError as err:
            raise ConfigError(f"{path}: {err}") from None
    return Experiment(module=module, config=config)
