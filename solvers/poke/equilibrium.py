"""How often a deal policy draws (and so doubles), by draw stage and hand, from sampled deals.

Used on the exact CFR+ equilibrium of the small deal: both seats play the
policy, deals are sampled from the game's chance distribution, and every draw
decision is recorded with the drawer's stage (``gamut.solvers.poke.heuristic``
numbering: 0-1 non-dealer, 2-4 dealer) and hand. Frequencies carry Wilson
95% intervals (``gamut.solvers.stats.proportion_ci``). The dealer's first draw is
free and the non-dealer's doubles, so stages 0 and 2 on the same hands show
what the free draw changes.
"""

from __future__ import annotations

import numpy as np
import pyspiel

from gamut.envs.cards import card_str
from gamut.envs.poke import kernels as K
from gamut.envs.poke.encoding import mask_cards
from gamut.solvers.cfr.policy_io import TabularStrategy
from gamut.solvers.poke.chance import draw_chance
from gamut.solvers.poke.heuristic import draw_stage
from gamut.solvers.stats import proportion_ci

STAGE_NAMES = ("non-dealer 1st draw (doubles)", "non-dealer 2nd draw (redoubles)", "dealer 1st draw (free)",
               "dealer 2nd draw (doubles)", "dealer 3rd draw (redoubles)")


def hand_label(hand: int) -> str:
    """Ranks of a hand, highest first, e.g. ``"AK"`` or ``"QQ"`` (suits dropped)."""
    ranks = sorted((card_str(c)[0] for c in mask_cards(hand)), key="23456789TJQKA".index, reverse=True)
    return "".join(ranks)


def draw_counts(game: pyspiel.Game, strategy: TabularStrategy, deals: int, seed: int) -> dict:
    """``{(stage, hand label): [draws, decisions]}`` over ``deals`` deals of ``strategy`` against itself.

    ``game`` is the one-deal game the strategy was solved on (keys are its
    information-state strings); actions are sampled from the strategy with a
    generator seeded by ``seed``.
    """
    if strategy.game_string != str(game):
        raise ValueError(f"strategy is for {strategy.game_string}, not {game}")
    rng = np.random.default_rng(seed)
    counts: dict = {}
    for _ in range(deals):
        state = game.new_initial_state()
        draw_chance(state, rng)
        while not state.is_terminal():
            player = state.current_player()
            legal = state.legal_actions()
            probs = strategy.action_probabilities(state.information_state_string(player), legal)
            weights = np.array([probs.get(a, 0.0) for a in legal])
            action = legal[int(rng.choice(len(legal), p=weights / weights.sum()))]
            st = state.state
            if st[K.S_PHASE] == K.PH_DRAW and len(legal) > 1:
                key = (int(draw_stage(st)), hand_label(int(st[K.S_HAND + player])))
                entry = counts.setdefault(key, [0, 0])
                entry[0] += int(action != K.STAND)
                entry[1] += 1
            state.apply_action(action)
            draw_chance(state, rng)
    return counts


def draw_table(counts: dict) -> list[dict]:
    """Rows ``stage, stage_name, hand, draws, decisions, frequency, ci95_low, ci95_high`` from ``draw_counts``."""
    rows = []
    for (stage, hand), (draws, decisions) in sorted(counts.items()):
        est = proportion_ci(draws, decisions)
        rows.append({"stage": stage, "stage_name": STAGE_NAMES[stage], "hand": hand, "draws": draws,
                     "decisions": decisions, "frequency": est.value, "ci95_low": est.ci95_low,
                     "ci95_high": est.ci95_high})
    return rows
