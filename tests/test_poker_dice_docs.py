"""docs/games/poker_dice.md documents the sizes the game really has."""

from pathlib import Path

import pyspiel
import pytest

import gamut.envs.poker_dice.game  # noqa: F401  (registers poker_dice)
from gamut.envs.poker_dice.game import DEFAULT_PARAMS
from gamut.envs.poker_dice.kernels import NUM_ACTIONS
from gamut.envs.versions import game_variants
from tests.test_docs import fact_blocks, parse_value

PAGE = Path(__file__).resolve().parent.parent / "docs" / "games" / "poker_dice.md"
BLOCKS = fact_blocks(PAGE)


@pytest.mark.parametrize("facts", BLOCKS, ids=[b["game"] for b in BLOCKS])
def test_documented_facts_match(facts):
    game = pyspiel.load_game(facts["game"])
    for key, text in facts.items():
        if key != "game":
            assert getattr(game, key)() == pytest.approx(parse_value(text)), key


def test_every_variant_documented_and_sizes_follow_the_formula():
    documented = {str(pyspiel.load_game(b["game"])) for b in BLOCKS}
    assert {str(pyspiel.load_game(v)) for v in game_variants()["poker_dice"]} <= documented
    text = PAGE.read_text()
    assert f"{NUM_ACTIONS} action ids" in text
    for variant, boxes in (("classic", 15), ("yacht12", 12), ("yahtzee", 13), ("ranking", 0)):
        for n in (2, 5):
            game = pyspiel.load_game(f"poker_dice(variant={variant},players={n})")
            assert game.observation_tensor_shape() == [19 + n * (boxes + 10)]
    rows = {line.split("|")[1].strip(" `"): line for line in text.splitlines()
            if line.startswith("| `")}
    for name, default in DEFAULT_PARAMS.items():
        cells = [c.strip(" `") for c in rows[name].split("|")]
        assert cells[3] == str(default).lower(), (name, cells)


def test_documented_observation_scales_and_version():
    from gamut.envs.poker_dice.encoding import observation_scales
    from gamut.envs.poker_dice import GAME

    text = PAGE.read_text()
    rows = [line.split("|")[1:-1] for line in text.splitlines()
            if line.split("|")[1:2] in ([" max rolls "], [" total "], [" aux "], [" score "])]
    header = next(line for line in text.splitlines() if line.startswith("| scale | rule |"))
    variants = [c.strip() for c in header.split("|")[3:-1]]
    for column, variant in enumerate(variants):
        players = 3 if variant == "ranking" else 1
        game = pyspiel.load_game(f"poker_dice(variant={variant},players={players})")
        documented = [float(row[2 + column].split()[0]) for row in rows]
        assert documented == observation_scales(game.tables).tolist(), variant
    assert f"\n- {GAME.version}: observation tensor scaled" in text
