"""One registry for every agent of every game.

Every agent is created by name with keyword options and is a ``pyspiel.Bot``,
so OpenSpiel's ``evaluate_bots``, the experiment runner and the CLI treat all
agents alike::

    >>> import pyspiel
    >>> bot = make_bot(pyspiel.load_game("kuhn_poker"), "random", player=0, seed=3)
    >>> "random" in bot_names("kuhn_poker")
    True

Every function that takes a game takes a ``pyspiel.Game`` or a game string
(``make_bot("kuhn_poker", "ismcts")``), loaded by :func:`gamut.envs.loading.load_game`.

Agents are registered by tables: :mod:`gamut.solvers.agents` holds the
generic agents, and each game's declaration (``GAME.agents``) names the
modules holding its own (``gamut.solvers.<game>.agents``). A table calls
:func:`register_bot` for each agent, naming the games it plays (pyspiel short
names, or ``"*"`` for any game), its options with types and defaults, and its
factory ``factory(game, player, seed, **options)``, given as a
``"module:function"`` reference. The references are resolved when an agent is
made, so listing and describing agents imports no search, network or solved
table. Unknown agent names or options fail with the list of valid ones.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pyspiel

from gamut.envs.declaration import resolve
from gamut.solvers.seat_bots import PolicyBot

ANY_GAME = "*"
# The table of the agents that play any game; each game's own tables are named by its declaration.
GENERIC_TABLE = "gamut.solvers.agents"


# Ceilings of an agent's budget options: far above any strength the experiments use, far below a
# search that never answers (ISMCTS with 10**15 iterations was still on its first move after 20 s).
MAX_ITERATIONS_PER_MOVE = 10**6
MAX_SECONDS_PER_MOVE = 600.0
MAX_SECONDS_PER_GAME = 3600.0


def _number(value: float) -> str:
    """``1,000,000`` for an int, ``600`` or ``0.5`` for a float."""
    return format(value, ",g" if isinstance(value, float) else ",")


@dataclass(frozen=True)
class Option:
    """A keyword option of an agent: its type, default, meaning and, for a budget, its ``maximum``."""

    type: type
    default: object
    help: str
    required: bool = False
    maximum: float | None = None

    def check(self, bot: str, name: str, value):
        if self.type is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if isinstance(value, bool) and self.type is not bool or not isinstance(value, self.type):
            raise ValueError(
                f"agent {bot!r} option {name!r} takes {self.type.__name__}, got {value!r}"
            )
        # Written so that NaN fails too.
        if self.maximum is not None and not value <= self.maximum:
            raise ValueError(f"agent {bot!r} option {name!r} takes at most {_number(self.maximum)}, got {value!r}")
        return value


def search_options(iterations: int, uct_c: float | None = None) -> dict[str, Option]:
    """The budget options every tree search shares: ``iterations``, ``seconds`` and, for UCB selection, ``uct_c``.

    >>> sorted(search_options(200, uct_c=1.0))
    ['iterations', 'seconds', 'uct_c']
    """
    options = {
        "iterations": Option(int, iterations, "search iterations per move (used when seconds is 0)",
                             maximum=MAX_ITERATIONS_PER_MOVE),
        "seconds": Option(float, 0.0, "wall-clock seconds per move; 0 uses iterations", maximum=MAX_SECONDS_PER_MOVE),
    }
    if uct_c is not None:
        options["uct_c"] = Option(float, uct_c, "UCB exploration constant, in units of the observed payoff spread")
    return options


def prior_options(c_puct: float, temperature: float, mix: float, weights_help: str) -> dict[str, Option]:
    """The options of a search under a policy network's priors (PUCT): c_puct, temperature, mix, weights.

    >>> list(prior_options(0.5, 10.0, 0.25, "prior network"))
    ['c_puct', 'temperature', 'mix', 'weights']
    """
    return {
        "c_puct": Option(float, c_puct, "PUCT exploration constant, in units of the observed payoff spread"),
        "temperature": Option(float, temperature, "temperature of the prior's softmax (> 0)"),
        "mix": Option(float, mix, "weight of the uniform distribution mixed into the prior, in [0, 1]"),
        "weights": Option(str, "", weights_help),
    }


Factory = Callable[..., pyspiel.Bot] | str
Supports = Callable[[pyspiel.Game], str | None] | str | None


def _resolved(reference):
    """The callable a ``"module:function"`` reference names (a callable is returned as it is)."""
    return resolve(reference) if isinstance(reference, str) else reference


@dataclass(frozen=True)
class BotSpec:
    """A registered agent.

    ``factory`` and ``supports`` are callables or ``"module:function"``
    references, resolved only when the agent is made or its refusal asked.
    """

    name: str
    games: tuple[str, ...]
    factory: Factory
    description: str
    options: dict[str, Option] = field(default_factory=dict)
    supports: Supports = None
    lifted_by: str = ""

    def plays(self, game_name: str) -> bool:
        return ANY_GAME in self.games or game_name in self.games

    def refusal(self, game: pyspiel.Game, options: dict | None = None) -> str | None:
        """Why this agent cannot play this variant of the game with ``options``, or None if it can."""
        if self.supports is None or (self.lifted_by and (options or {}).get(self.lifted_by)):
            return None
        return _resolved(self.supports)(game)

    def build(self, game: pyspiel.Game, player: int, seed: int, **options) -> pyspiel.Bot:
        """The agent from its factory (imported now if given by reference), with checked ``options``."""
        return _resolved(self.factory)(game, player, seed, **options)


_REGISTRY: dict[str, list[BotSpec]] = {}


def register_bot(
    name: str,
    games: tuple[str, ...] | str,
    factory: Factory,
    description: str,
    options: dict[str, Option] | None = None,
    supports: Supports = None,
    lifted_by: str = "",
) -> None:
    """Register an agent under ``name`` for ``games`` (short names, or ``"*"``).

    ``factory`` is ``"module:function"`` (imported when the agent is first
    made) or the function itself. ``supports(game)``, a function or a
    reference kept light (listing the agents of a variant calls it), returns
    why the agent cannot play that variant (e.g. a policy solved for one deck
    size), or None when it can; agents that cannot play a variant are not
    listed for it. A non-empty option named by
    ``lifted_by`` lifts the refusal (a weights file of the user's own for a
    variant with none shipped): the agent's factory then checks that option.
    """
    games = (games,) if isinstance(games, str) else tuple(games)
    spec = BotSpec(name, games, factory, description, dict(options or {}), supports, lifted_by)
    specs = _REGISTRY.setdefault(name, [])
    clash = [s for s in specs if set(s.games) & set(games)]
    if clash:
        raise ValueError(f"agent {name!r} is already registered for {', '.join(clash[0].games)}")
    # Game-specific agents come before generic ones of the same name.
    specs.insert(0 if ANY_GAME not in games else len(specs), spec)


def _game_name(game: pyspiel.Game) -> str:
    return game.get_type().short_name


def _as_game(game: pyspiel.Game | str) -> pyspiel.Game:
    """``game`` loaded (a game string) or as it is (a ``pyspiel.Game``); TypeError for anything else."""
    from gamut.envs.loading import load_game

    return load_game(game)


def _load_tables() -> None:
    """Import the generic agent table and every declared game's tables (each registers once)."""
    from gamut.envs.registry import declarations

    importlib.import_module(GENERIC_TABLE)
    for declaration in declarations().values():
        for module in declaration.agents:
            importlib.import_module(module)


