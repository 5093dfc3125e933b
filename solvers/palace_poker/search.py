"""ISMCTS for Palace Poker: the generic search (``gamut.solvers.ismcts``) with play-outs in Numba.

The search is :class:`gamut.solvers.ismcts.ISMCTS` unchanged; this module supplies
its leaf evaluator (the rollout protocol of ``gamut.solvers.ismcts``) from the
Palace kernels and the defaults that suit the game:

- ``heuristic`` play-outs (default): every seat plays the threshold heuristic
  (``gamut.solvers.palace_poker.heuristic.play_heuristic``) on a copy of the
  determinized state. Uniformly random play-outs fold about a third of the
  time at every turn, so they value almost any position as "the others will
  fold"; heuristic play-outs keep battles realistic.
- ``random`` play-outs: ``gamut.envs.palace_poker.rollout.play_random``.

Both draw chance outcomes uniformly from the pile with an xorshift generator
seeded by the search, so the same seed gives the same returns.

The search runs on :class:`ModelledState`, a Palace state with an opponent
model: the other seats play the heuristic inside the tree, the hidden
palaces of a determinization are chosen to agree with the moves the other
seats made (if they play like the heuristic), and information sets are keyed
cheaply relative to the search's root. The defaults (``DEFAULT_*``) were
chosen in head-to-head runs against the heuristic at two seats.
"""

from __future__ import annotations


import numba
import numpy as np
import pyspiel

from gamut.envs.hands import HAND_TABLE
from gamut.envs.palace_poker import kernels as K
from gamut.envs.palace_poker import layout as L
from gamut.envs.palace_poker.game import PalacePokerState
from gamut.envs.palace_poker.resample import MAX_TRIES, resample_history
from gamut.envs.palace_poker.rollout import play_random
from gamut.envs.rng import rng_state
from gamut.solvers.palace_poker.heuristic import WORK_SIZE, heuristic_action, make_params, play_heuristic
from gamut.solvers.search.ismcts_bot import ISMCTSBot

ROLLOUT_POLICIES = ("heuristic", "random")
DEFAULT_ITERATIONS = 300
DEFAULT_UCT_C = 0.5
DEFAULT_ROLLOUT_SAMPLES = 12
BELIEF_TRIES = 10


@numba.njit(cache=True)
def _rollout(state, cfg, params, heuristic, seed, legal, work, table, out):
    rng = rng_state(seed)
    if heuristic:
        play_heuristic(state, cfg, params, rng, legal, work, table)
    else:
        play_random(state, cfg, rng, legal, table)
    for p in range(out.shape[0]):
        out[p] = state[L.S_PAYOUT + p] - state[L.S_CONTRIB + p]


@numba.njit(cache=True)
def model_disagreements(history, cfg, searcher, params, seed, table, cap, turns=True):
    """Decisions of seats other than ``searcher`` along ``history`` that the heuristic would not make.

    ``history`` (``int64``, ``(L,)``) is a full history from the initial
    state; ``params`` the heuristic's thresholds; ``seed`` seeds its equity
    draws. The count scores how well a dealing of hidden palaces explains
    what the other seats did, if they play like the heuristic; counting
    stops at ``cap`` (a count already no better than the best so far).
    ``turns=False`` leaves the turn decisions out (another model judges them).
    """
    state = np.zeros(L.STATE_SIZE, dtype=np.int64)
    legal = np.empty(cfg[L.C_NUM_ACTIONS], dtype=np.int64)
    work = np.empty(WORK_SIZE, dtype=np.int64)
    rng = rng_state(seed)
    K.init_state(state, cfg)
    misses = 0
    for i in range(history.shape[0]):
        p = K.current_player(state)
        if p >= 0 and p != searcher and (turns or state[L.S_PHASE] != L.PH_TURN):
            if heuristic_action(state, cfg, params, rng, table, legal, work) != history[i]:
                misses += 1
                if misses >= cap:
                    return misses
        K.apply_action(state, cfg, history[i], table)
    return misses


@numba.njit(cache=True)
def replay(history, cfg, state, table):
    """Fill ``state`` with the position reached by ``history`` from the initial state (legal, not checked)."""
    K.init_state(state, cfg)
    for i in range(history.shape[0]):
        K.apply_action(state, cfg, history[i], table)


