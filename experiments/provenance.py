"""Where a result came from: toolkit and game versions, git commit, machine, code fingerprint."""

from __future__ import annotations

import ast
import functools
import hashlib
import importlib.util
import os
import platform
import re
import subprocess
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent


def toolkit_version() -> str:
    return version("gamut")


def game_versions() -> dict[str, int]:
    """Versions of every game of the toolkit (importing ``envs`` registers them all)."""
    import gamut.envs  # noqa: F401  (registers the games and records their versions)
    from gamut.envs.versions import game_versions as recorded

    return recorded()


def git_commit() -> str | None:
    """``HEAD`` of the checkout the toolkit runs from, with ``-dirty`` if files changed; None outside git."""
    try:
        head = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=REPO_ROOT, capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=REPO_ROOT, capture_output=True, text=True, check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
    return head + ("-dirty" if dirty else "")


def machine() -> dict:
    """Processor, cores, memory and Python of this machine."""
    try:
        memory_bytes = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        memory_bytes = None
    return {
        "hostname": platform.node(),
        "processor": platform.processor() or platform.machine(),
        "cpu_count": os.cpu_count(),
        "memory_gib": round(memory_bytes / 2**30, 1) if memory_bytes else None,
        "python": platform.python_version(),
        "platform": platform.platform(),
    }


# The runner's own modules decide where results go, not what they are: they are left out of code fingerprints.
RUNNER_MODULES = frozenset({
    "gamut.solvers.backends", "gamut.experiments.config", "gamut.experiments.experiment",
    "gamut.experiments.provenance", "gamut.experiments.report", "gamut.experiments.runner",
    "gamut.experiments.store",
})


# The agent registry imports the agent tables of the games in use by name (from their declarations).
AGENT_REGISTRY = "gamut.solvers.bots"
_DOTTED = re.compile(r"gamut(\.[A-Za-z_]\w*)+")
# The key of the summary part of an experiment module in a code fingerprint (``<module>:summarize``).
SUMMARY_PART = ":summarize"
_TRIAL_ENTRY_POINTS = ("run_trial", "trial_specs", "validate")


def source_hash(source: str) -> str:
    """Hash of a module's code: comments, docstrings and layout do not count.

    Examples
    --------
    >>> source_hash("def f():\\n    '''Doc.'''\\n    return 1  # one") == source_hash("def f(): return 1")
    True
    >>> source_hash("def f(): return 1") == source_hash("def f(): return 2")
    False
    """
    return _tree_hash(ast.parse(source))


def _tree_hash(tree: ast.AST) -> str:
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and body
                and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)):
            node.body = body[1:] or [ast.Pass()]
        # The toolkit's folders were once installed as top-level packages (``envs`` for ``gamut.envs``):
        # the same code under either name hashes alike, so older results compare with today's code.
        if isinstance(node, ast.ImportFrom) and node.module:
            node.module = _unprefixed(node.module)
        elif isinstance(node, ast.alias):
            node.name = _unprefixed(node.name)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            node.value = _unprefixed(node.value)
    return hashlib.sha256(ast.dump(tree).encode()).hexdigest()[:16]


def _unprefixed(name: str) -> str:
    return name.removeprefix("gamut.") if _DOTTED.fullmatch(name) else name


@functools.lru_cache(maxsize=None)
def _module_file(name: str) -> Path | None:
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.origin or not spec.origin.endswith(".py"):
        return None
    return Path(spec.origin)


@dataclass(frozen=True)
class _Imports:
    """What one module's source brings in from the toolkit."""

    modules: frozenset[str]  # imported modules, with the packages that importing them runs
    named_from: frozenset[str]  # packages that names (not submodules) are taken from
    by_name: frozenset[str]  # modules named in strings (or "module:attribute"), imported at run time
    strings: frozenset[str]  # every other string constant (game names among them)