def _specs_for_game(game: pyspiel.Game) -> dict[str, BotSpec]:
    _load_tables()
    name = _game_name(game)
    found = {}
    for bot_name, specs in sorted(_REGISTRY.items()):
        for spec in specs:
            if spec.plays(name):
                found[bot_name] = spec
                break
    return found


def bot_specs(game: pyspiel.Game | str) -> dict[str, BotSpec]:
    """The agents that play ``game`` (this variant, with its parameters; a game or a game string), by name."""
    game = _as_game(game)
    return {name: spec for name, spec in _specs_for_game(game).items() if spec.refusal(game) is None}


def bot_names(game: pyspiel.Game | str) -> list[str]:
    """Names of the agents that play ``game`` (a game or a game string)."""
    return list(bot_specs(game))


def describe_bots(game: pyspiel.Game | str) -> str:
    """Readable list of the agents of ``game`` (a game or a game string) with their options."""
    lines = []
    for name, spec in bot_specs(game).items():
        lines.append(f"{name}: {spec.description}")
        for opt_name, opt in spec.options.items():
            default = "required" if opt.required else f"default {opt.default!r}"
            default += "" if opt.maximum is None else f", at most {_number(opt.maximum)}"
            lines.append(f"    {opt_name} ({opt.type.__name__}, {default}): {opt.help}")
    return "\n".join(lines)


def make_bot(game: pyspiel.Game | str, name: str, player: int = 0, seed: int = 0, **options) -> pyspiel.Bot:
    """Create agent ``name`` for ``player`` in ``game`` with keyword ``options``.

    Parameters
    ----------
    game : pyspiel.Game or str
        The loaded game, or a game string to load (its parameters matter to
        some agents).
    name : str
        A registered agent name; see :func:`bot_names`.
    player : int
        The seat the bot plays.
    seed : int
        Seed of the bot's own randomness (same seed, same play).
    **options
        The agent's options; unknown ones raise ValueError listing the valid ones.

    Raises
    ------
    TypeError
        When ``game`` is neither a ``pyspiel.Game`` nor a str.
    """
    game = _as_game(game)
    specs = _specs_for_game(game)
    if name not in specs:
        available = ", ".join(bot_specs(game)) or "none"
        raise ValueError(f"unknown agent {name!r} for {_game_name(game)}; available: {available}")
    spec = specs[name]
    reason = spec.refusal(game, options)
    if reason is not None:
        raise ValueError(f"agent {name!r} cannot play {game}: {reason}")
    unknown = sorted(set(options) - set(spec.options))
    if unknown:
        valid = ", ".join(spec.options) or "none"
        raise ValueError(f"agent {name!r} has no option {unknown[0]!r}; its options: {valid}")
    if not 0 <= player < game.num_players():
        raise ValueError(f"player {player} is not a seat of {_game_name(game)} (0..{game.num_players() - 1})")
    missing = [key for key, opt in spec.options.items() if opt.required and key not in options]
    if missing:
        raise ValueError(f"agent {name!r} needs option {missing[0]!r}: {spec.options[missing[0]].help}")
    resolved = {key: opt.default for key, opt in spec.options.items()}
    resolved.update({key: spec.options[key].check(name, key, value) for key, value in options.items()})
    return spec.build(game, player, seed, **resolved)


class UniformRandomBot(PolicyBot):
    """Plays a uniformly random legal action, from its own seeded generator."""

    def __init__(self, player: int, seed: int):
        super().__init__(player)
        self._rng = np.random.default_rng(seed)

    def _policy(self, state, legal):
        prob = 1.0 / len(legal)
        return [(a, prob) for a in legal], int(legal[self._rng.integers(len(legal))])


def make_random_bot(game: pyspiel.Game, player: int, seed: int) -> UniformRandomBot:
    """Registry factory of ``random``: a :class:`UniformRandomBot` (any game)."""
    return UniformRandomBot(player, seed)
