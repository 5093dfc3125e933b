"""One base for the toolkit's pyspiel games, whose rules are Numba kernels.

A game module declares what is its own and inherits the rest:

* :class:`KernelGame` builds the ``GameType`` from class-level declarations
  (names, dynamics, chance mode, information, utility, player counts,
  parameter defaults), completes the parameters with their defaults and
  refuses unknown names, states each instance's utility from its
  ``GameInfo``, loads saved states through :mod:`gamut.envs.serialization`
  and builds the Python observer with OpenSpiel's default observation type.
* :class:`KernelState` saves itself through :mod:`gamut.envs.serialization`
  and refuses an illegal action (:func:`gamut.envs.legality.require_legal`)
  before any kernel runs.
* :func:`register` registers a game class with pyspiel.
* :func:`tensor_views` lays out an observer's tensor and its named views.

A subclass of :class:`KernelGame` sets the declarations, ``state_class``,
and implements ``check_values`` (its own parameter checks), ``configure``
(its kernels' arrays and its ``GameInfo``) and ``observer``; a subclass of
:class:`KernelState` implements ``apply`` (the kernels' move) besides the
usual pyspiel ``State`` methods. OpenSpiel clones a Python state by
deep-copying its attributes, so a state keeps to small arrays and numbers
and reaches shared tables through ``get_game()``; this base adds none.

Worked example: a one-player game of a single fair coin flip::

    >>> import numpy as np, pyspiel
    >>> class CoinState(KernelState):
    ...     def __init__(self, game):
    ...         super().__init__(game)
    ...         self.state = np.full(1, -1, dtype=np.int64)   # the face, -1 before the flip
    ...     def current_player(self):
    ...         return pyspiel.PlayerId.CHANCE if self.state[0] < 0 else pyspiel.PlayerId.TERMINAL
    ...     def chance_outcomes(self):
    ...         return [(0, 0.5), (1, 0.5)]
    ...     def apply(self, action):
    ...         self.state[0] = action
    ...     def _action_to_string(self, player, action):
    ...         return "heads" if action else "tails"
    ...     def is_terminal(self):
    ...         return self.state[0] >= 0
    ...     def returns(self):
    ...         return [float(self.state[0])]
    >>> class CoinGame(KernelGame):
    ...     short_name, long_name = "doctest_coin", "A coin flip"
    ...     information = pyspiel.GameType.Information.PERFECT_INFORMATION
    ...     utility = pyspiel.GameType.Utility.GENERAL_SUM
    ...     min_num_players = max_num_players = 1
    ...     default_params = {"faces": 2}
    ...     state_class = CoinState
    ...     def configure(self, p):
    ...         return pyspiel.GameInfo(num_distinct_actions=1, max_chance_outcomes=p["faces"], num_players=1,
    ...                                 min_utility=0.0, max_utility=1.0, max_game_length=1)
    >>> CoinGame.check_params({"sides": 2})
    Traceback (most recent call last):
    ValueError: unknown doctest_coin parameter(s) ['sides']; allowed: ['faces']
    >>> state = CoinGame().new_initial_state()
    >>> state.apply_action(1)
    >>> state.returns(), state.serialize()
    ([1.0], 'gamut-state v1 doctest_coin(faces=2)\\n1')
"""

from __future__ import annotations

import numpy as np
import pyspiel

from gamut.envs.legality import require_legal
from gamut.envs.serialization import deserialize_state, serialize_state