def _imported_toolkit_modules(name: str, path: Path) -> _Imports:
    """``gamut.*`` modules a module's source imports anywhere (function-level and by-name imports included)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found, named_from, by_name, strings = set(), set(), set(), set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{parent}.{base}" if base else parent
            found.add(base)
            # ``from gamut.x import y`` names a module or something defined in (or re-exported by) gamut.x.
            for alias in node.names:
                if _module_file(f"{base}.{alias.name}"):
                    found.add(f"{base}.{alias.name}")
                else:
                    named_from.add(base)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            # A "module:attribute" reference (an agent table's factory) imports its module at run time.
            module = node.value.partition(":")[0]
            if _DOTTED.fullmatch(module) and _module_file(module):
                by_name.add(module)
            else:
                strings.add(node.value)

    def toolkit(modules):
        # Importing a.b.c runs the packages a.b and a too.
        return frozenset(".".join(parts[:i]) for parts in (m.split(".") for m in modules)
                         for i in range(2, len(parts) + 1) if parts[0] == "gamut")

    return _Imports(toolkit(found), frozenset(m for m in named_from if m.startswith("gamut.")),
                    toolkit(by_name), frozenset(strings))


@functools.lru_cache(maxsize=None)
def _scan(path: Path, name: str, mtime_ns: int) -> tuple[str, _Imports]:
    """Hash and toolkit imports of one module file (cached while the file is unchanged)."""
    return source_hash(path.read_text()), _imported_toolkit_modules(name, path)


@functools.lru_cache(maxsize=None)
def _games() -> dict[str, tuple[str, ...]]:
    """The toolkit's games: short name -> every module of its package under ``gamut.envs``."""
    envs = _module_file("gamut.envs")
    if envs is None:
        return {}
    return {folder.name: tuple(f"gamut.envs.{folder.name}" + ("" if f.stem == "__init__" else f".{f.stem}")
                               for f in sorted(folder.glob("*.py")))
            for folder in sorted(envs.parent.iterdir()) if (folder / "__init__.py").exists()}


@functools.lru_cache(maxsize=None)
def _agent_tables(game: str) -> tuple[str, ...]:
    """The agent tables of a game (its declaration's ``agents``), which the agent registry imports by name."""
    from gamut.envs.registry import declarations

    declaration = declarations().get(game)
    return declaration.agents if declaration is not None else ()


def _game_of(module: str) -> str | None:
    """The game a module belongs to (``gamut.envs.<game>...`` or ``gamut.solvers.<game>...``), if any."""
    parts = module.split(".")
    return parts[2] if len(parts) > 2 and parts[1] in ("envs", "solvers") and parts[2] in _games() else None


def _game_names(values) -> set[str]:
    """Toolkit games named by game strings among ``values`` (``"poke(mode=rubber)"`` names poke)."""
    names = set()
    for value in values:
        if isinstance(value, str):
            match = re.fullmatch(r"([a-z][a-z0-9_]*)(\(.*\))?", value.strip(), re.S)
            if match and match.group(1) in _games():
                names.add(match.group(1))
        elif isinstance(value, (list, tuple)):
            names |= _game_names(value)
    return names


def split_experiment_hash(source: str) -> tuple[str, str]:
    """Hashes of an experiment module's trial part and of its summary part.

    The summary part is every top-level function or class that neither
    ``run_trial``, ``trial_specs``, ``validate`` nor the module's own
    statements reach (``summarize`` and the helpers only it calls); the trial
    part is the rest. A change to the summary part alone leaves the trials
    standing: ``--resume`` redoes only the summary.

    Examples
    --------
    >>> a = "def run_trial(p, s, seed): return [{}]\\ndef summarize(t, p, w): return 'a'"
    >>> b = a.replace("'a'", "'b'")
    >>> [x == y for x, y in zip(split_experiment_hash(a), split_experiment_hash(b))]
    [True, False]
    """
    tree = ast.parse(source)
    defs = {node.name: node for node in tree.body
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}

    def referenced(nodes) -> set[str]:
        return {n.id for node in nodes for n in ast.walk(node) if isinstance(n, ast.Name) and n.id in defs}

    todo = [name for name in _TRIAL_ENTRY_POINTS if name in defs]
    todo += referenced(node for node in tree.body if node not in defs.values())
    reached: set[str] = set()
    while todo:
        name = todo.pop()
        if name not in reached:
            reached.add(name)
            todo.extend(referenced([defs[name]]))
    summary = [node for name, node in defs.items() if name not in reached]
    trial = ast.Module(body=[node for node in tree.body if all(node is not s for s in summary)], type_ignores=[])
    return _tree_hash(trial), _tree_hash(ast.Module(body=summary, type_ignores=[]))


