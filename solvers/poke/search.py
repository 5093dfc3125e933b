"""ISMCTS for Poke: the generic search (``gamut.solvers.ismcts``) over the current deal, with kernel play-outs.

Each decision searches the *current deal* as a one-deal game
(``gamut.solvers.poke.policies.current_deal``): earlier deals reach the future only
through the score sheet, and the deal is valued like the deal agents value
it, above-the-line points plus ``trick_value`` per below-the-line point (the
measured worth of a trick point, ``gamut.solvers.poke.point_value``).

The search runs on ``DealState``, a light stand-in for the pyspiel state of
that deal: the same kernel array, the same legal actions, chance outcomes and
returns, and ``gamut.envs.poke.resample`` for determinizations, but actions applied
by one kernel call and information sets keyed by ``information_key`` (a few
integers instead of the game's string). This makes an iteration several times
cheaper; the search itself is ``gamut.solvers.ismcts`` unchanged.

Leaves are valued by ``PokeRollout``, a leaf evaluator of the protocol of
``gamut.solvers.ismcts``: it plays the deal to its end in a compiled loop on a copy
of the state array, both players following the heuristic
(``gamut.solvers.poke.heuristic``, default thresholds) or uniformly random legal
actions, chance drawing each card uniformly from the stock.
"""

from __future__ import annotations

import math
import time

import numba
import numpy as np
import pyspiel

from gamut.envs.poke import kernels as K
from gamut.envs.poke.resample import resampled_deal
from gamut.envs.rng import splitmix64
from gamut.solvers.ismcts import ISMCTS
from gamut.solvers.poke.heuristic import DEFAULT_PARAMS, lowest_cards, discard_cards, heuristic_action, require_poke
from gamut.solvers.poke.policies import current_deal, deal_game_for
from gamut.solvers.poke.walker import information_key
from gamut.solvers.seat_bots import SeatBot

PLAYOUTS = ("heuristic", "random")


@numba.njit(cache=True)
def _random_below(x, n):
    return np.int64(x % np.uint64(n))


@numba.njit(cache=True)
def _play_out(state, cfg, params, use_heuristic, seed, buf):
    # Play the deal of `state` to its end in place; chance and random choices from a splitmix64 counter.
    x = np.uint64(seed)
    while state[K.S_PHASE] != K.PH_OVER:
        x = splitmix64(x)
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


@numba.njit(cache=True)
def _mean_play_out(state, cfg, params, use_heuristic, seed, trick_value, count, out):
    # Mean returns of `count` play-outs of copies of `state`, seeds spread by splitmix64.
    work = np.empty_like(state)
    buf = np.empty(64, dtype=np.int64)
    one = np.zeros(2)
    out[0] = 0.0
    out[1] = 0.0
    x = np.uint64(seed)
    for _ in range(count):
        x = splitmix64(x)
        work[:] = state
        _play_out(work, cfg, params, use_heuristic, x, buf)
        K.returns(work, cfg, trick_value, one)
        out[0] += one[0] / count
        out[1] += one[1] / count


def play_out_returns(state_array: np.ndarray, cfg: np.ndarray, trick_value: float, seed: int,
                     playout: str = "heuristic", count: int = 1) -> np.ndarray:
    """Mean returns (``float64``, ``(2,)``) of ``count`` play-outs of copies of a one-deal state array."""
    if cfg[K.C_MODE] != K.MODE_DEAL:
        raise ValueError("play-outs value one deal: cfg must be of a mode=deal game")
    if playout not in PLAYOUTS:
        raise ValueError(f"unknown play-out {playout!r}; choose one of {', '.join(PLAYOUTS)}")
    if count < 1:
        raise ValueError(f"count must be >= 1, got {count}")
    out = np.zeros(2)
    _mean_play_out(state_array, cfg, np.array(DEFAULT_PARAMS, dtype=np.int64), playout == "heuristic",
                   np.uint64(seed), float(trick_value), count, out)
    return out


@numba.njit(cache=True)
def _add_cards(hand, cards, base, out, n):
    # Append the action for `cards` unless already listed; returns the new count.
    action = base + K.cards_to_slots(hand, cards)
    for i in range(n):
        if out[i] == action:
            return n
    out[n] = action
    return n + 1


