"""docs/vector.md stays true: its code blocks run (short settings, and once in full) and its tables match the code."""

import contextlib
import io
import re
from pathlib import Path

import pytest

from gamut.envs.vector import observation_bounds

PAGE = Path(__file__).resolve().parent.parent / "docs" / "vector.md"
# Settings of the page's examples -> the small values the quick test runs them with.
SHORT = {"NUM_ENVS": 16, "UPDATES": 3, "N": 8, "GAMES": 20}


def code_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", PAGE.read_text(), re.S)


def run_blocks(blocks, settings) -> tuple[dict, str]:
    """Run ``blocks`` in order in one namespace with ``NAME = value`` lines replaced by ``settings``."""
    namespace, out = {}, io.StringIO()
    for block in blocks:
        for name, value in settings.items():
            block = re.sub(rf"^{name} = .*$", f"{name} = {value}", block, flags=re.M)
        with contextlib.redirect_stdout(out):
            exec(compile(block, str(PAGE), "exec"), namespace)
    return namespace, out.getvalue()


def test_the_page_has_every_example():
    blocks = code_blocks()
    assert len(blocks) == 4
    for name in SHORT:
        assert any(re.search(rf"^{name} = ", block, re.M) for block in blocks), f"no setting {name} on the page"


def test_every_code_block_runs_with_short_settings():
    namespace, out = run_blocks(code_blocks(), SHORT)
    assert "mean score before training" in out and "mean score after training" in out
    assert re.search(r"seat 0 \(trained\) won \d+, seat 1 \(random\) won \d+ of \d+ games", out)
    assert namespace["finished"] >= SHORT["GAMES"]


@pytest.mark.slow
def test_the_training_example_prints_the_figures_the_page_gives():
    blocks = code_blocks()
    training = next(block for block in blocks if "UPDATES = " in block)
    _, out = run_blocks([training], {})
    before = re.search(r"mean score before training: ([\d.]+)", out).group(1)
    after = re.search(r"mean score after training: ([\d.]+)", out).group(1)
    updates = re.search(r"^UPDATES = (\d+)", training, re.M).group(1)
    text = PAGE.read_text()
    assert f"mean of {before} before training" in text and f"and {after} after {updates} updates" in text


def test_the_observation_ranges_table_matches_the_games():
    rows = re.findall(r"^\| `(\w+)` \| `\[(-?\d+), (-?\d+)\]`", PAGE.read_text(), re.M)
    assert {name for name, _, _ in rows} == {"poker_squares", "poker_dice", "poke", "palace_poker"}
    for name, low, high in rows:
        assert observation_bounds(name) == (float(low), float(high)), name