def code_fingerprint(module_name: str, params: dict | None = None) -> dict[str, str]:
    """Source hash of an experiment's trial module and of every toolkit module it depends on.

    Returns ``{module name: source_hash}``, sorted by name, with the
    experiment module in two entries: its trial part under its name and its
    summary part under ``<name>:summarize`` (:func:`split_experiment_hash`).
    The runner's own modules (:data:`RUNNER_MODULES`) are left out.

    The modules are those the trial module imports, transitively
    (function-level imports and modules imported by name included), with
    three rules that keep one game's results apart from another game's code:

    - a game is one unit: a module of ``gamut.envs.<game>`` brings in the
      whole package, and so does a game the trial module or the config
      names in a game string (``params``), since a game is loaded by name;
    - a package initializer's own imports count only where names are taken
      from the package (``import gamut.envs`` registers every game, which
      makes none of them a dependency);
    - a registry's by-name import of a game's solvers counts only for the
      games in use; so do the agent tables the agent registry reads from the
      declarations of the games in use, and the factories they reference.

    A result made by code with the same fingerprint is reproduced by today's code.
    """
    hashes: dict[str, str] = {}
    followed: set[str] = set()
    quiet_inits: dict[str, frozenset[str]] = {}  # initializers visited whose imports do not count (yet)
    waiting: dict[str, set[str]] = {}  # game -> registry entries for it, counted once the game is in use
    wanted_inits: set[str] = set()
    games: set[str] = set()
    todo = [module_name]

    def use_game(game: str) -> None:
        if game not in games:
            games.add(game)
            todo.extend(_games()[game])
            todo.extend(waiting.pop(game, ()))
            if AGENT_REGISTRY in followed:
                todo.extend(_agent_tables(game))

    while todo:
        name = todo.pop()
        if name in followed or name in RUNNER_MODULES:
            continue
        path = _module_file(name)
        if path is None:
            continue
        hashes[name], imports = _scan(path, name, path.stat().st_mtime_ns)
        if name == module_name:
            for game in _game_names(imports.strings) | _game_names((params or {}).values()):
                use_game(game)
        if path.name == "__init__.py" and name != module_name and name not in wanted_inits:
            quiet_inits[name] = imports.modules
            continue
        followed.add(name)
        todo.extend(imports.modules)
        if name == AGENT_REGISTRY:
            todo.extend(table for game in games for table in _agent_tables(game))
        for package in imports.named_from:
            wanted_inits.add(package)
            todo.extend(quiet_inits.pop(package, ()))
        for entry in imports.by_name:
            game = _game_of(entry)
            if game is None or game in games:
                todo.append(entry)
            else:
                waiting.setdefault(game, set()).add(entry)
        if _game_of(name) is not None and name.startswith("gamut.envs."):
            use_game(_game_of(name))
    path = _module_file(module_name)
    if path is not None:
        hashes[module_name], hashes[module_name + SUMMARY_PART] = split_experiment_hash(path.read_text())
    return dict(sorted(hashes.items()))


