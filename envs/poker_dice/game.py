"""Poker dice as a pyspiel game: parameters, GameType/GameInfo, State and Observer.

Every rule lives in :mod:`gamut.envs.poker_dice.kernels` (turn engine) and
:mod:`gamut.envs.poker_dice.scoring` (scorecards); the State holds one ``int64``
array and calls them. Action ids and the state layout are documented in the
kernels module and in ``docs/games/poker_dice.md``.

    >>> import pyspiel, gamut.envs.poker_dice.game
    >>> game = pyspiel.load_game("poker_dice(variant=yacht12,players=1)")
    >>> state = game.new_initial_state()
    >>> len(state.chance_outcomes()), state.chance_outcomes()[0]   # five ones: 1/7776
    (252, (0, 0.0001286008230452675))
"""

from __future__ import annotations

import numpy as np
import pyspiel

from gamut.envs import dice
from gamut.envs.kernel_game import KernelGame, KernelState, register, tensor_views
from gamut.envs.poker_dice import kernels as K
from gamut.envs.poker_dice.encoding import (
    encode_observation, observation_pieces, observation_scales, score_bounds,
)
from gamut.envs.poker_dice.scorecard import AUX_BANK, box_names, compile_variant, make_variant, ranking_tables

GAME_NAME = "poker_dice"
SCORECARD_VARIANTS = ("classic", "classic_banked", "yacht12", "yahtzee")
VARIANTS = SCORECARD_VARIANTS + ("ranking",)
DEFAULT_PARAMS = {"variant": "classic", "players": 2, "joker": "free", "zero_sum": False}


def check_values(p: dict) -> dict:
    """Check the values of parameters ``p`` completed with defaults; ValueError names the bad parameter."""
    if p["variant"] not in VARIANTS:
        raise ValueError(f"variant={p['variant']!r} is not one of {', '.join(VARIANTS)}")
    low = 2 if p["variant"] == "ranking" else 1
    players = p["players"]
    if isinstance(players, bool) or not isinstance(players, (int, np.integer)) or \
            not low <= players <= K.MAX_PLAYERS:
        raise ValueError(f"players={players!r} must be an integer in {low}..{K.MAX_PLAYERS} "
                         f"for variant {p['variant']}")
    make_variant("yahtzee", p["joker"])  # validates the joker rule
    if p["joker"] != DEFAULT_PARAMS["joker"] and p["variant"] != "yahtzee":
        raise ValueError(f"joker={p['joker']} applies to variant=yahtzee only, not to variant={p['variant']}; "
                         f"leave joker at its default ({DEFAULT_PARAMS['joker']})")
    if not isinstance(p["zero_sum"], (bool, np.bool_)):
        raise ValueError(f"zero_sum={p['zero_sum']!r} must be true or false")
    if p["zero_sum"] and players == 1:
        raise ValueError("zero_sum=true with players=1: a one-player game cannot be zero-sum "
                         "(its return is the total score)")
    if p["zero_sum"] and p["variant"] != "ranking":
        raise ValueError(f"zero_sum=true applies to variant=ranking only (win share minus 1/n); "
                         f"variant={p['variant']} already returns each total minus the mean of all totals")
    return p


def _game_info(p: dict, tables) -> pyspiel.GameInfo:
    n = p["players"]
    if p["variant"] == "ranking":
        # Per player: at most two rerolls and a stop.
        length = n * (K.BASE_ROLLS - 1 + 1)
        low, high = (-1.0 / n, 1.0 - 1.0 / n) if p["zero_sum"] else (0.0, 1.0)
        total = 0.0 if p["zero_sum"] else 1.0
    else:
        boxes = tables.num_boxes
        # Per turn two rerolls and a box; banked rolls (at most two per turn) add extra rerolls.
        extra = 2 * boxes if tables.aux_kind == AUX_BANK else 0
        length = n * (boxes * K.BASE_ROLLS + extra)
        worst, best = score_bounds(tables)
        if n == 1:
            low, high, total = float(worst), float(best), None
        else:
            spread = (best - worst) * (n - 1) / n  # score minus the mean of all scores
            low, high, total = -spread, spread, 0.0
    return pyspiel.GameInfo(
        num_distinct_actions=K.NUM_ACTIONS, max_chance_outcomes=dice.NUM_ROLLS, num_players=n,
        min_utility=low, max_utility=high, utility_sum=total, max_game_length=length,
    )


