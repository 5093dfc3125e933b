"""Game parameters that do not apply to a variant, or make a game unplayable, are refused with the reason."""

from __future__ import annotations

import re
from pathlib import Path

import pyspiel
import pytest

import gamut.envs  # noqa: F401  (registers the games)
from gamut.envs.palace_poker.game import check_params as palace_check_params
from gamut.envs.poker_dice.game import check_params as dice_check_params
from gamut.envs.versions import game_variants

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("game_string, reason", [
    ("poker_dice(variant=yacht12,joker=forced)", "joker=forced applies to variant=yahtzee only"),
    ("poker_dice(variant=classic,joker=none)", "joker=none applies to variant=yahtzee only"),
    ("poker_dice(variant=ranking,players=3,joker=forced)", "joker=forced applies to variant=yahtzee only"),
    ("poker_dice(players=1,zero_sum=true)", "a one-player game cannot be zero-sum"),
    ("poker_dice(variant=yahtzee,players=1,zero_sum=true)", "a one-player game cannot be zero-sum"),
    ("poker_dice(variant=classic,players=3,zero_sum=true)", "zero_sum=true applies to variant=ranking only"),
    ("palace_poker(stack=1)", r"leaves 1 after the ante of 1, less than the minimum bet 2 and one big bet"),
    ("palace_poker(big_bet=1000)", r"200 chips\) leaves 199 after the ante of 1, less than one big bet"),
    ("palace_poker(small_bet=1,big_bet=3,stack=2)", "the stack must be at least 3"),
    ("palace_poker(max_turns=1000000000)", "exceeds the longest game OpenSpiel can declare"),
    ("palace_poker(max_raises=1000000000)", "exceeds the longest game OpenSpiel can declare"),
    ("poke(max_deals=5)", "max_deals=5 applies to mode=game or mode=rubber only"),
    ("poke(mode=rubber,trick_value=2.0)", "trick_value=2.0 applies to mode=deal only"),
    ("poker_squares(two_player_return=difference)", "applies to players=2 only"),
])
def test_nonsensical_parameters_are_refused_with_the_reason(game_string, reason):
    with pytest.raises(ValueError, match=reason):
        pyspiel.load_game(game_string)


def test_zero_sum_must_be_a_boolean():
    # pyspiel checks the type of a game string's value; the game checks what it is given directly.
    with pytest.raises(ValueError, match="zero_sum='yes' must be true or false"):
        dice_check_params({"variant": "ranking", "players": 3, "zero_sum": "yes"})


@pytest.mark.parametrize("small_bet, big_bet", [(1, 2), (1, 4), (2, 4), (3, 5), (5, 40)])
def test_smallest_palace_stack_covers_the_ante_and_one_big_bet(small_bet, big_bet):
    ante = small_bet // 2
    least = next(k for k in range(1, 1000) if k * small_bet - ante >= big_bet)
    params = {"small_bet": small_bet, "big_bet": big_bet}
    assert palace_check_params({**params, "stack": least})["stack"] == least
    with pytest.raises(ValueError, match=f"the stack must be at least {least}"):
        palace_check_params({**params, "stack": least - 1})


def test_parameters_that_apply_still_load():
    for game_string in ("poker_dice(variant=yahtzee,players=2,joker=forced)", "poker_dice(variant=yahtzee,joker=none)",
                        "poker_dice(variant=ranking,players=8,zero_sum=true)", "poker_dice(variant=yacht12,joker=free)",
                        "palace_poker(players=10,stack=3)", "palace_poker(small_bet=1,big_bet=1,stack=1)",
                        "poke(mode=rubber,max_deals=6)", "poke(trick_value=34.0)",
                        "poker_squares(players=2,two_player_return=difference)"):
        pyspiel.load_game(game_string)


def test_every_documented_variant_loads():
    for variants in game_variants().values():
        for variant in variants:
            pyspiel.load_game(variant)


# A game string written out in full: name(key=value,...) with literal values only.
_LITERAL = re.compile(r"\b(poke|poker_dice|palace_poker|poker_squares)\((?:[a-z_]+=[A-Za-z0-9_.;]+"
                      r"(?:,[a-z_]+=[A-Za-z0-9_.;]+)*)?\)")
_PLACEHOLDER = re.compile(r"=[A-Z]\b")  # poker_dice(variant=V,players=N) in prose; "..." elides values


def _written_game_strings() -> dict[str, str]:
    found = {}
    folders = ("docs", "experiments", "results", "solvers", "envs", "notebooks", "benchmarks")
    paths = [ROOT / "README.md"] + [p for folder in folders for p in (ROOT / folder).rglob("*")
                                    if p.suffix in (".md", ".toml", ".json", ".py", ".ipynb", ".csv")]
    for path in paths:
        if not path.is_file() or path.stat().st_size > 2_000_000:
            continue
        for match in _LITERAL.finditer(path.read_text(errors="replace")):
            if not _PLACEHOLDER.search(match.group(0)) and "..." not in match.group(0):
                found.setdefault(match.group(0), str(path.relative_to(ROOT)))
    return found


def test_every_game_string_written_in_docs_configs_and_results_loads():
    found = _written_game_strings()
    assert "poker_squares(variant=open)" in found
    for game_string, where in found.items():
        try:
            pyspiel.load_game(game_string)
        except (ValueError, pyspiel.SpielError) as err:
            pytest.fail(f"{where} writes {game_string}, which does not load: {err}")
