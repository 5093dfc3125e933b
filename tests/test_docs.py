"""Every game page documents the sizes the game really has (`gamut-facts` blocks)."""

import re
from pathlib import Path

import pyspiel
import pytest

import gamut.envs  # noqa: F401  (registers the toolkit's games)
from gamut.envs.versions import game_variants

DOCS = Path(__file__).resolve().parent.parent / "docs" / "games"
FACT_BLOCK = re.compile(r"```gamut-facts\n(.*?)```", re.S)


def fact_blocks(path: Path) -> list[dict]:
    blocks = []
    for body in FACT_BLOCK.findall(path.read_text()):
        facts = {}
        for line in body.strip().splitlines():
            key, _, value = line.partition(":")
            facts[key.strip()] = value.strip()
        blocks.append(facts)
    return blocks


def parse_value(text: str):
    if text.startswith("["):
        return [int(x) for x in text.strip("[]").split(",") if x.strip()]
    try:
        return int(text)
    except ValueError:
        return float(text)


ALL_BLOCKS = [(path.name, block) for path in sorted(DOCS.glob("*.md")) for block in fact_blocks(path)]


@pytest.mark.parametrize("page, facts", ALL_BLOCKS, ids=[f"{p}:{b['game']}" for p, b in ALL_BLOCKS])
def test_documented_facts_match_the_game(page, facts):
    game = pyspiel.load_game(facts["game"])
    for key, text in facts.items():
        if key == "game":
            continue
        actual = getattr(game, key)()
        expected = parse_value(text)
        assert actual == pytest.approx(expected), f"{page}: {key} is {actual}, the page says {text}"


@pytest.mark.parametrize("short_name", list(game_variants()))
def test_every_game_has_a_page_covering_every_variant(short_name):
    page = DOCS / f"{short_name}.md"
    assert page.exists(), f"docs/games/{short_name}.md is missing"
    documented = {str(pyspiel.load_game(block["game"])) for block in fact_blocks(page)}
    for variant in game_variants()[short_name]:
        assert str(pyspiel.load_game(variant)) in documented, f"{page.name} has no gamut-facts block for {variant}"


@pytest.mark.parametrize("short_name", list(game_variants()))
def test_every_game_specific_agent_is_documented(short_name):
    """Each agent registered for this game by name (not for every game) appears on its page."""
    from gamut.solvers.bots import ANY_GAME, bot_specs

    text = (DOCS / f"{short_name}.md").read_text()
    missing = set()
    for variant in game_variants()[short_name]:
        for name, spec in bot_specs(pyspiel.load_game(variant)).items():
            if ANY_GAME not in spec.games and f"`{name}`" not in text:
                missing.add(name)
    assert not missing, f"docs/games/{short_name}.md does not describe the agents {sorted(missing)}"
