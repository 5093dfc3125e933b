"""The contract of a game's action features (``GAME.action_features``), one base for every game that lends them.

A learner that scores actions by their features (Deep Monte-Carlo's
Q-network, PPO's action head) calls ``features(inputs, mask)`` on a batch of
network inputs and legal masks. A game's features subclass
:class:`ActionFeatures`: they set ``size`` and ``name``, compute the
features in ``compute``, and may accept only some input widths
(``layouts``, filled by ``read_layouts``).

    >>> import numpy as np
    >>> class Toy(ActionFeatures):
    ...     size, name = 1, "Toy"
    ...     def compute(self, inputs, mask, layout):
    ...         return np.where(mask, inputs[:, :1], 0.0)[:, :, None].astype(np.float32)
    >>> class Game:
    ...     def num_distinct_actions(self): return 2
    ...     def max_utility(self): return 30.0
    ...     def min_utility(self): return -30.0
    >>> toy = Toy(Game())
    >>> toy.return_scale, toy(np.array([[5.0]], np.float32), np.array([[True, False]]))[0, :, 0].tolist()
    (3.0, [5.0, 0.0])
"""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np


class ActionFeatures(ABC):
    """Callable ``(inputs, mask) -> float32 (N, A, size)``: the features of every action of every row.

    Attributes
    ----------
    size : int
        Features per action.
    name : str
        The game's name, for messages.
    one_hot : bool
        False: these are real features, not the generic action one-hot.
    num_actions : int
        ``A``, the game's distinct actions.
    return_scale : float
        A typical return's size, at least 1: by default a tenth of the
        largest absolute return. DMC divides its targets by it so they are of
        order 1.
    layouts : dict
        The input widths accepted, each with what ``compute`` needs to read
        it (tensor offsets); empty: any width.
    """

    one_hot = False
    size: int
    name: str

    def __init__(self, game):
        self.num_actions = game.num_distinct_actions()
        self.return_scale = max(1.0, max(abs(game.max_utility()), abs(game.min_utility())) / 10.0)
        self.layouts = {}

    def read_layouts(self, game, layout_of) -> None:
        """Accept the observation and the information-state tensor, each followed by the seat one-hot.

        ``layout_of(recall)`` gives what ``compute`` needs to read the tensor
        with (``recall=True``) or without perfect recall.
        """
        seat = game.num_players()
        for recall, size in ((False, game.observation_tensor_size()), (True, game.information_state_tensor_size())):
            self.layouts[size + seat] = layout_of(recall)

    def __call__(self, inputs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Features float32 ``(N, A, size)`` of every action of every row (layout in the game's module docstring).

        Parameters
        ----------
        inputs : float32 (N, D)
            Network inputs: the observation or information-state tensor of the
            player to move (private pieces included), then the seat one-hot.
        mask : bool (N, A)
            Legal actions; the other actions get zeros.

        Returns
        -------
        float32 (N, A, size)

        Raises
        ------
        ValueError
            When ``layouts`` does not hold the width of ``inputs`` (a public-only tensor, say).
        """
        layout = self.layouts.get(inputs.shape[1])
        if self.layouts and layout is None:
            raise ValueError(f"{self.name} action features read observation or information-state inputs with "
                             f"the seat (widths {sorted(self.layouts)}), not width {inputs.shape[1]}")
        return self.compute(inputs, mask, layout)

    @abstractmethod
    def compute(self, inputs: np.ndarray, mask: np.ndarray, layout) -> np.ndarray:
        """The features of ``inputs`` read with ``layout`` (``None`` when ``layouts`` is empty)."""
