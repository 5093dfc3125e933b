"""The action-feature contract (``gamut.envs.action_features``), for every game that declares features."""

import numpy as np
import pytest

from gamut.envs.action_features import ActionFeatures
from gamut.envs.loading import load_game
from gamut.envs.registry import declarations
from gamut.solvers.rl.features import action_features, features_name

DECLARING = sorted(name for name, declaration in declarations().items() if declaration.action_features)
# The games whose features read the input by its width (the others read fixed positions of any input).
BY_WIDTH = [name for name in DECLARING if action_features(load_game(name)).layouts]


def test_the_games_with_features_are_found():
    assert len(DECLARING) >= 3 and len(BY_WIDTH) >= 2


@pytest.mark.parametrize("name", DECLARING)
def test_declared_features_keep_the_contract(name):
    game = load_game(name)
    features = action_features(game)
    assert isinstance(features, ActionFeatures)
    assert not features.one_hot and features.return_scale >= 1 and features.size >= 1
    assert features.num_actions == game.num_distinct_actions()
    assert features_name(game) == declarations()[name].action_features


@pytest.mark.parametrize("name", BY_WIDTH)
def test_inputs_of_another_width_are_refused(name):
    features = action_features(load_game(name))
    with pytest.raises(ValueError, match=f"{features.name} action features .* not width 7"):
        features(np.zeros((1, 7), np.float32), np.ones((1, features.num_actions), bool))
