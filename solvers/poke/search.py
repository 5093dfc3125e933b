"""ISMCTS for Poke: the generic search (``solvers.ismcts``) over the current deal, with kernel play-outs.

Each decision searches the *current deal* as a one-deal game
(``solvers.poke.policies.current_deal``): earlier deals reach the future only
through the score sheet, and the deal is valued like the deal agents value
it, above-the-line points plus ``trick_value`` per below-the-line point (the
measured worth of a trick point, ``solvers.poke.point_value``).

The search runs on ``DealState``, a light stand-in for the pyspiel state of
that deal: the same kernel array, the same legal actions, chance outcomes and
returns, and ``envs.poke.resample`` for determinizations, but actions applied
by one kernel call and information sets keyed by ``information_key`` (a few
integers instead of the game's string). This makes an iteration several times
cheaper; the search itself is ``solvers.ismcts`` unchanged.

Leaves are valued by ``PokeRollout``, a leaf evaluator of the protocol of
``solvers.ismcts``: it plays the deal to its end in a compiled loop on a copy
of the state array, both players following the heuristic
(``solvers.poke.heuristic``, default thresholds) or uniformly random legal
actions, chance drawing each card uniformly from the stock.
"""

from __future__ import annotations

import numba
import numpy as np
import pyspiel

from envs.poke import kernels as K
from envs.poke.resample import resample
from solvers.ismcts import ISMCTS
from solvers.poke.bots import require_poke
from solvers.poke.heuristic import DEFAULT_PARAMS, heuristic_action
from solvers.poke.match import _splitmix
from solvers.poke.policies import DEFAULT_TRICK_VALUE, current_deal, deal_game_for
from solvers.poke.walker import information_key

PLAYOUTS = ("heuristic", "random")


@numba.njit(cache=True)
def _random_below(x, n):
    return np.int64(x % np.uint64(n))


@numba.njit(cache=True)
def _play_out(state, cfg, params, use_heuristic, seed, buf):
    # Play the deal of `state` to its end in place; chance and random choices from a splitmix64 counter.
    x = np.uint64(seed)
    while state[K.S_PHASE] != K.PH_OVER:
        x = _splitmix(x)
        p = K.current_player(state)
        if p < 0:
            stock = K.stock_mask(state, cfg)
            for _ in range(_random_below(x, K.popcount(stock))):
                stock &= stock - 1
            K.apply_action(state, cfg, K.lowest_card(stock))
        elif use_heuristic:
            K.apply_action(state, cfg, heuristic_action(state, cfg, params))
        else:
            n = K.legal_actions(state, cfg, buf)
            K.apply_action(state, cfg, buf[_random_below(x, n)])


def play_out_returns(state_array: np.ndarray, cfg: np.ndarray, trick_value: float, seed: int,
                     playout: str = "heuristic") -> np.ndarray:
    """Returns (``float64``, ``(2,)``) at the end of a play-out of a copy of a one-deal state array."""
    if cfg[K.C_MODE] != K.MODE_DEAL:
        raise ValueError("play-outs value one deal: cfg must be of a mode=deal game")
    if playout not in PLAYOUTS:
        raise ValueError(f"unknown play-out {playout!r}; choose one of {', '.join(PLAYOUTS)}")
    work = state_array.copy()
    _play_out(work, cfg, np.array(DEFAULT_PARAMS, dtype=np.int64), playout == "heuristic",
              np.uint64(seed), np.empty(64, dtype=np.int64))
    out = np.zeros(2)
    K.returns(work, cfg, trick_value, out)
    return out


class _DealGame:
    """What ``envs.poke.resample`` and ``DealState`` need of the one-deal game."""

    def __init__(self, game: pyspiel.Game):
        self.cfg = game.cfg
        self.trick_value = game.trick_value
        self.num_actions = game.num_distinct_actions()

    def new_initial_state(self) -> "DealState":
        state = np.empty(K.STATE_SIZE, dtype=np.int64)
        K.init_state(state, self.cfg)
        return DealState(self, state, [])