class PokerDiceState(KernelState):
    """A poker-dice position: one ``int64`` array (``kernels.STATE_SIZE``)."""

    def __init__(self, game: PokerDiceGame):
        super().__init__(game)
        self.state = np.zeros(K.STATE_SIZE, dtype=np.int64)
        K.init_state(self.state, game.cfg, game.tables.params)

    def _packed(self):
        t = self.get_game().tables
        return t.params, t.box_data, t.roll_data

    def current_player(self):
        return int(K.current_player(self.state))

    def _legal_actions(self, player):
        game = self.get_game()
        out = np.empty(K.NUM_ACTIONS, dtype=np.int64)
        allowed = np.zeros(game.tables.num_boxes, dtype=np.bool_)
        n = K.legal_actions(self.state, game.cfg, *self._packed(), out, allowed)
        return out[:n].tolist()

    def chance_outcomes(self):
        outcomes = np.empty(dice.NUM_ROLLS, dtype=np.int64)
        probs = np.empty(dice.NUM_ROLLS)
        n = K.chance_outcomes(self.state, outcomes, probs)
        return list(zip(outcomes[:n].tolist(), probs[:n].tolist()))

    def apply(self, action):
        K.apply_action(self.state, self.get_game().cfg, *self._packed(), action)

    def _action_to_string(self, player, action):
        return action_to_string(self.get_game(), player, int(action))

    def is_terminal(self):
        return self.state[K.S_PHASE] == K.PH_OVER

    def returns(self):
        game = self.get_game()
        out = np.zeros(game.num_players())
        K.returns(self.state, game.cfg, out)
        return out.tolist()

    def __str__(self):
        return state_string(self.get_game(), self.state)


class PokerDiceGame(KernelGame):
    """Poker dice with the parameters of ``DEFAULT_PARAMS`` (see ``docs/games/poker_dice.md``).

    Registered as general-sum; each game instance declares the utility its
    parameters give (zero-sum scores, constant-sum win shares, one player).
    """

    short_name = GAME_NAME
    long_name = "Poker dice (classic, banked, twelve-box, Yahtzee, ranking)"
    information = pyspiel.GameType.Information.PERFECT_INFORMATION
    utility = pyspiel.GameType.Utility.GENERAL_SUM
    min_num_players, max_num_players = 1, K.MAX_PLAYERS
    provides_information_state = False
    default_params = DEFAULT_PARAMS
    state_class = PokerDiceState
    check_values = staticmethod(check_values)

    def configure(self, p):
        ranking = p["variant"] == "ranking"
        if ranking:
            self.variant = None
            self.tables = ranking_tables()
            self.box_names = []
        else:
            self.variant = make_variant(p["variant"], p["joker"])
            self.tables = compile_variant(self.variant)
            self.box_names = box_names(self.variant)
        self.cfg = K.make_config(p["players"], ranking, bool(p["zero_sum"]))
        return _game_info(p, self.tables)

    def observer(self, iig_obs_type, params):
        if params:
            raise ValueError(f"poker_dice observers take no parameters; got {params}")
        return PokerDiceObserver(self)


# The check as a function, for callers that build a kernel config without a game.
check_params = PokerDiceGame.check_params


def action_to_string(game: PokerDiceGame, player: int, action: int) -> str:
    """``'roll 1,1,3,4,5'`` (chance), ``'keep 3,4,5'``, ``'box chance'`` or ``'stop'``."""
    if player == pyspiel.PlayerId.CHANCE:
        return "roll " + ",".join(map(str, dice.roll_faces(action)))
    if action < K.NUM_KEEPS:
        return "keep " + (",".join(map(str, dice.keep_faces(action))) or "nothing")
    if game.variant is None:
        return "stop"
    box = action - K.BOX_BASE
    if box >= len(game.box_names):
        # Action ids are shared by every variant; this one has fewer boxes.
        return f"box #{box} (no such box in {game.params['variant']})"
    return f"box {game.box_names[box]}"


def state_string(game: PokerDiceGame, st: np.ndarray) -> str:
    """A readable, complete description of the state (the game has perfect information)."""
    roll = st[K.S_ROLL]
    lines = [f"player {st[K.S_PLAYER]} round {st[K.S_ROUND]} rolls {st[K.S_ROLLS]} dice "
             + (",".join(map(str, dice.roll_faces(roll))) if roll >= 0 else "-")
             + f" keep {','.join(map(str, dice.keep_faces(st[K.S_KEEP])))}"
             + f" frozen {','.join(map(str, dice.keep_faces(st[K.S_FROZEN])))}"]
    for i in range(game.num_players()):
        base = K.S_PLAYERS + K.PLAYER_FIELDS * i
        hand = st[base + K.F_HAND]
        lines.append(f"p{i}: score {st[base + K.F_SCORE]} filled {st[base + K.F_MASK]:#x} "
                     f"total {st[base + K.F_TOTAL]} aux {st[base + K.F_AUX]} hand "
                     + (",".join(map(str, dice.roll_faces(hand))) if hand >= 0 else "-"))
    return "\n".join(lines)


class PokerDiceObserver:
    """Perfect-information observer: every player sees the whole state.

    The tensor (layout and scaling in :mod:`gamut.envs.poker_dice.encoding`) is
    written by ``encoding.encode_observation``, the kernel the batched
    environment calls too; ``dict`` holds named views of its pieces
    (``player``, ``dice``, ``rolls``, ``keep``, ``frozen``, ``filled``,
    ``totals``, ``hands``).
    """

    def __init__(self, game: PokerDiceGame):
        self.game = game
        self.scales = observation_scales(game.tables)
        self.tensor, self.dict = tensor_views(observation_pieces(game.num_players(), game.tables.num_boxes))

    def set_from(self, state, player: int) -> None:
        game = self.game
        encode_observation(state.state, game.cfg, game.tables.params, self.scales, self.tensor)

    def string_from(self, state, player: int) -> str:
        return state_string(self.game, state.state)


register(PokerDiceGame)