def _sources_at(commit: str, paths: dict[str, str]) -> dict[str, str | None] | None:
    """Source of each module (by repository path) at ``commit``; None where absent, None overall without git."""
    request = "".join(f"{commit}:{path}\n" for path in paths.values())
    try:
        out = subprocess.run(["git", "cat-file", "--batch"], cwd=REPO_ROOT, input=request.encode(),
                             capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    sources: dict[str, str | None] = {}
    position = 0
    for name in paths:
        end = out.index(b"\n", position)
        header = out[position:end].split()
        if len(header) == 3 and header[1] == b"blob":
            size = int(header[2])
            sources[name] = out[end + 1:end + 1 + size].decode(errors="replace")
            position = end + 1 + size + 1
        else:
            sources[name] = None
            position = end + 1
    return sources


def code_changed_since(commit: str, code_now: dict[str, str]) -> list[str] | None:
    """Modules of ``code_now`` whose code differs at ``commit`` (for results that predate code fingerprints).

    Returns None when the commit cannot be read (no git, or not in this clone).
    """
    paths = {}
    for name in {name.removesuffix(SUMMARY_PART) for name in code_now}:
        path = _module_file(name)
        if path is None or not path.is_relative_to(REPO_ROOT):
            return None
        paths[name] = path.relative_to(REPO_ROOT).as_posix()
    sources = _sources_at(commit.removesuffix("-dirty"), paths)
    if sources is None or all(source is None for source in sources.values()):
        return None
    changed = []
    for name in sorted(code_now):
        module = name.removesuffix(SUMMARY_PART)
        source = sources[module]
        try:
            if source is None:
                then = None
            elif module + SUMMARY_PART in code_now:
                # The experiment module: its trial and summary parts are compared apart.
                then = split_experiment_hash(source)[name.endswith(SUMMARY_PART)]
            else:
                then = source_hash(source)
        except SyntaxError:
            then = None
        if then != code_now[name]:
            changed.append(name)
    return changed


def _modules_phrase(names: list[str], shown: int = 4) -> str:
    more = f" and {len(names) - shown} more" if len(names) > shown else ""
    return ", ".join(names[:shown]) + more


def staleness(meta: dict, params: dict, version: int, code_now: dict[str, str]) -> list[str]:
    """Why published results no longer match today's config and code; empty when they are fresh.

    Parameters
    ----------
    meta : dict
        The results' ``metadata.json``.
    params, version :
        Today's resolved config parameters and experiment ``VERSION``.
    code_now : dict
        Today's :func:`code_fingerprint` of the experiment's module.
    """
    reasons = []
    config = meta.get("config") if isinstance(meta.get("config"), dict) else {}
    old_params = config.get("params") if isinstance(config.get("params"), dict) else {}
    changes = [f"{name}: {old_params.get(name, '<absent>')!r} -> {params.get(name, '<absent>')!r}"
               for name in sorted(set(old_params) | set(params)) if old_params.get(name) != params.get(name)]
    if changes:
        reasons.append("config changed (" + "; ".join(changes) + ")")
    if meta.get("experiment_version") != version:
        reasons.append(f"made by an older toolkit (experiment version {meta.get('experiment_version')}, "
                       f"now {version})")
    recorded = meta.get("fingerprints", {}).get("code") if isinstance(meta.get("fingerprints"), dict) else None
    if recorded == {}:
        reasons.append("made by an older toolkit (its trials were started before code fingerprints were recorded)")
        return reasons
    if isinstance(recorded, dict):
        today = dict(code_now)
        for part in [name for name in today if name.endswith(SUMMARY_PART)]:
            module = part.removesuffix(SUMMARY_PART)
            path = _module_file(module)
            if part not in recorded and path is not None:
                # Recorded before the summary part was kept apart: compare the whole module.
                del today[part]
                today[module] = source_hash(path.read_text())
        # A module that is no longer a dependency changed its importer, which is compared.
        changed = sorted(name for name in today if recorded.get(name) != today[name])
        trials = [name for name in changed if not name.endswith(SUMMARY_PART)]
        if trials:
            reasons.append(f"code of {_modules_phrase(trials)} changed")
        elif changed:
            reasons.append(f"summary code of {changed[0].removesuffix(SUMMARY_PART)} changed (the trials stand: "
                           "`--resume` with the run's journal redoes the summary)")
        return reasons
    commit = str(meta.get("git_commit") or "")
    changed = code_changed_since(commit, code_now) if commit else None
    if changed:
        reasons.append(f"made by an older toolkit (no code fingerprint recorded; since its commit {commit[:12]}, "
                       f"code of {_modules_phrase(changed)} changed)")
    elif changed is None:
        reasons.append(f"made by an older toolkit (no code fingerprint recorded, and its commit "
                       f"{commit[:12] or '(none)'} cannot be read here)")
    elif commit.endswith("-dirty"):
        reasons.append(f"made by an older toolkit (no code fingerprint recorded; its commit {commit[:12]} has "
                       "today's code, but the checkout had uncommitted changes)")
    return reasons


def command_record(argv: list[str], program: str = "gamut") -> dict:
    """Provenance of a result a command wrote itself (outside ``gamut run``): versions, commit, machine, command.

    ``argv`` is the command's words after ``program``: ``args.argv`` of
    :func:`gamut.experiments.cli.main` after ``gamut`` (the default), or a
    study's flags after ``program="python -m gamut.experiments.studies.NAME"``,
    so that the recorded command runs as written:

    >>> command_record(["play", "--deals", "10"], program="python -m gamut.experiments.studies.x")["command"]
    'python -m gamut.experiments.studies.x play --deals 10'
    """
    import shlex
    import time

    return {"toolkit_version": toolkit_version(), "game_versions": game_versions(), "git_commit": git_commit(),
            "command": shlex.join([*program.split(), *argv]), "machine": machine(),
            "finished_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
