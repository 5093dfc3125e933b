"""Checks every CLI subcommand runs on its input before doing any work.

A bad value is refused with a message that names the flag and what is
allowed, the command exits with status 2, and nothing is computed or written.
Two kinds of check live here, shared by every subcommand:

- argparse ``type=`` functions (:func:`whole`, :func:`real`, :func:`seed`,
  :func:`memory_count`, :func:`output_file`, :func:`output_folder`,
  :func:`output_root`, :func:`input_file`), which argparse runs while parsing, so their message
  comes out as ``argument --deals: ...``;
- checks of values that depend on each other or on the game
  (:func:`check_output`, :func:`load_game_flag`, :func:`check_agent`,
  :func:`parse_options`), which raise ``ValueError`` starting with the flag;
  the entry point turns that into exit status 2.

:func:`harden_numbers` gives every remaining ``type=int`` flag the int64 range
and every ``type=float`` flag a finite value, so no flag of any subcommand
takes ``nan``, ``inf`` or an integer the kernels cannot hold.

    >>> import argparse
    >>> parser = argparse.ArgumentParser(prog="demo")
    >>> _ = parser.add_argument("--deals", type=whole(1))
    >>> parser.parse_args(["--deals", "3"]).deals
    3
    >>> real()("1e3")
    1000.0
"""

from __future__ import annotations

import argparse
import math
import os
import tempfile
import time
from pathlib import Path

from gamut.envs.memory import format_bytes, physical_memory

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1

# Ceilings of the work one command may be asked for, each named in its flag's help. They sit far above
# every run of the experiments; beyond them a command would not return in any useful time on a
# workstation, so a typo (an exponent too many) is refused instead of running for years.
MAX_SECONDS = 3600.0
"""A time budget per game, move or deal: at most an hour."""
MAX_ITERATIONS = 10**9
"""Iterations of a solver (CFR, MCCFR, a sampled best response): Leduc CFR+ at its benchmark rate of about
3,900 a second (``results/benchmarks/cfr.jsonl``, 2 cores) takes three days for this many."""
MAX_STEPS = 10**10
"""Decisions, games or positions of a resumable training run (checkpointed as it goes)."""
LONG_RUN_SECONDS = 3600.0
"""A solver run expected to take longer than this needs a checkpoint, so a stop does not lose it."""


def whole(low: int = 0, high: int = INT64_MAX):
    """argparse type: a whole number in ``low..high`` (default: non-negative int64).

    Each type function of this module carries ``kind`` (and its bounds as
    ``low``/``high``), so a test can generate the values it must refuse.
    """

    def parse(text: str) -> int:
        try:
            value = int(text)
        except (TypeError, ValueError):
            value = None
        if value is None or not low <= value <= high:
            raise argparse.ArgumentTypeError(f"expected a whole number in {_span(low, high)}, got {text!r}")
        return value

    parse.__name__ = "whole number"
    parse.kind, parse.low, parse.high = "whole", low, high
    return parse


def real(low: float | None = None, high: float | None = None, *, above: bool = False):
    """argparse type: a finite number, at least ``low`` (above it when ``above``) and at most ``high``."""
    if low is None:
        wanted = "a finite number" if high is None else f"a finite number <= {high:g}"
    else:
        wanted = f"a finite number {'>' if above else '>='} {low:g}"
        if high is not None:
            wanted += f" and <= {high:g}"

    def parse(text: str) -> float:
        try:
            value = float(text)
        except (TypeError, ValueError):
            value = math.nan
        fits = math.isfinite(value) and (low is None or value > low or (value == low and not above)) \
            and (high is None or value <= high)
        if not fits:
            raise argparse.ArgumentTypeError(f"expected {wanted}, got {text!r}")
        return value

    parse.__name__ = "number"
    parse.kind, parse.low, parse.high, parse.above = "real", low, high, above
    return parse


seed = whole(0, INT64_MAX)
"""argparse type: a seed, a whole number in 0..2**63-1 (what the kernels hold as int64)."""


def memory_count(bytes_each: int, low: int = 1):
    """argparse type: a count of items held in memory at once, ``bytes_each`` bytes per item.

    Refuses a count whose arrays need more than this machine's physical memory,
    naming the largest count that fits.
    """

    def parse(text: str) -> int:
        value = whole(low)(text)
        total = physical_memory()
        if total is not None and value * bytes_each > total:
            raise argparse.ArgumentTypeError(
                f"{value:,} needs about {format_bytes(value * bytes_each)} of memory "
                f"({bytes_each:,} byte{'' if bytes_each == 1 else 's'} each) "
                f"and this machine has {format_bytes(total)}: use at most {total // bytes_each:,}")
        return value

    parse.__name__ = "count"
    parse.kind, parse.low, parse.high = "count", low, INT64_MAX
    return parse


