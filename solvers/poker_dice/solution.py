"""Solved scorecard variants: cached value tables and the optimal advisor.

``solve("yahtzee", joker="free")`` returns a :class:`DiceSolution` whose values
come from :func:`gamut.solvers.poker_dice.dp.solve_values`, cached on disk in the
user's cache directory (:func:`default_cache_dir`; ``$GAMUT_CACHE_DIR`` moves it). A cache file name carries the
solver version and a digest of the compiled variant, so a change of rules or
solver never reads a stale table.

The optimal policy is not stored: :meth:`DiceSolution.options` recomputes one
turn from the value table (a few milliseconds) and returns the expected value
of every choice, whose maximum is the optimal action.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from gamut.envs import dice
from gamut.envs.paths import cache_dir as cache_dir_of_toolkit
from gamut.envs.poker_dice.scorecard import (
    AUX_BANK, Variant, VariantTables, box_names, compile_variant, make_variant,
)
from gamut.envs.poker_dice.scoring import allowed_boxes, current_stage, record
from gamut.solvers.atomic_file import write_atomically
from gamut.solvers.compile_clock import timed
from gamut.solvers.poker_dice.dp import (
    StateLayout, keep_expectations, solve_values, state_layout, turn_levels,
)

SOLVER_VERSION = 1
NUM_BASE_ROLLS = 3


def variant_digest(tables: VariantTables) -> str:
    """First 12 hex digits of a SHA-256 over the packed arrays the kernels read."""
    digest = hashlib.sha256()
    for array in (tables.params, tables.box_data, tables.roll_data):
        digest.update(np.ascontiguousarray(array).tobytes())
    return digest.hexdigest()[:12]


@dataclass
class DiceSolution:
    """Optimal values of every start-of-turn situation of one variant.

    ``seconds`` is the wall time of the solve (or of loading the cached table),
    without ``compile_seconds``, the time Numba spent compiling the solver's
    kernels during it (0 with a warm Numba cache).
    """

    variant: Variant
    tables: VariantTables
    layout: StateLayout
    values: np.ndarray
    seconds: float
    from_cache: bool
    compile_seconds: float = 0.0
    _level_cache: dict = field(default_factory=dict, repr=False)

    def value(self, mask: int = 0, total: int = 0, aux: int = 0) -> float:
        """Optimal expected points still to come at the start of a turn."""
        t = self.tables
        if not 0 <= mask < (1 << t.num_boxes) or self.layout.offsets[mask] < 0:
            raise ValueError(f"mask {mask} is not a reachable set of filled boxes")
        if not 0 <= aux < t.num_aux:
            raise ValueError(f"aux {aux} is not in 0..{t.num_aux - 1}")
        s = self._total_index(mask, total)
        return float(self.values[self.layout.offsets[mask] + s * t.num_aux + aux])

    @property
    def expected_score(self) -> float:
        """Optimal expected total score of a whole game."""
        return self.value(0, 0, 0)

    def _levels(self, mask: int, total: int, aux: int):
        # One turn's levels serve every decision of that turn: keep the recent ones. A turn
        # has one aux, so only its rows are computed (and only its successors' values read).
        key = (mask, total, aux)
        if key not in self._level_cache:
            if len(self._level_cache) >= 1024:
                self._level_cache.clear()
            G, L2, _ = turn_levels(self.tables, self.layout, self.values, mask, total, aux)
            self._level_cache[key] = (G, L2)
        return self._level_cache[key]

    def _total_index(self, mask: int, total: int) -> int:
        t = self.tables
        if mask & t.group_mask == t.group_mask:
            return 0
        return min(max(total, t.sum_lo), t.sum_lo + t.num_sums - 1) - t.sum_lo

    def options(self, mask: int, total: int, aux: int, roll: int, rolls_left: int,
                bank: int | None = None) -> list[dict]:
        """Expected final-points-to-come of every choice with ``roll`` in front of the player.

        ``mask``/``total``/``aux`` describe the card at the start of this turn,
        ``rolls_left`` is the number of the turn's three rolls not yet used (0..2),
        ``bank`` the banked rolls still available now (banked variants; defaults
        to ``aux``). Returns dicts ``{"action": "box"|"keep", "box"|"keep": ...,
        "value": float}``, best first; ``value`` counts the points scored now.
        """
        t = self.tables
        p, bx, rd = t.params, t.box_data, t.roll_data
        self.value(mask, total, aux)  # validates mask and aux
        if not 0 <= rolls_left < NUM_BASE_ROLLS:
            raise ValueError(f"rolls_left {rolls_left} is not in 0..{NUM_BASE_ROLLS - 1}")
        if not 0 <= roll < dice.NUM_ROLLS:
            raise ValueError(f"roll id {roll} is not in 0..{dice.NUM_ROLLS - 1}")
        banked = t.aux_kind == AUX_BANK
        bank = aux if bank is None else bank
        if banked and not 0 <= bank <= aux:
            raise ValueError(f"bank {bank} is not in 0..{aux} (the bank at the start of the turn)")
        clipped = t.sum_lo + self._total_index(mask, total)
        G, L2 = self._levels(mask, clipped, aux)
        used = NUM_BASE_ROLLS - rolls_left
        bank_after = bank + rolls_left if banked else aux
        allowed = np.zeros(t.num_boxes, dtype=np.bool_)
        allowed_boxes(p, bx, rd, mask, roll, allowed)
        names = box_names(self.variant)
        result = []
        for b in np.nonzero(allowed)[0]:
            points, m2, s2, a2 = record(p, bx, rd, mask, clipped, aux, roll, used == 1, int(b),
                                        bank_after)
            future = self.values[self.layout.offsets[m2] + (s2 - t.sum_lo) * t.num_aux + a2]
            result.append({"action": "box", "box": names[b], "points": int(points),
                           "value": float(points + future)})
        extras = banked and t.bank_stage_ok[current_stage(p, bx, mask)] == 1
        if rolls_left == 2:
            following = L2[aux]
        elif rolls_left == 1:
            following = G[bank if banked else aux]
        elif extras and bank > 0:
            following = G[bank - 1]
        else:
            following = None
        if following is not None:
            ev = keep_expectations(following)
            for k in dice.legal_keeps(roll):
                if dice.KEEP_SIZE[k] < dice.NUM_DICE:
                    result.append({"action": "keep", "keep": list(dice.keep_faces(int(k))),
                                   "value": float(ev[k])})
        result.sort(key=lambda o: -o["value"])
        return result


def _cache_path(folder: Path, variant: Variant, tables: VariantTables) -> Path:
    return folder / f"{variant.name}-{variant.joker}-s{SOLVER_VERSION}-{variant_digest(tables)}.npy"


def default_cache_dir() -> Path:
    """Where solved tables are cached: ``poker_dice`` in the toolkit's cache dir (``gamut.envs.paths``)."""
    return cache_dir_of_toolkit("poker_dice")


