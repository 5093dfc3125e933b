"""Measurements of draw tables against opponents: paired margins, gains over other policies, round robins.

Every comparison plays pairs of rubbers on the same deals with the seats
swapped (``gamut.solvers.poke.match``), and every policy measured against
one opponent meets it on the same seeds, so the gain of one policy over
another is a paired difference, pair by pair, with a 95% t interval
(``gamut.solvers.stats.mean_ci``).

Compiled opponents (``COMPILED_OPPONENTS``): ``heuristic`` (the default
thresholds) and ``mccfr`` (the committed draw policy,
``gamut.solvers.poke.policies.MCCFR_POLICY``). Any other registry agent plays
through pyspiel (``bot_maker``); one-deal agents (``ppo``, ``nfsp``) are
seated per deal (``gamut.solvers.poke.deal_agents.PerDealBot``).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pyspiel

from gamut.solvers.poke.best_response import TableBot
from gamut.solvers.poke.draw_table import SeatArrays, mccfr_table, seat_margins
from gamut.solvers.poke.heuristic import make_params
from gamut.solvers.poke.match import pyspiel_margins
from gamut.solvers.stats import mean_ci

COMPILED_OPPONENTS = ("heuristic", "mccfr")
ONE_DEAL_AGENTS = ("ppo", "nfsp")


def compiled_opponent(name: str) -> SeatArrays:
    """The compiled seat of opponent ``name`` (``COMPILED_OPPONENTS``)."""
    if name == "heuristic":
        return SeatArrays.threshold(make_params())
    if name == "mccfr":
        from gamut.solvers.cfr.policy_io import load_strategy
        from gamut.solvers.poke.policies import MCCFR_POLICY

        return SeatArrays.mccfr(mccfr_table(load_strategy(MCCFR_POLICY)))
    raise ValueError(f"no compiled opponent {name!r}; compiled: {', '.join(COMPILED_OPPONENTS)}")


def parse_agent(entry: str) -> tuple[str, dict]:
    """``"ismcts:iterations=50,rollouts=2"`` -> ``("ismcts", {"iterations": 50, "rollouts": 2})``.

    Option values are read as int, then float, else kept as text; the agent
    checks its own options when it is made.
    """
    name, _, options = str(entry).partition(":")
    out = {}
    for item in filter(None, options.split(",")):
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ValueError(f"agent {entry!r}: options must read NAME:key=value,key=value")
        for kind in (int, float):
            try:
                out[key] = kind(value)
                break
            except ValueError:
                continue
        else:
            out[key] = value
    if not name:
        raise ValueError(f"agent {entry!r} has no name")
    return name, out


def bot_maker(game: pyspiel.Game, entry: str) -> Callable[[int, int], pyspiel.Bot]:
    """``(player, seed) -> pyspiel.Bot`` for the agent ``entry`` (``parse_agent``) in ``game``; checked now."""
    from gamut.solvers.bots import make_bot
    from gamut.solvers.poke.deal_agents import PerDealBot

    name, options = parse_agent(entry)
    if name in ONE_DEAL_AGENTS:
        def make(player, seed):
            return PerDealBot(game, player, seed, name, **options)
    else:
        def make(player, seed):
            return make_bot(game, name, player, seed, **options)
    make(0, 0)
    return make


def compiled_margins(cfg: np.ndarray, policies: dict, opponent: SeatArrays, seeds) -> dict:
    """``{name: per-pair margins (n,)}`` of every policy (``SeatArrays``) against ``opponent`` on ``seeds``."""
    return {name: seat_margins(cfg, seat, opponent, seeds).mean(axis=1) for name, seat in policies.items()}


def bot_margins(game: pyspiel.Game, policies: dict, make_opponent, seeds) -> dict:
    """``compiled_margins`` against a pyspiel agent: each policy (``SeatArrays``) seated as a ``TableBot``."""
    out = {}
    for name, seat in policies.items():
        margins = pyspiel_margins(game, lambda p, s, seat=seat: TableBot(game, p, seat, s), make_opponent, seeds)
        out[name] = margins.mean(axis=1)
    return out


def gain_rows(margins: dict, reference: str) -> list[dict]:
    """One row per policy: its margin against the opponent, and ``reference``'s gain over it (paired), with CIs."""
    rows = []
    for name, values in margins.items():
        own = mean_ci(values)
        gain = mean_ci(margins[reference] - values)
        rows.append({"policy": name, "n_pairs": own.n, "margin": own.value, "ci95_low": own.ci95_low,
                     "ci95_high": own.ci95_high, "gain": gain.value, "gain_ci95_low": gain.ci95_low,
                     "gain_ci95_high": gain.ci95_high})
    return rows


def round_robin(cfg: np.ndarray, seats: dict, seeds) -> list[dict]:
    """Every pair of policies (``SeatArrays``) head to head on ``seeds``: A's mean margin (95% CI), both ways."""
    names = list(seats)
    rows = []
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            est = mean_ci(seat_margins(cfg, seats[a], seats[b], seeds).mean(axis=1))
            rows.append({"a": a, "b": b, "mean_margin": est.value, "ci95_low": est.ci95_low,
                         "ci95_high": est.ci95_high, "n_pairs": est.n})
            rows.append({"a": b, "b": a, "mean_margin": -est.value, "ci95_low": -est.ci95_high,
                         "ci95_high": -est.ci95_low, "n_pairs": est.n})
    return rows
