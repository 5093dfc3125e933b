"""The ``cfr`` and ``mccfr`` Poke agents: training, cached policy files, and the bots that play them.

- ``cfr``: exact CFR+ (``gamut.solvers.cfr.tabular``) on the extracted small-deck
  deal (``small_game_string``), exploitability from an exact best response.
  The policy is cached under ``results/poke/`` (computed on first use).
- ``mccfr``: external-sampling MCCFR (``gamut.solvers.cfr.mccfr``) on the full
  52-card deal through ``gamut.solvers.poke.walker.DrawWalker``: draws are learned
  per abstract information bucket (``draw_key``), the trick phase is the
  heuristic's. Checkpointed; the policy file is ``results/poke/mccfr_draw.npz``.

Both are deal policies; in a game or rubber the bots play each deal with
them. A deal's below-the-line points count ``trick_value`` above-the-line
points each (default ``DEFAULT_TRICK_VALUE``: one below-the-line point was
worth 33.9 above the line, 95% CI 32.8 .. 35.0, n = 200,000 heuristic
rubbers, ``gamut.solvers.poke.point_value``; the ``poke_doubling`` study repeats it).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyspiel

from gamut.envs.poke import kernels as K
from gamut.envs.poke.game import SMALL_EXACT_PARAMS
from gamut.solvers.atomic_file import write_atomically
from gamut.solvers.cfr.best_response import exploitability
from gamut.solvers.cfr.checkpoint import train
from gamut.solvers.cfr.extract import extract_game
from gamut.solvers.cfr.mccfr import MCCFR
from gamut.solvers.cfr.policy_io import StrategyBot, TabularStrategy, load_strategy, save_strategy
from gamut.solvers.cfr.tabular import TabularCFR
from gamut.solvers.poke.heuristic import heuristic_action, require_poke
from gamut.solvers.poke.walker import DRAW, DrawWalker, draw_key, draw_slots
from gamut.solvers.seat_bots import SeatBot

DEFAULT_TRICK_VALUE = 34.0
RESULTS = Path(__file__).resolve().parents[2] / "results" / "poke"
CFR_ITERATIONS = 1000
_NO_PARAMS = np.zeros(5, dtype=np.int64)


def small_game_string(trick_value: float = DEFAULT_TRICK_VALUE, follow: str = "must_beat") -> str:
    """The small exact deal (``gamut.envs.poke.game.SMALL_EXACT_PARAMS``) with ``trick_value`` and ``follow``."""
    params = {**SMALL_EXACT_PARAMS, "trick_value": float(trick_value), "follow": follow}
    return str(pyspiel.load_game("poke", params))


def full_deal_string(trick_value: float = DEFAULT_TRICK_VALUE) -> str:
    """The full 52-card deal with ``trick_value``."""
    return str(pyspiel.load_game("poke", {"mode": "deal", "trick_value": float(trick_value)}))


def deal_game_for(game: pyspiel.Game, trick_value: float) -> pyspiel.Game:
    """The one-deal Poke game with ``game``'s deck and hand size and the given ``trick_value``."""
    require_poke(game)
    p = game.params
    return pyspiel.load_game("poke", {"mode": "deal", "num_ranks": p["num_ranks"], "num_suits": p["num_suits"],
                                      "hand_size": p["hand_size"], "trick_unit": p["trick_unit"],
                                      "follow": p["follow"], "trick_value": float(trick_value)})


def current_deal(deal_game: pyspiel.Game, state: pyspiel.State, player: int) -> tuple[pyspiel.State, int]:
    """``state``'s current deal replayed in the one-deal game ``deal_game``, and ``player``'s seat there.

    A one-deal game always has seat 1 dealing; action ids do not depend on
    seats, so the deal's actions replay unchanged and the seats swap when seat
    0 deals in ``state``.
    """
    st = state.state
    deal = deal_game.new_initial_state()
    for action in state.history()[int(st[K.S_DEAL_START]):]:
        deal.apply_action(action)
    return deal, player if st[K.S_DEALER] == 1 else 1 - player


def solve_small(game_string: str, iterations: int = CFR_ITERATIONS, checkpoint=None, resume: bool = False,
                progress: bool = False) -> TabularStrategy:
    """CFR+ on the extracted deal ``game_string``; metadata records iterations and exploitability."""
    tree = extract_game(game_string, report=None)
    solver = TabularCFR(tree, "cfr+")
    info = train(solver, iterations, checkpoint, resume, progress=progress)
    policy = solver.average_policy()
    metadata = {"algorithm": "cfr+", "iterations": info["iterations"], "seconds": info["seconds"],
                "exploitability": float(exploitability(tree, policy)), "num_infosets": tree.num_infosets}
    return TabularStrategy.from_tree(tree, policy, metadata)