def duration(seconds: float) -> str:
    """``seconds`` in the unit a person reads best: ``'40 seconds'``, ``'3.2 hours'``, ``'12,000 years'``."""
    for unit, size in (("year", 365.25 * 86400), ("day", 86400), ("hour", 3600), ("minute", 60), ("second", 1)):
        if seconds >= size or unit == "second":
            shown = f"{seconds / size:,.1f}" if seconds < 100 * size else f"{seconds / size:,.0f}"
            shown = shown.removesuffix(".0")
            return f"{shown} {unit}{'' if shown == '1' else 's'}"
    raise AssertionError("unreachable")


def measured_rate(run, seconds: float = 0.25) -> float:
    """Iterations a second of ``run(n)`` (a throwaway solver's), timed for about ``seconds`` after a warm-up call."""
    run(1)  # loads or compiles the kernels, which a rate must not count
    done, chunk, start = 0, 1, time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        run(chunk)
        done += chunk
        chunk *= 2
    return done / elapsed


def check_long_run(iterations: int, per_second: float, rate: str, flag: str, checkpoint_flag: str) -> None:
    """Refuse ``iterations`` expected to take over :data:`LONG_RUN_SECONDS` at ``per_second`` (described by ``rate``).

    Called when no checkpoint is written: the ValueError says how long the run
    would take, that ``checkpoint_flag`` makes it resumable, and the most
    iterations that fit the limit.
    """
    seconds = iterations / per_second
    if seconds > LONG_RUN_SECONDS:
        raise ValueError(f"{flag} {iterations:,} would take about {duration(seconds)} at {rate}: a run over "
                         f"{duration(LONG_RUN_SECONDS)} needs {checkpoint_flag} PATH so that it can be resumed "
                         f"(or ask for at most {int(LONG_RUN_SECONDS * per_second):,})")


def _span(low: int, high: int) -> str:
    return f"{'-2**63' if low == INT64_MIN else low}..{'2**63-1' if high == INT64_MAX else high}"


def _creation_problem(folder: Path, make_folder: bool) -> str | None:
    """Why a file (a folder when ``make_folder``) cannot be created in ``folder``, or None when it can.

    The answer comes from creating one and removing it at once: ``os.access``
    says yes to root under ``/proc`` and ``/sys``, where creating anything fails.
    """
    try:
        if make_folder:
            os.rmdir(tempfile.mkdtemp(prefix=".gamut-probe-", dir=folder))
        else:
            handle, name = tempfile.mkstemp(prefix=".gamut-probe-", dir=folder)
            os.close(handle)
            os.unlink(name)
    except OSError as err:
        return f"creating a {'folder' if make_folder else 'file'} in {folder} fails: {err.strerror or err}"
    return None


def output_problem(path: str | os.PathLike, folder: bool = False) -> str | None:
    """Why ``path`` cannot be written (as a file, or a folder when ``folder``), or None if it can.

    A missing parent folder is fine when the nearest existing one is a folder
    this process may create it in (the commands create the rest). An existing
    file also needs a writable folder, since files are replaced atomically
    through a temporary file beside them. Writability is tried by creating a
    file (or folder) there and removing it, so nothing is left behind.
    """
    if str(path) == "":
        return "is empty"
    target = Path(path).absolute()
    if target.exists():
        if folder and not target.is_dir():
            return "is a file, not a folder"
        if not folder and target.is_dir():
            return "is a folder, not a file"
        if not os.access(target, os.W_OK | (os.X_OK if folder else 0)):
            return "is not writable"
        problem = _creation_problem(target if folder else target.parent, make_folder=False)
        return None if problem is None else f"is not writable: {problem}"
    ancestor = target.parent
    while not ancestor.exists():
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        return f"cannot be created: {ancestor} is not a folder (it is a file)"
    if not os.access(ancestor, os.W_OK | os.X_OK):
        return f"cannot be created: the folder {ancestor} is not writable"
    # What the command creates in the nearest existing folder: the output itself, or the first missing folder.
    problem = _creation_problem(ancestor, make_folder=folder or ancestor != target.parent)
    return None if problem is None else f"cannot be created: {problem}"


def _writable_output(text: str, folder: bool = False) -> str:
    """``text`` when it is a path this process can write (a folder when ``folder``); argparse's error otherwise."""
    problem = output_problem(text, folder=folder)
    if problem is not None:
        raise argparse.ArgumentTypeError(f"output {'folder' if folder else 'file'} {text!r} {problem}")
    return text


def output_file(text: str) -> str:
    """argparse type: a file path this process can write (checked, not created)."""
    return _writable_output(text)


output_file.__name__ = "output file"
output_file.kind = "output_file"


def output_folder(text: str) -> str:
    """argparse type: a folder path this process can write in, or ``''`` (write nothing)."""
    return text if text == "" else _writable_output(text, folder=True)


output_folder.__name__ = "output folder"
output_folder.kind = "output_folder"


def output_root(text: str) -> str:
    """argparse type: a folder path this process can write in (created when missing); never ``''``."""
    return _writable_output(text, folder=True)


output_root.__name__ = "output folder"
output_root.kind = "output_root"


