"""The bot of the ``ismcts`` agent: :class:`gamut.solvers.ismcts.ISMCTS` as a ``pyspiel.Bot``.

Listed for every game by :mod:`gamut.solvers.agents`; creating it for a game
ISMCTS cannot search (simultaneous moves, or imperfect information without
``resample_from_infostate``) raises ValueError saying why::

    >>> bot = make_bot(pyspiel.load_game("leduc_poker"), "ismcts", player=0, seed=1,
    ...                iterations=500)                               # doctest: +SKIP
    >>> make_bot(pyspiel.load_game("liars_dice"), "ismcts")          # doctest: +SKIP
    ValueError: ISMCTS needs states that implement resample_from_infostate; liars_dice does not (...)

A game whose states define ``rollout_returns(seed)`` gets its own fast
play-outs by default (``rollout="auto"``; see :mod:`gamut.solvers.ismcts` for the protocol).
"""

from __future__ import annotations

import math

import numpy as np
import pyspiel

from gamut.solvers.ismcts import DEFAULT_UCT_C, EVALUATOR_NAMES, ISMCTS, SearchResult
from gamut.solvers.seat_bots import SeatBot

DEFAULT_ITERATIONS = 200


class ISMCTSBot(SeatBot):
    """Plays the most visited root action of a fresh ISMCTS search at each of its moves.

    Parameters
    ----------
    game : pyspiel.Game
        The game (checked by :func:`gamut.solvers.ismcts.require_searchable`).
    player : int
        The seat the bot plays.
    seed : int
        Seeds the bot's generator: the same seed and iteration budget give the same play.
    iterations : int
        Iterations per move (>= 1); used when ``seconds`` is 0.
    seconds : float
        Wall-clock budget per move (> 0), or 0 to use ``iterations``.
    uct_c : float
        Exploration constant in units of the observed payoff spread.
    rollout : str
        Leaf evaluator: ``auto``, ``api`` or ``state`` (see :func:`gamut.solvers.search.leaf.make_evaluator`).
    rollouts : int
        Play-outs averaged per leaf.
    """

    name = "ismcts"

    def __init__(self, game: pyspiel.Game, player: int, seed: int, iterations: int = DEFAULT_ITERATIONS,
                 seconds: float = 0.0, uct_c: float = DEFAULT_UCT_C, rollout: str = "auto",
                 rollouts: int = 1):
        super().__init__(player)
        if isinstance(iterations, bool) or not isinstance(iterations, int) or iterations < 1:
            raise ValueError(f"ismcts option 'iterations' must be >= 1, got {iterations!r}")
        if not 0 <= seconds < math.inf:
            raise ValueError(f"ismcts option 'seconds' must be >= 0 (0: use iterations), got {seconds!r}")
        self._search = ISMCTS(game, uct_c=uct_c, evaluator=self._evaluator(game, rollout), rollouts=rollouts)
        self._rng = np.random.default_rng(seed)
        self._budget = {"seconds": float(seconds)} if seconds > 0 else {"iterations": iterations}
        self.last_search: SearchResult | None = None

    def _evaluator(self, game: pyspiel.Game, rollout: str):
        """The leaf evaluator named by the ``rollout`` option (a game's bot may override it)."""
        if rollout not in EVALUATOR_NAMES:
            names = ", ".join(EVALUATOR_NAMES)
            raise ValueError(f"ismcts option 'rollout' must be one of {names}, got {rollout!r}")
        return rollout

    def _search_root(self, state: pyspiel.State) -> pyspiel.State:
        """The state the search starts from: the real one (a game's bot may model it instead)."""
        return state

    def provides_policy(self) -> bool:
        return True

    def step_with_policy(self, state) -> tuple[list[tuple[int, float]], int]:
        """The root's visit fractions and the most visited action (no search with one legal action)."""
        self.check_turn(state)
        legal = state.legal_actions()
        if len(legal) == 1:
            return [(legal[0], 1.0)], legal[0]
        self.last_search = self._search.search(self._search_root(state), self._rng, **self._budget)
        return self.last_search.policy(), self.last_search.best_action()

    def step(self, state) -> int:
        return self.step_with_policy(state)[1]


def make_ismcts_bot(game, player: int, seed: int, **options) -> ISMCTSBot:
    """Registry factory: an :class:`ISMCTSBot` (ValueError if ``game`` cannot be searched)."""
    return ISMCTSBot(game, player, seed, **options)