def save_policy(path, strategy: TabularStrategy) -> Path:
    """``save_strategy``'s file, recompressed (long information-state keys shrink about 60 times)."""
    path = save_strategy(path, strategy)
    with np.load(path, allow_pickle=False) as data:
        arrays = dict(data)
    write_atomically(path, lambda handle: np.savez_compressed(handle, **arrays))
    return path


def cfr_policy_path(trick_value: float, follow: str = "must_beat") -> Path:
    """Cached policy file of the small deal: ``cfr_small_tv34.npz``; ``..._free.npz`` for ``follow=free``."""
    return RESULTS / f"cfr_small_tv{trick_value:g}{'' if follow == 'must_beat' else '_' + follow}.npz"


def cfr_strategy(trick_value: float = DEFAULT_TRICK_VALUE, follow: str = "must_beat") -> TabularStrategy:
    """The cached CFR+ policy of the small deal with ``trick_value`` and ``follow``, solved and written if missing."""
    path = cfr_policy_path(trick_value, follow)
    if path.exists():
        return load_strategy(path)
    strategy = solve_small(small_game_string(trick_value, follow))
    save_policy(path, strategy)
    return strategy


def make_cfr_bot(game: pyspiel.Game, player: int, seed: int, trick_value: float) -> StrategyBot:
    """Registry factory: the small deal's CFR+ policy, for any mode of the small deck."""
    deal_game = deal_game_for(game, trick_value)
    follow = game.params["follow"]
    strategy = cfr_strategy(trick_value, follow)
    if strategy.game_string != str(deal_game):
        raise ValueError(f"the cfr agent plays the small deck {small_game_string(trick_value, follow)} (any mode); "
                         f"got {game}")

    def key(state, seat):
        deal, deal_seat = current_deal(deal_game, state, seat)
        return deal.information_state_string(deal_seat)

    return StrategyBot(strategy, player, seed, key_fn=key)


def make_mccfr_solver(trick_value: float = DEFAULT_TRICK_VALUE, seed: int = 0) -> MCCFR:
    """External-sampling MCCFR over ``DrawWalker`` on the full deal with ``trick_value``."""
    return MCCFR(DrawWalker(pyspiel.load_game(full_deal_string(trick_value))), "external", seed=seed)


def mccfr_strategy_of(solver: MCCFR, metadata: dict | None = None) -> TabularStrategy:
    return TabularStrategy.from_table(solver.game_string, solver.average_policy(), metadata)


MCCFR_POLICY = RESULTS / "mccfr_draw.npz"


class DrawPolicyBot(SeatBot):
    """Draws by an abstract (``draw_key``) stand/draw policy, plays tricks like the heuristic."""

    def __init__(self, game: pyspiel.Game, player: int, seed: int, strategy: TabularStrategy):
        super().__init__(player)
        require_poke(game)
        if game.params["num_ranks"] != 13 or game.params["num_suits"] != 4 or game.params["hand_size"] != 5:
            raise ValueError(f"the mccfr agent plays the full 52-card deck with hands of 5; got {game}")
        self._cfg = game.cfg
        self._rng = np.random.default_rng(seed)
        self.strategy = strategy

    def inform_action(self, state, player, action) -> None:
        """Nothing to remember."""

    def step(self, state) -> int:
        st = state.state
        if st[K.S_PHASE] != K.PH_DRAW:
            return int(heuristic_action(st, self._cfg, _NO_PARAMS))
        slots = draw_slots(st, self._cfg)
        if slots == 0:
            return K.STAND
        probs = self.strategy.action_probabilities(draw_key(st, self._player), [K.STAND, DRAW])
        p_draw = probs.get(DRAW, 0.0) / max(probs.get(DRAW, 0.0) + probs.get(K.STAND, 0.0), 1e-300)
        return slots if self._rng.random() < p_draw else K.STAND


def make_mccfr_bot(game: pyspiel.Game, player: int, seed: int, path: str) -> DrawPolicyBot:
    """Registry factory: the MCCFR draw policy of ``path`` (default: the committed one)."""
    return DrawPolicyBot(game, player, seed, load_strategy(path or MCCFR_POLICY))