class PalaceRollout:
    """Leaf evaluator ``evaluate(state, seed) -> returns`` for :class:`gamut.solvers.ismcts.ISMCTS`.

    Plays a copy of the state's array to the end (the pyspiel state is not
    changed) and returns a ``float64`` array of chips per seat.

    Parameters
    ----------
    game : pyspiel.Game
        A ``palace_poker`` game.
    policy : {"heuristic", "random"}
        Play-out policy of every seat.
    params : ndarray, optional
        Heuristic thresholds (``heuristic.make_params``); default: the
        heuristic's defaults with ``DEFAULT_ROLLOUT_SAMPLES`` palace draws.
    """

    def __init__(self, game: pyspiel.Game, policy: str = "heuristic", params: np.ndarray | None = None):
        if policy not in ROLLOUT_POLICIES:
            raise ValueError(f"rollout policy {policy!r} is not one of {', '.join(ROLLOUT_POLICIES)}")
        self.cfg = game.cfg
        self.heuristic = policy == "heuristic"
        self.params = make_params(samples=DEFAULT_ROLLOUT_SAMPLES) if params is None else params
        self._legal = np.empty(max(int(self.cfg[L.C_NUM_ACTIONS]), L.NUM_CARDS), dtype=np.int64)
        self._work = np.empty(WORK_SIZE, dtype=np.int64)
        self._num_players = game.num_players()

    def __call__(self, state, seed: int) -> np.ndarray:
        out = np.zeros(self._num_players)
        _rollout(state.state.copy(), self.cfg, self.params, self.heuristic, seed & (2**63 - 1),
                 self._legal, self._work, HAND_TABLE, out)
        return out


class ModelledState(PalacePokerState):
    """A Palace state for the search in which the other seats play the heuristic (an opponent model).

    ``legal_actions()`` (what the search branches on) offers the other seats
    only the heuristic's move, and the searching seat, in a discard phase,
    only the heuristic's next discard; the rules themselves (``apply_action``)
    are untouched. Without a model, every determinization gives the other
    seats a fresh information set whose first move the search tries
    uniformly at random, so it would expect a bet to be folded to a third of
    the time. ``resample_from_infostate`` deals the hidden palaces with
    ``gamut.envs.palace_poker.resample.resample_history`` (uniform over the deals
    consistent with the searcher's information) up to ``BELIEF_TRIES`` times
    and keeps the first deal under which the heuristic would have made every
    move the other seats made (else the one with the fewest misses): a
    rejection filter that makes the beliefs follow the same model
    (:meth:`modelled_deal`). A root given a belief pool (:meth:`with_beliefs`)
    draws its determinizations from the pool instead. Either way it
    returns another ``ModelledState`` holding the position alone: its pyspiel
    ``history()`` is empty, and its moves are counted from the search's root.
    """

    def __init__(self, game: pyspiel.Game, searcher: int = 0, params: np.ndarray | None = None, seed: int = 0):
        super().__init__(game)
        self.searcher = searcher
        self.params = make_params() if params is None else params
        self.rng = rng_state(seed & (2**63 - 1))
        self.legal_buf = np.empty(int(self.cfg[L.C_NUM_ACTIONS]), dtype=np.int64)
        self.work = np.empty(WORK_SIZE, dtype=np.int64)
        self.replaying = False
        self.moves: list[int] = []
        self.root_length = 0
        self._pool: list[np.ndarray] = []
        self._pool_player = -1

    @classmethod
    def from_history(cls, game, history, searcher: int, params: np.ndarray, seed: int) -> ModelledState:
        """The state reached by ``history``, a history the kernels have just replayed (not re-checked)."""
        state = cls(game, searcher, params, seed)
        state.replaying = True
        for action in history:
            state.apply_action(int(action))
        state.replaying = False
        state.root_length = len(state.moves)
        return state

    def information_state_string(self, player=None):
        """Key of ``player``'s information set *within one search*: the moves since the root,
        the seats still in the hand and the palace cards ``player`` has seen (own palace,
        palaces shown at called battles).

        Every determinization of a search shares the root's history, and every move after the
        root is public in Palace Poker (decisions, and the cards bought). What a seat learns
        besides is who left the hand (a called battle between two other seats is settled by
        palaces it may not see, so the same moves can leave different seats in) and the palaces
        shown to it, ``state[S_KNOWN + player]``. So this key tells the same information sets
        apart as the perfect-recall string, at a fraction of its cost.
        """
        if player is None:
            player = self.current_player()
        since_root = ",".join(map(str, self.moves[self.root_length:]))
        return f"{since_root}|{int(self.state[L.S_IN])}|{int(self.state[L.S_KNOWN + player])}"

    def _apply_action(self, action):
        # A resampled history was replayed and matched by ``resample_history``
        # already; checking each action again through Python lists would be
        # most of the cost of a search iteration.
        if self.replaying:
            K.apply_action(self.state, self.cfg, int(action), HAND_TABLE)
        else:
            if self._modelled_move() and not self._legal(action):
                # A seat's information-set key leaves out its own hidden cards, so the move a node
                # keeps from the determinization that made it can be illegal in another (a bet on a
                # seat of the same banner suit, say): the model then plays its own move here.
                action = self.legal_actions()[0]
            super()._apply_action(action)
        self.moves.append(int(action))

    def _modelled_move(self) -> bool:
        """Whether the decision to move is the model's: another seat's, or the searcher's discard."""
        p = self.current_player()
        return p >= 0 and (p != self.searcher or self.state[L.S_PHASE] == L.PH_DISCARD)

    def _legal(self, action) -> bool:
        n = K.legal_actions(self.state, self.cfg, self.legal_buf)
        return int(action) in self.legal_buf[:n]

    def legal_actions(self, player=None):
        p = self.current_player()
        if p < 0 or (p == self.searcher and self.state[L.S_PHASE] != L.PH_DISCARD):
            return super().legal_actions() if player is None else super().legal_actions(player)
        return [int(heuristic_action(self.state, self.cfg, self.params, self.rng, HAND_TABLE,
                                     self.legal_buf, self.work))]

    def with_beliefs(self, pool: list[np.ndarray], player: int) -> ModelledState:
        """This state, its determinizations for ``player`` drawn uniformly from ``pool`` instead of dealt afresh.

        ``pool`` holds kernel arrays (``int64``, ``(STATE_SIZE,)``) of positions in
        ``player``'s information set, as :meth:`modelled_deal` writes them; an
        empty pool restores fresh deals. Drawing from a pool costs a copy where a
        fresh deal costs ``BELIEF_TRIES`` redeals and replays at most.
        """
        self._pool, self._pool_player = list(pool), player
        return self

    def modelled_deal(self, player: int, seed: int) -> np.ndarray:
        """A position of ``player``'s information set whose hidden palaces explain the other seats' moves.

        Deals the hidden palaces with ``resample_history`` (uniform over the
        deals consistent with ``player``'s information) up to ``BELIEF_TRIES``
        times from ``seed`` and keeps the first deal under which the heuristic
        would have made every move the other seats made, else the one with the
        fewest misses. Returns its kernel array (``int64``, ``(STATE_SIZE,)``).
        """
        history = np.asarray(self.history(), dtype=np.int64)
        out = np.empty_like(history)
        best, best_misses = None, -1
        for k in range(BELIEF_TRIES):
            if resample_history(history, self.cfg, player, seed + k, MAX_TRIES, out, HAND_TABLE) < 0:
                raise RuntimeError(f"no palace deal consistent with seat {player}'s information found in "
                                   f"{MAX_TRIES} tries")
            cap = best_misses if best is not None else len(history) + 1
            misses = model_disagreements(out, self.cfg, player, self.params, seed + k, HAND_TABLE, cap)
            if best is None or misses < best_misses:
                best, best_misses = out.copy(), misses
            if misses == 0:
                break
        position = np.zeros(L.STATE_SIZE, dtype=np.int64)
        replay(best, self.cfg, position, HAND_TABLE)
        return position

    def resample_from_infostate(self, player_id, probability_sampler):
        seed = int(probability_sampler() * 2**31) << 31 | int(probability_sampler() * 2**31)
        if self._pool and player_id == self._pool_player:
            position = self._pool[min(int(probability_sampler() * len(self._pool)), len(self._pool) - 1)]
        else:
            position = self.modelled_deal(player_id, seed)
        # The determinization only needs its position: the search reads the array, the moves
        # since the root and the keys above, never the pyspiel history.
        state = ModelledState(self.get_game(), self.searcher, self.params, seed)
        state.state[:] = position
        return state


