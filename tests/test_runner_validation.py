"""Registered experiments resolve their agents, options and games from the config, before any trial runs."""

from pathlib import Path

import pytest

from gamut.experiments.config import CONFIG_DIR, ConfigError
from gamut.experiments.experiment import load_experiment


def edited(tmp_path: Path, name: str, old: str, new: str) -> Path:
    text = (CONFIG_DIR / f"{name}.toml").read_text()
    assert old in text, f"{name}.toml no longer holds {old!r}"
    path = tmp_path / f"{name}.toml"
    path.write_text(text.replace(old, new, 1))
    return path


@pytest.mark.parametrize("name, old, new, message", [
    ("poker_squares_agents", '"mc"]', '"mc", "nosuchbot"]', "field 'agents' (american): unknown agent 'nosuchbot'"),
    ("palace_tournament", "options = []", 'options = ["ismcts.nosuch=3"]',
     "agent 'ismcts' has no option 'nosuch'"),
    ("palace_tournament", "options = []", 'options = ["heuristic.iterations=3"]', "has no option 'iterations'"),
    ("palace_tournament", '"ismcts:heuristic"]\nbetting', '"ismcts:nosuch"]\nbetting', "unknown agent 'nosuch'"),
    # An option for an agent that sits at no table would otherwise be ignored without a word.
    ("palace_tournament", "options = []", 'options = ["cfr-policy.iterations=3"]',
     "field 'options' sets options of 'cfr-policy', which plays in none"),
    ("poke_doubling", "small_trick_value = 34.0", "small_trick_value = -1.0", "'small_trick_value' must be > 0"),
    ("poke_doubling", "small_trick_value = 34.0", "small_trick_value = inf", "expected a finite number"),
])
def test_a_config_naming_an_unknown_agent_or_option_fails_before_any_trial(tmp_path, name, old, new, message):
    path = edited(tmp_path, name, old, new)
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(")", r"\)")) as err:
        load_experiment(name, "full", path)
    assert str(path) in str(err.value)


def test_the_committed_configs_pass_their_checks():
    for name in ("poker_squares_agents", "palace_tournament", "poke_doubling"):
        for profile in ("full", "quick"):
            assert load_experiment(name, profile).config.params["trials"] >= 1