@numba.njit(cache=True)
def candidate_actions(state, cfg, out):
    """The searcher's candidate actions at a decision of ``state``, sorted, in ``out`` (``int64``, ``(64,)``).

    Returns how many. Draws: stand, or for each count ``k`` the keep rule's
    ``k`` discards (``heuristic.discard_cards``) or the ``k`` lowest cards.
    Leads: every legal lead. Replies: the cheapest beating play of each rank
    that beats, and the lowest cards as a throw-off when the kernels allow it
    (under ``follow=must_beat`` only when nothing beats). Suits never matter in
    tricks, so replies of one rank differ only in name; every candidate is a
    legal action, and the heuristic's choice is always among them.
    """
    phase = state[K.S_PHASE]
    p = K.current_player(state)
    n = 0
    if phase == K.PH_DRAW:
        hand = state[K.S_HAND + p]
        out[0] = K.STAND
        n = 1
        limit = min(cfg[K.C_MAX_DRAW], K.popcount(K.stock_mask(state, cfg)))
        for k in range(1, limit + 1):
            kept = discard_cards(hand, k)
            if kept:
                n = _add_cards(hand, kept, 0, out, n)
            n = _add_cards(hand, lowest_cards(hand, k), 0, out, n)
    else:
        lead = state[K.S_LEAD + state[K.S_TRICK]]
        if lead == 0:
            return K.legal_actions(state, cfg, out)
        hand = state[K.S_HAND + p]
        free = hand & ~state[K.S_PLAYED + p]
        base = np.int64(1) << cfg[K.C_HAND_SIZE]
        size = K.popcount(lead)
        lead_rank = K.lowest_card(lead) >> 2
        for r in range(lead_rank + 1, 13):
            same = free & (np.int64(15) << (4 * r))
            if K.popcount(same) >= size:
                n = _add_cards(hand, lowest_cards(same, size), base, out, n)
        n = _add_cards(hand, lowest_cards(free, size), base, out, n)
        n = _keep_legal(state, cfg, out, n)
    out[:n].sort()
    return n


@numba.njit(cache=True)
def _keep_legal(state, cfg, out, n):
    # Drop the candidates the kernels do not allow (a throw-off where the rules make the follower beat).
    legal = np.empty(2 << cfg[K.C_HAND_SIZE], dtype=np.int64)
    count = K.legal_actions(state, cfg, legal)
    kept = 0
    for i in range(n):
        for j in range(count):
            if legal[j] == out[i]:
                out[kept] = out[i]
                kept += 1
                break
    return kept


class _DealGame:
    """What ``gamut.envs.poke.resample`` and ``DealState`` need of the one-deal game."""

    def __init__(self, game: pyspiel.Game):
        self.cfg = game.cfg
        self.trick_value = game.trick_value
        self._string = str(game)

    def __str__(self) -> str:
        return self._string

    def new_initial_state(self) -> "DealState":
        state = np.empty(K.STATE_SIZE, dtype=np.int64)
        K.init_state(state, self.cfg)
        return DealState(self, state, [])


class DealState:
    """One deal of Poke for the search: the kernel array, its history, and the pyspiel methods ISMCTS calls.

    ``legal_actions`` are the ``candidate_actions`` (a sensible subset of
    the legal ones, so a few hundred iterations can compare them), and
    ``information_state_string`` returns ``information_key`` (bytes), which
    the search only uses as a dictionary key. Actions are applied unchecked:
    the search applies only actions it took from ``legal_actions`` and
    ``chance_outcomes``.

    With an opponent model (``modelled`` = a seat), that seat's decisions
    are part of the dynamics: right after every applied action, the modelled
    seat plays the heuristic (``params``) until someone else is to move, so
    the search tree holds only the searcher's information sets.
    Determinizations (``resample_from_infostate``) keep the model. With a
    belief pool (``with_beliefs``, ``gamut.solvers.poke.beliefs``) the
    pool's player gets its determinizations from the pool instead of
    uniformly.
    """

    def __init__(self, game: _DealGame, state: np.ndarray, history: list, modelled: int = -1,
                 params: np.ndarray | None = None):
        self._game = game
        self.cfg = game.cfg
        self.trick_value = game.trick_value
        self.state = state
        self._history = history
        self._modelled = modelled
        self._params = params
        self._pool: list = []
        self._pool_player = -1

    @classmethod
    def of(cls, pyspiel_state, modelled: int = -1, params: np.ndarray | None = None) -> "DealState":
        """The stand-in of a one-deal pyspiel Poke state (``modelled``: the heuristic's seat, -1 none)."""
        if modelled >= 0 and params is None:
            raise ValueError("an opponent model needs the heuristic's params")
        return cls(_DealGame(pyspiel_state.get_game()), pyspiel_state.state.copy(), pyspiel_state.history(),
                   modelled, params)

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
        return buf[:candidate_actions(self.state, self.cfg, buf)].tolist()

    def chance_outcomes(self) -> list:
        buf = np.empty(52, dtype=np.int64)
        n = K.chance_outcomes(self.state, self.cfg, buf)
        return [(c, 1.0 / n) for c in buf[:n].tolist()]

    def apply_action(self, action: int) -> None:
        K.apply_action(self.state, self.cfg, action)
        self._history.append(action)
        while self._modelled >= 0 and K.current_player(self.state) == self._modelled:
            model_action = int(heuristic_action(self.state, self.cfg, self._params))
            K.apply_action(self.state, self.cfg, model_action)
            self._history.append(model_action)

    def returns(self) -> list:
        out = np.zeros(2)
        K.returns(self.state, self.cfg, self.trick_value, out)
        return out.tolist()

    def information_state_string(self, player: int) -> bytes:
        return information_key(self.state, player)

    def clone(self) -> "DealState":
        return DealState(self._game, self.state.copy(), list(self._history), self._modelled, self._params)

    def plain(self) -> "DealState":
        """The same position (not copied) with no opponent model and no belief pool."""
        return DealState(self._game, self.state, self._history)

    def with_beliefs(self, pool: list, player: int) -> "DealState":
        """This state, its determinizations for ``player`` drawn uniformly from ``pool`` (states of its
        information set; empty: uniform resampling)."""
        self._pool, self._pool_player = list(pool), player
        return self

    def resample_from_infostate(self, player: int, probability_sampler) -> "DealState":
        if self._pool and player == self._pool_player:
            sample = self._pool[min(int(probability_sampler() * len(self._pool)), len(self._pool) - 1)].clone()
        else:
            # The replayed deal runs without the model: it re-applies the recorded moves.
            history, state = resampled_deal(self._game, self.state, self._history, player, probability_sampler)
            sample = DealState(self._game, state, history)
        sample._modelled, sample._params = self._modelled, self._params
        return sample