def input_file(text: str) -> str:
    """argparse type: an existing, readable file."""
    path = Path(text)
    if not path.is_file():
        raise argparse.ArgumentTypeError(
            f"{text!r} is {'a folder, not a file' if path.is_dir() else 'not an existing file'}")
    if not os.access(path, os.R_OK):
        raise argparse.ArgumentTypeError(f"{text!r} is not readable")
    return text


input_file.__name__ = "input file"
input_file.kind = "input_file"


def check_output(path: str | os.PathLike | None, flag: str, folder: bool = False) -> None:
    """Raise ValueError naming ``flag`` when ``path`` (given or default; a folder if ``folder``) cannot be written."""
    if path is not None:
        problem = output_problem(path, folder=folder)
        if problem is not None:
            raise ValueError(f"{flag}: output {'folder' if folder else 'file'} {str(path)!r} {problem}")


def harden_numbers(parser: argparse.ArgumentParser) -> None:
    """Give every ``type=int`` flag of ``parser`` and its subparsers int64 bounds, every ``type=float`` finiteness.

    Flags with a narrower type of this module keep it; this pass only closes
    what plain ``int`` and ``float`` let through (``nan``, ``inf``, integers
    beyond int64).
    """
    for action in parser._actions:
        if action.type is int:
            action.type = whole(INT64_MIN, INT64_MAX)
        elif action.type is float:
            action.type = real()
        if isinstance(action, argparse._SubParsersAction):
            for sub in dict.fromkeys(action.choices.values()):
                harden_numbers(sub)


def load_game_flag(text, flag: str):
    """The pyspiel game of ``text``; ValueError starting with ``flag`` (one line) when it does not load."""
    from gamut.envs.loading import load_game

    try:
        return load_game(text)
    except ValueError as err:
        raise ValueError(f"{flag}: {err}") from None


def parse_value(text: str, flag: str, pair: str):
    """An option value as typed: true/false, a whole number, a finite number, or else the text."""
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    try:
        value = int(text)
    except ValueError:
        pass
    else:
        if not INT64_MIN <= value <= INT64_MAX:
            raise ValueError(f"{flag} {pair!r}: {text} is outside the int64 range")
        return value
    try:
        value = float(text)
    except ValueError:
        return text
    if not math.isfinite(value):
        raise ValueError(f"{flag} {pair!r}: expected a finite number, got {text!r}")
    return value


def parse_options(pairs: list[str], flag: str) -> dict:
    """``["iterations=500", "policy=learned"]`` -> ``{"iterations": 500, "policy": "learned"}``.

    Values are true/false, whole numbers, finite numbers or text; a pair
    without ``=`` or a key given twice is refused naming ``flag``.
    """
    options = {}
    for pair in pairs:
        key, sep, text = pair.partition("=")
        if not sep or not key:
            raise ValueError(f"{flag} takes NAME=VALUE, got {pair!r}")
        if key in options:
            raise ValueError(f"{flag} gives {key!r} twice")
        options[key] = parse_value(text, flag, pair)
    return options


def agent_options(entries: list, field: str = "options") -> dict[str, dict]:
    """``["ismcts.iterations=300", "ppo.weights=w.npz"]`` -> ``{"ismcts": {"iterations": 300}, "ppo": {...}}``.

    The agent options of an experiment config's ``field``. Values read as on
    the command line (:func:`parse_value`); an entry not of the form
    ``AGENT.NAME=VALUE``, or a name given twice, is refused naming ``field``.
    """
    options: dict[str, dict] = {}
    for entry in map(str, entries):
        key, sep, text = entry.partition("=")
        agent, dot, name = key.partition(".")
        if not sep or not dot or not agent or not name:
            raise ValueError(f"field {field!r}: {entry!r} must read AGENT.NAME=VALUE")
        if name in options.get(agent, {}):
            raise ValueError(f"field {field!r}: {agent}.{name} is given twice")
        options.setdefault(agent, {})[name] = parse_value(text, f"field {field!r}", entry)
    return options


def check_agent(game, name: str, flag: str, options: dict | None = None, player: int = 0, seed: int = 0):
    """Build agent ``name`` with ``options`` for ``game``, so an unknown name or option fails before any play.

    Returns the bot; a ValueError starts with ``flag`` and lists the valid names or options.
    """
    from gamut.solvers.bots import make_bot

    try:
        return make_bot(game, name, player, seed, **(options or {}))
    except ValueError as err:
        raise ValueError(f"{flag}: {err}") from None


def check_agent_name(game, name: str | None, flag: str) -> None:
    """Refuse an agent name the registry does not know for ``game`` (None: the command's default)."""
    from gamut.solvers.bots import bot_names

    if name is not None and name not in bot_names(game):
        raise ValueError(f"{flag}: unknown agent {name!r} for {game}; available: {', '.join(bot_names(game))}")


def check_seat(game, seat: int, flag: str = "--seat") -> None:
    """Refuse a seat ``game`` does not have, naming ``flag`` and the seats it has."""
    if not 0 <= seat < game.num_players():
        raise ValueError(f"{flag} {seat} is not a seat of {game}: its seats are 0..{game.num_players() - 1}")