class PalaceISMCTSBot(ISMCTSBot):
    """Plays the most visited root action of a fresh ISMCTS search with Palace play-outs.

    Parameters
    ----------
    game : pyspiel.Game
        A ``palace_poker`` game.
    player, seed : int
        Seat, and seed of the search's generator (same seed and iterations, same play).
    iterations : int
        Iterations per move (>= 1), used when ``seconds`` is 0.
    seconds : float
        Wall-clock budget per move, or 0 to use ``iterations``.
    uct_c : float
        Exploration constant in units of the observed payoff spread.
    rollout : {"heuristic", "random"}
        Play-out policy.
    rollouts : int
        Play-outs averaged per leaf.
    """

    def __init__(self, game: pyspiel.Game, player: int, seed: int, iterations: int = DEFAULT_ITERATIONS,
                 seconds: float = 0.0, uct_c: float = DEFAULT_UCT_C, rollout: str = "heuristic",
                 rollouts: int = 1):
        if game.get_type().short_name != "palace_poker":
            raise ValueError(f"this ISMCTS plays palace_poker, not {game.get_type().short_name}")
        self._model = make_params(samples=DEFAULT_ROLLOUT_SAMPLES)
        super().__init__(game, player, seed, iterations, seconds, uct_c, rollout, rollouts)

    def _evaluator(self, game: pyspiel.Game, rollout: str):
        return PalaceRollout(game, rollout)

    def _search_root(self, state: pyspiel.State) -> pyspiel.State:
        # The other seats are modelled by the heuristic; the root keeps only the real history.
        return ModelledState.from_history(state.get_game(), state.history(), self._player, self._model,
                                          int(self._rng.integers(2**62)))