class KernelGame(pyspiel.Game):
    """A pyspiel game of the toolkit: the GameType, parameters, saved states and observers.

    Attributes
    ----------
    short_name, long_name : str
        The names of the ``GameType``.
    dynamics, chance_mode, information, reward_model : pyspiel.GameType enums
        The ``GameType`` fields; the first, second and fourth default to
        sequential moves, explicit stochastic chance and terminal rewards.
    utility : pyspiel.GameType.Utility
        The utility of the registered ``GameType``. Each instance states the
        utility its ``GameInfo`` gives instead (see :func:`instance_utility`).
    min_num_players, max_num_players : int
        The ``GameType``'s player counts.
    provides_information_state : bool
        Whether the game gives information-state strings and tensors
        (default true); observation strings and tensors it always gives.
    default_params : dict
        Every parameter with its default: the ``GameType``'s parameter
        specification, and what :meth:`check_params` completes with.
    state_class : type
        The :class:`KernelState` subclass ``new_initial_state`` returns.
    params : dict
        An instance's checked parameters, defaults included.
    """

    short_name: str
    long_name: str
    dynamics = pyspiel.GameType.Dynamics.SEQUENTIAL
    chance_mode = pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    information: pyspiel.GameType.Information
    utility: pyspiel.GameType.Utility
    reward_model = pyspiel.GameType.RewardModel.TERMINAL
    min_num_players: int
    max_num_players: int
    provides_information_state = True
    default_params: dict
    state_class: type

    def __init__(self, params=None):
        p = self.check_params(dict(params or {}))
        self.params = p
        info = self.configure(p)
        super().__init__(self.game_type(instance_utility(info)), info, p)

    @classmethod
    def game_type(cls, utility: pyspiel.GameType.Utility | None = None) -> pyspiel.GameType:
        """The ``GameType`` of the declarations, with ``utility`` if given (else the declared one)."""
        return pyspiel.GameType(
            short_name=cls.short_name,
            long_name=cls.long_name,
            dynamics=cls.dynamics,
            chance_mode=cls.chance_mode,
            information=cls.information,
            utility=cls.utility if utility is None else utility,
            reward_model=cls.reward_model,
            max_num_players=cls.max_num_players,
            min_num_players=cls.min_num_players,
            provides_information_state_string=cls.provides_information_state,
            provides_information_state_tensor=cls.provides_information_state,
            provides_observation_string=True,
            provides_observation_tensor=True,
            parameter_specification=dict(cls.default_params),
        )

    @classmethod
    def check_params(cls, params: dict) -> dict:
        """Complete ``params`` with defaults and check them; ValueError names the bad parameter.

        An unknown name is refused here, naming the allowed ones; the values
        are the game's to check (:meth:`check_values`).
        """
        unknown = set(params) - set(cls.default_params)
        if unknown:
            raise ValueError(f"unknown {cls.short_name} parameter(s) {sorted(unknown)}; "
                             f"allowed: {sorted(cls.default_params)}")
        return cls.check_values({**cls.default_params, **params})

    @staticmethod
    def check_values(p: dict) -> dict:
        """The completed parameters ``p``, checked (and put in canonical form) by the game; none here."""
        return p

    def configure(self, p: dict) -> pyspiel.GameInfo:
        """Set up what the kernels need for checked parameters ``p`` and return the ``GameInfo``."""
        raise NotImplementedError(f"{type(self).__name__} must say how its parameters configure it")

    def new_initial_state(self):
        return self.state_class(self)

    def deserialize_state(self, text):
        """The state saved by ``state.serialize()``, rebuilt by replay and checked (no pickle)."""
        return deserialize_state(text, self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        return self.observer(iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params)

    def observer(self, iig_obs_type: pyspiel.IIGObservationType, params):
        """The Python observer of ``iig_obs_type`` (what a player sees) with observer ``params``."""
        raise NotImplementedError(f"{type(self).__name__} has no observer")


class KernelState(pyspiel.State):
    """A position of a :class:`KernelGame`; saved as text, and checked before every move."""

    def serialize(self):
        """Game string and action history as plain text (``gamut.envs.serialization``); no pickle."""
        return serialize_state(self)

    def _apply_action(self, action):
        require_legal(self, action)
        self.apply(int(action))

    def apply(self, action: int) -> None:
        """Make the legal move (or chance outcome) ``action`` through the kernels."""
        raise NotImplementedError(f"{type(self).__name__} must say how a move is made")


def instance_utility(info: pyspiel.GameInfo) -> pyspiel.GameType.Utility:
    """The utility a game with ``info`` has: zero- or constant-sum by its ``utility_sum``, else general-sum.

    A game's parameters can change it (a one-player variant has no fixed sum),
    so each instance states its own rather than the registered one.
    """
    utility = pyspiel.GameType.Utility
    if info.utility_sum is None:
        return utility.GENERAL_SUM
    return utility.ZERO_SUM if info.utility_sum == 0 else utility.CONSTANT_SUM


def tensor_views(pieces) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """An observer's zero ``float32`` tensor of ``pieces`` laid end to end, and its view of each piece by name.

    ``pieces`` is a sequence of ``(name, shape)``. The views share the
    tensor's memory, so an observer that writes its ``tensor`` fills its
    ``dict`` too.

    >>> tensor, views = tensor_views([("seat", (2,)), ("cards", (2, 3))])
    >>> views["cards"][1, 0] = 1.0
    >>> tensor.tolist()
    [0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0]
    """
    tensor = np.zeros(sum(int(np.prod(shape)) for _, shape in pieces), np.float32)
    views = {}
    start = 0
    for name, shape in pieces:
        size = int(np.prod(shape))
        views[name] = tensor[start:start + size].reshape(shape)
        start += size
    return tensor, views


def register(game_class: type[KernelGame]) -> None:
    """Register ``game_class`` with pyspiel under its ``short_name`` and declared ``GameType``."""
    pyspiel.register_game(game_class.game_type(), game_class)
