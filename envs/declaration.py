"""What a game tells the toolkit about itself: one :class:`GameDeclaration` in its own package.

A game package (``gamut.envs.<game>``, or any importable package named in
``$GAMUT_GAMES``) defines ``GAME = GameDeclaration(...)`` in its
``__init__.py``. Every generic layer reads these declarations, so a new game
is a new package (plus its solvers) and no generic file names it:

- ``gamut.envs.registry`` imports each declared ``game`` module (which
  registers the pyspiel game) and answers :func:`declaration_of`;
- the batched environments, PettingZoo and ``game_versions()`` read
  ``vector``, ``observation_bounds``, ``version`` and ``variants``;
- the agent registry imports ``agents``; the terminal session ``view``; the
  CLI ``commands`` and ``benchmarks``; batched self-play ``heuristic`` and
  ``running_score``; Deep Monte-Carlo ``action_features``.

References to code are import paths (``"package.module"``) or
``"package.module:attribute"``, resolved on first use, so a declaration costs
nothing to read and a lower layer never imports a higher one.

Worked example (a two-player game with a batched environment and agents)::

    GAME = GameDeclaration(
        name="count21",                       # pyspiel short name
        version=1,
        variants=("count21()", "count21(target=31)"),
        game="mygames.count21.game",          # importing it registers the pyspiel game
        vector="mygames.count21.vector:Count21Vector",
        agents=("mygames.count21.agents",),   # its agent table: calls register_bot
    )
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field


@dataclass(frozen=True)
class GameDeclaration:
    """Everything the generic layers need to know about one game.

    Attributes
    ----------
    name : str
        The pyspiel short name the game registers.
    version : int
        Bumped whenever rules, returns, observations or action ids change;
        result files record it.
    variants : tuple of str
        Game strings of the documented variants, default parameters first; the
        cross-game tests run each through pyspiel's conformance test,
        PettingZoo, OpenSpiel RL and the agent registry.
    game : str
        Module whose import registers the game with pyspiel.
    vector : str or None
        ``"module:Class"`` of its batched environment (a ``BatchedGame``).
    observation_bounds : (float, float)
        Every entry of the observation and information-state tensors lies in
        ``[low, high]`` (documented in the game's reference page).
    agents : tuple of str
        Modules holding the tables of the game's agents (each calls
        ``register_bot`` with ``"module:function"`` factories, so reading a
        table imports no search or network).
    view : str or None
        ``"module:attribute"`` of its terminal presentation (a ``TableView``).
    commands : tuple of str
        Modules of its ``gamut`` subcommands (each defines ``register(subparsers)``).
    benchmarks : dict of str to str
        ``gamut bench`` name -> benchmark module of its speed claims (a module
        may list more of the game's in its ``MORE_BENCHMARKS``, same form).
    bench_variant : str or None
        The game string ``gamut bench vector`` times for this game.
    bench_steps_per_s : float
        Steps per second on one core that its batched environment is built to
        reach at 1024 games (reported beside the measurement).
    play_baselines : dict of str to str
        Game string -> the agent ``gamut bench play_agents`` times beside
        terminal play's default opponent (the default it replaced).
    replots : dict of str to str
        Figure name -> ``"module:function"`` redrawing a figure of the game's
        own records (``python -m gamut.experiments.replot NAME``);
        ``function(results_root)`` returns the files written.
    heuristic : str or None
        ``"module:function"``; ``function(game, seed)`` returns the batched
        rule-of-thumb player seated in self-play (``actions(states, rows)``,
        ``state()``, ``load_state(arrays)``).
    running_score : str or None
        ``"module:function"``; ``function(game)`` returns ``env -> float64 (N,)``,
        the score built up so far in each row of a one-player batched game,
        or raises ``ValueError`` for a variant without one.
    action_features : str or None
        ``"module:function"``; ``function(game)`` returns a callable
        ``(inputs, mask) -> float32 (N, A, F)``, features of every action of
        every row from the network input rows (observation or information
        state of the player to move, then the seat one-hot) and the legal
        mask: a subclass of ``gamut.envs.action_features.ActionFeatures``
        (attributes ``size`` = ``F``, ``one_hot`` False, ``return_scale``: a
        typical return's size). Without one,
        Deep Monte-Carlo describes an action by its id's one-hot.
    paired_match : str or None
        ``"module:attribute"`` of a ``gamut.solvers.paired_match.PairedMatch``:
        how two agents meet in a paired, seat-balanced match of the game (the
        game string, what one sample is, the function playing sample ``i``),
        read by head-to-head studies such as
        ``gamut.experiments.studies.nn_ismcts_match``.
    """

    name: str
    version: int
    game: str
    variants: tuple[str, ...] = ()
    vector: str | None = None
    observation_bounds: tuple[float, float] = (0.0, 1.0)
    agents: tuple[str, ...] = ()
    view: str | None = None
    commands: tuple[str, ...] = ()
    benchmarks: dict[str, str] = field(default_factory=dict)
    bench_variant: str | None = None
    bench_steps_per_s: float = 0.0
    play_baselines: dict[str, str] = field(default_factory=dict)
    replots: dict[str, str] = field(default_factory=dict)
    heuristic: str | None = None
    running_score: str | None = None
    action_features: str | None = None
    paired_match: str | None = None

    def __post_init__(self):
        if not self.name.isidentifier():
            raise ValueError(f"a game's name must be an identifier (a pyspiel short name), got {self.name!r}")
        if isinstance(self.version, bool) or not isinstance(self.version, int) or self.version < 1:
            raise ValueError(f"{self.name}: version must be a whole number >= 1, got {self.version!r}")
        low, high = self.observation_bounds
        if not low <= high:
            raise ValueError(f"{self.name}: observation_bounds must be (low, high) with low <= high, "
                             f"got {self.observation_bounds!r}")
        if not self.variants:
            object.__setattr__(self, "variants", (f"{self.name}()",))


def resolve(reference: str):
    """The object a ``"module:attribute"`` reference names (a plain ``"module"`` names the module).

    >>> resolve("gamut.envs.declaration:resolve") is resolve
    True
    """
    module_name, _, attribute = reference.partition(":")
    module = importlib.import_module(module_name)
    return getattr(module, attribute) if attribute else module