class PokeRollout:
    """Leaf evaluator ``evaluate(state, seed) -> returns`` for one-deal Poke states (the ISMCTS protocol).

    Averages ``count`` compiled play-outs (cheaper than the search's own
    averaging, which clones the state per play-out).
    """

    def __init__(self, playout: str = "heuristic", count: int = 1):
        if playout not in PLAYOUTS:
            raise ValueError(f"unknown play-out {playout!r}; choose one of {', '.join(PLAYOUTS)}")
        if count < 1:
            raise ValueError(f"count must be >= 1, got {count}")
        self.playout = playout
        self.count = count

    def __call__(self, state, seed: int) -> np.ndarray:
        return play_out_returns(state.state, state.cfg, state.trick_value, seed, self.playout, self.count)


OPPONENT_MODELS = ("heuristic", "search")


class PokeISMCTSBot(SeatBot):
    """Searches each decision of any Poke mode with ISMCTS over the current deal.

    ``opponent="heuristic"`` models the opponent as the default heuristic
    inside the search (the tree holds only the bot's own information sets,
    which recur across determinizations); ``"search"`` gives the opponent its
    own nodes, as the generic search does. In a 52-card deal the opponent's
    information sets almost never recur between determinizations, so there
    its first move below the root is close to uniformly random.
    """

    def __init__(self, game: pyspiel.Game, player: int, seed: int, iterations: int, uct_c: float,
                 trick_value: float, playout: str, opponent: str = OPPONENT_MODELS[0], rollouts: int = 1,
                 seconds: float = 0.0):
        super().__init__(player)
        require_poke(game)
        if iterations < 1:
            raise ValueError(f"iterations must be >= 1, got {iterations}")
        if not 0 <= seconds < math.inf:
            raise ValueError(f"seconds must be >= 0 (0: use iterations), got {seconds!r}")
        if opponent not in OPPONENT_MODELS:
            raise ValueError(f"unknown opponent model {opponent!r}; choose one of {', '.join(OPPONENT_MODELS)}")
        self._model = opponent == "heuristic"
        self._params = np.array(DEFAULT_PARAMS, dtype=np.int64)
        self._deal_game = deal_game_for(game, trick_value)
        self._search = ISMCTS(self._deal_game, uct_c=uct_c, evaluator=PokeRollout(playout, rollouts))
        # A time budget (seconds > 0) makes the play depend on the machine's speed: not reproducible.
        self._budget = {"seconds": float(seconds)} if seconds > 0 else {"iterations": iterations}
        self._rng = np.random.default_rng(seed)
        self.last_search = None  # the root of the last search (read by ``gamut play``'s hint)

    def inform_action(self, state, player, action) -> None:
        """Nothing to remember: the search reads the history of the state it is given."""

    def step(self, state) -> int:
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        deal, seat = current_deal(self._deal_game, state, self._player)
        if deal.current_player() != seat:
            raise ValueError("the bot was asked to move for another seat")
        root = DealState.of(deal, 1 - seat if self._model else -1, self._params)
        start = time.perf_counter()
        root = self._root(root, seat)
        budget = dict(self._budget)
        if "seconds" in budget:
            # What the root cost (a belief pool) comes out of the move's time (the search runs at least
            # one iteration whatever is left).
            budget["seconds"] = max(budget["seconds"] - (time.perf_counter() - start), 1e-6)
        self.last_search = self._search.search(root, self._rng, **budget)
        return int(self.last_search.best_action())

    def _root(self, root: DealState, seat: int) -> DealState:
        """The state the search starts from (a subclass may give it a belief pool)."""
        return root


def make_ismcts_bot(game, player: int, seed: int, iterations: int, uct_c: float, trick_value: float,
                    playout: str, opponent: str, rollouts: int, seconds: float = 0.0) -> PokeISMCTSBot:
    """Registry factory of the Poke ``ismcts`` agent."""
    return PokeISMCTSBot(game, player, seed, iterations, uct_c, trick_value, playout, opponent, rollouts, seconds)

