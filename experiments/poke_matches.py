"""Poke's head-to-head figure: the margins of ``gamut poke match`` records, redrawn from ``results/poke/matches.jsonl``.

Poke declares :func:`replot_poke_matches` as its ``poke_matches`` figure
(``GAME.replots``), so ``python -m gamut.experiments.replot poke_matches``
redraws ``results/poke/matches.png``.
"""

from __future__ import annotations

import json
from pathlib import Path

from gamut.experiments.store import ResultsWriter


def poke_matches_figure(rows: list[dict]):
    """Head-to-head margins of ``gamut poke match`` runs: A's mean margin per rubber with its 95% CI.

    One line per run (agent pair, seed); the deck and the rule variant of the
    game string are named beside it, and n is the number of pairs of rubbers.
    """
    import matplotlib.pyplot as plt
    import numpy as np

    rows = sorted(rows, key=lambda r: r["mean_diff"])
    fig, ax = plt.subplots(figsize=(9, 0.6 * len(rows) + 1.6))
    y = np.arange(len(rows))
    mean = np.array([r["mean_diff"] for r in rows])
    low = np.array([r["ci95_low"] for r in rows])
    high = np.array([r["ci95_high"] for r in rows])
    ax.hlines(y, low, high, color="tab:blue", lw=3)
    ax.plot(mean, y, "o", color="black", ms=4)
    for yi, r in zip(y, rows):  # the figures in a column right of the axes, clear of the bars
        ax.annotate(f"{r['mean_diff']:+,.0f} ({r['ci95_low']:,.0f} .. {r['ci95_high']:,.0f}), n={r['n']:,}",
                    (1.02, yi), xycoords=("axes fraction", "data"), va="center", fontsize=8)
    ax.axvline(0.0, color="grey", lw=0.8)
    ax.set_yticks(y, [f"{_agent(r, 'a')} vs {_agent(r, 'b')}\n{_deck(r['game'])}, seed {r['seed']}" for r in rows])
    ax.set_xlim(min(0.0, low.min()) * 1.1 - 50, high.max() * 1.05 + 50)
    ax.set_xlabel("A's mean above-the-line margin per rubber (95% CI over n pairs of rubbers, seats swapped)")
    ax.set_title("Poke head to head over full rubbers (gamut poke match)")
    ax.grid(True, axis="x", alpha=0.3)
    fig.tight_layout()
    return fig


def _agent(record: dict, side: str) -> str:
    """An agent's name with the options it was given (``--a-option``/``--b-option``), where the record keeps them."""
    options = record.get(f"{side}_options") or {}
    extra = ", ".join(f"{k}={v}" for k, v in sorted(options.items()))
    return record[f"agent_{side}"] + (f" ({extra})" if extra else "")


def _deck(game: str) -> str:
    """``full deck`` or ``small deck`` from a Poke game string, with its follow rule."""
    params = dict(part.split("=", 1) for part in game[game.index("(") + 1:-1].split(",") if "=" in part)
    deck = "full deck" if params.get("num_ranks", "13") == "13" and params.get("num_suits", "4") == "4" \
        else f"small deck ({params.get('num_ranks')} ranks x {params.get('num_suits')} suits)"
    # Version 2 added the follow rule and names it in every game string: a record without it is version 1's.
    return deck + (f", follow={params['follow']}" if "follow" in params else ", version 1 (follow=free)")


def replot_poke_matches(results_root: str | Path = "results") -> list[str]:
    """Redraw ``poke/matches.png`` (and .svg) from ``poke/matches.jsonl``; returns the files written."""
    folder = Path(results_root) / "poke"
    path = folder / "matches.jsonl"
    if not path.exists():
        raise ValueError(f"{path}: no match records to plot (`gamut poke match ... --json >> {path}`)")
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    if not rows:
        raise ValueError(f"{path}: no match records to plot")
    writer = ResultsWriter(folder)
    writer.figure("matches", poke_matches_figure(rows))
    return writer.written
