"""Experiment configs: TOML files checked in full before any work starts.

A config names its experiment, holds the full-scale parameters under
``[params]`` and the overrides of the quick profile under ``[quick]``::

    experiment = "hand_frequencies"
    description = "Five-card category frequencies from random deals"

    [params]
    seed = 20261129          # base seed; trial i uses SeedSequence(seed, spawn_key=(i,))
    trials = 64              # independent trials (the unit of resume and of parallelism)
    hands_per_trial = 2_000_000

    [quick]
    trials = 4
    hands_per_trial = 100_000

Every experiment declares the fields it takes (``PARAMS``: name -> type or
checker); a missing, unknown or mistyped field fails with a message naming it.
"""

from __future__ import annotations

import hashlib
import json
import math
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

CONFIG_DIR = Path(__file__).resolve().parent / "configs"
PROFILES = ("full", "quick")

# Fields every experiment takes, whatever its own parameters.
COMMON_PARAMS: dict[str, type] = {"seed": int, "trials": int}


class ConfigError(ValueError):
    """A config that cannot run; the message names the file and the field."""


@dataclass(frozen=True)
class ResolvedConfig:
    """A config with its profile applied and every field checked.

    Attributes
    ----------
    experiment : str
        Name of the experiment (and of its results folder).
    profile : str
        ``"full"`` or ``"quick"``.
    params : dict
        The parameters the trials receive (quick overrides applied).
    source : str
        Path of the TOML file.
    description : str
        One line on what the experiment measures.
    """

    experiment: str
    profile: str
    params: dict
    source: str
    description: str

    def fingerprint(self, experiment_version: int, exclude: frozenset[str] = frozenset()) -> str:
        """Hash of everything that decides the trials' results; a change invalidates old trials.

        ``exclude`` names fields that only the summary reads (``SUMMARY_PARAMS``).
        """
        params = {k: v for k, v in self.params.items() if k not in exclude}
        payload = json.dumps({"experiment": self.experiment, "version": experiment_version, "params": params},
                             sort_keys=True)
        return hashlib.sha256(payload.encode()).hexdigest()[:16]


def game_string(value) -> str:
    """Checker for a field holding a pyspiel game string: well formed (read strictly), and the game must load."""
    from gamut.envs.loading import load_game

    if not isinstance(value, str):
        raise ValueError(f"expected a game string such as 'kuhn_poker' or 'name(param=value)', got {value!r}")
    try:
        load_game(value)
    except ValueError as err:
        raise ValueError(f"game string {value!r} does not load: {err}") from None
    return value


def positive_int(value) -> int:
    """Checker for a whole number >= 1."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"expected a whole number >= 1, got {value!r}")
    return value


def _check_type(expected, value):
    if callable(expected) and not isinstance(expected, type):
        return expected(value)
    if expected is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if expected is float and isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"expected a finite number, got {value!r}")
    if isinstance(value, bool) and expected is not bool:
        raise ValueError(f"expected {expected.__name__}, got {value!r}")
    if not isinstance(value, expected):
        raise ValueError(f"expected {expected.__name__}, got {type(value).__name__} {value!r}")
    return value


def check_params(
    params: Mapping, schema: Mapping[str, type | Callable], where: str
) -> dict:
    """Check ``params`` against ``schema`` (common fields included); returns the checked copy.

    Raises ConfigError naming the first missing, unknown or invalid field.
    """
    full_schema = {**COMMON_PARAMS, **schema}
    missing = [name for name in full_schema if name not in params]
    if missing:
        raise ConfigError(f"{where}: missing field {missing[0]!r} (fields: {', '.join(full_schema)})")
    unknown = [name for name in params if name not in full_schema]
    if unknown:
        raise ConfigError(
            f"{where}: unknown field {unknown[0]!r}; this experiment takes {', '.join(full_schema)}"
        )
    checked = {}
    for name, expected in full_schema.items():
        try:
            checked[name] = _check_type(expected, params[name])
        except ValueError as err:
            raise ConfigError(f"{where}: field {name!r}: {err}") from None
    if checked["seed"] < 0:
        raise ConfigError(f"{where}: field 'seed': expected a non-negative integer, got {checked['seed']}")
    if checked["trials"] < 1:
        raise ConfigError(f"{where}: field 'trials': expected at least 1, got {checked['trials']}")
    return checked


def load_config(
    path: str | Path, profile: str, schema: Mapping[str, type | Callable], experiment: str
) -> ResolvedConfig:
    """Read a config file, apply ``profile`` and check every field against ``schema``."""
    if profile not in PROFILES:
        raise ConfigError(f"profile {profile!r} is not one of {', '.join(PROFILES)}")
    path = Path(path)
    try:
        raw = tomllib.loads(path.read_text())
    except FileNotFoundError:
        raise ConfigError(f"config file {path} does not exist") from None
    except IsADirectoryError:
        raise ConfigError(f"config file {path} is a directory; give the path of a TOML file") from None
    except (OSError, UnicodeDecodeError) as err:
        raise ConfigError(f"config file {path} cannot be read: {err}") from None
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"{path}: not valid TOML: {err}") from None
    for field in ("experiment", "params"):
        if field not in raw:
            raise ConfigError(f"{path}: missing field {field!r}")
    for table in ("params", "quick"):
        if table in raw and not isinstance(raw[table], dict):
            raise ConfigError(f"{path}: {table!r} must be a table ([{table}] with one field per line), "
                              f"got {type(raw[table]).__name__} {raw[table]!r}")
    unknown = sorted(set(raw) - {"experiment", "description", "params", "quick"})
    if unknown:
        raise ConfigError(f"{path}: unknown top-level field {unknown[0]!r}")
    if raw["experiment"] != experiment:
        raise ConfigError(
            f"{path}: field 'experiment' is {raw['experiment']!r} but the config is used for {experiment!r}"
        )
    params = dict(raw["params"])
    if profile == "quick":
        overrides = raw.get("quick", {})
        bad = [name for name in overrides if name not in params]
        if bad:
            raise ConfigError(f"{path}: [quick] overrides {bad[0]!r}, which [params] does not have")
        params.update(overrides)
    checked = check_params(params, schema, f"{path} [{'quick' if profile == 'quick' else 'params'}]")
    return ResolvedConfig(
        experiment=experiment,
        profile=profile,
        params=checked,
        source=str(path),
        description=str(raw.get("description", "")),
    )


def changed_fields(old: Mapping, new: Mapping) -> list[str]:
    """Names of parameters that differ between two resolved configs, for resume errors."""
    names = sorted(set(old) | set(new))
    return [f"{n}: {old.get(n, '<absent>')!r} -> {new.get(n, '<absent>')!r}" for n in names if old.get(n) != new.get(n)]