class DealState:
    """One deal of Poke for the search: the kernel array, its history, and the pyspiel methods ISMCTS calls.

    ``information_state_string`` returns ``information_key`` (bytes), which
    the search only uses as a dictionary key. Actions are applied unchecked:
    the search applies only actions it took from ``legal_actions`` and
    ``chance_outcomes``.
    """

    def __init__(self, game: _DealGame, state: np.ndarray, history: list):
        self._game = game
        self.cfg = game.cfg
        self.trick_value = game.trick_value
        self.state = state
        self._history = history

    @classmethod
    def of(cls, pyspiel_state) -> "DealState":
        """The stand-in of a one-deal pyspiel Poke state."""
        return cls(_DealGame(pyspiel_state.get_game()), pyspiel_state.state.copy(), pyspiel_state.history())

    def get_game(self) -> _DealGame:
        return self._game

    def history(self) -> list:
        return list(self._history)

    def current_player(self) -> int:
        return int(K.current_player(self.state))

    def is_terminal(self) -> bool:
        return bool(self.state[K.S_PHASE] == K.PH_OVER)

    def legal_actions(self) -> list:
        buf = np.empty(64, dtype=np.int64)
        return buf[:K.legal_actions(self.state, self.cfg, buf)].tolist()

    def chance_outcomes(self) -> list:
        buf = np.empty(52, dtype=np.int64)
        n = K.chance_outcomes(self.state, self.cfg, buf)
        return [(c, 1.0 / n) for c in buf[:n].tolist()]

    def apply_action(self, action: int) -> None:
        K.apply_action(self.state, self.cfg, action)
        self._history.append(action)

    def returns(self) -> list:
        out = np.zeros(2)
        K.returns(self.state, self.cfg, self.trick_value, out)
        return out.tolist()

    def information_state_string(self, player: int) -> bytes:
        return information_key(self.state, player)

    def clone(self) -> "DealState":
        return DealState(self._game, self.state.copy(), list(self._history))

    def resample_from_infostate(self, player: int, probability_sampler) -> "DealState":
        return resample(self, player, probability_sampler)


class PokeRollout:
    """Leaf evaluator ``evaluate(state, seed) -> returns`` for one-deal Poke states (the ISMCTS protocol)."""

    def __init__(self, playout: str = "heuristic"):
        if playout not in PLAYOUTS:
            raise ValueError(f"unknown play-out {playout!r}; choose one of {', '.join(PLAYOUTS)}")
        self.playout = playout

    def __call__(self, state, seed: int) -> np.ndarray:
        return play_out_returns(state.state, state.cfg, state.trick_value, seed, self.playout)


class PokeISMCTSBot(pyspiel.Bot):
    """Searches each decision of any Poke mode with ISMCTS over the current deal."""

    def __init__(self, game: pyspiel.Game, player: int, seed: int, iterations: int, uct_c: float,
                 trick_value: float, playout: str):
        pyspiel.Bot.__init__(self)
        require_poke(game)
        if iterations < 1:
            raise ValueError(f"iterations must be >= 1, got {iterations}")
        self._player = player
        self._deal_game = deal_game_for(game, trick_value)
        self._search = ISMCTS(self._deal_game, uct_c=uct_c, evaluator=PokeRollout(playout))
        self._iterations = iterations
        self._rng = np.random.default_rng(seed)

    def player_id(self) -> int:
        return self._player

    def restart_at(self, state) -> None:
        """Nothing to reset: every search starts afresh."""

    def inform_action(self, state, player, action) -> None:
        """Nothing to remember: the search reads the history of the state it is given."""

    def step(self, state) -> int:
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        deal, seat = current_deal(self._deal_game, state, self._player)
        if deal.current_player() != seat:
            raise ValueError("the bot was asked to move for another seat")
        result = self._search.search(DealState.of(deal), self._rng, iterations=self._iterations)
        return int(result.best_action())


def make_ismcts_bot(game, player: int, seed: int, iterations: int, uct_c: float, trick_value: float,
                    playout: str) -> PokeISMCTSBot:
    """Registry factory of the Poke ``ismcts`` agent."""
    return PokeISMCTSBot(game, player, seed, iterations, uct_c, trick_value, playout)


DEFAULT_ITERATIONS = 400
__all__ = ["DEFAULT_ITERATIONS", "DEFAULT_TRICK_VALUE", "PokeISMCTSBot", "PokeRollout", "make_ismcts_bot",
           "play_out_returns"]