def solve(name: str, joker: str = "free", cache_dir: str | Path | bool | None = True,
          variant: Variant | None = None) -> DiceSolution:
    """Solve variant ``name`` (or the given ``variant``), reading/writing the disk cache.

    ``cache_dir=True`` caches in :func:`default_cache_dir` (the user's cache
    directory, or ``$GAMUT_CACHE_DIR``); a path caches there; ``None`` or
    ``False`` disables the cache.
    """
    variant = variant if variant is not None else make_variant(name, joker)
    tables = compile_variant(variant)
    if cache_dir is True:
        cache_dir = default_cache_dir()
    path = _cache_path(Path(cache_dir), variant, tables) if cache_dir not in (None, False) else None
    start = time.perf_counter()
    if path is not None and path.exists():
        layout = state_layout(tables)
        try:
            values = np.load(path, allow_pickle=False)
        except (OSError, ValueError, EOFError) as err:  # truncated, foreign or damaged
            raise ValueError(f"the cached solution {path} is unreadable ({type(err).__name__}: {err}); "
                             "delete it and the next call solves again") from None
        if values.shape == (layout.size,):
            return DiceSolution(variant, tables, layout, values, time.perf_counter() - start, True)
    (layout, values), seconds, compiling = timed(solve_values, tables)
    if path is not None:
        write_atomically(path, lambda handle: np.save(handle, values))  # a reader never sees half a table
    return DiceSolution(variant, tables, layout, values, seconds, False, compiling)

