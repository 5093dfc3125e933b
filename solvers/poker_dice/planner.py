"""The ``ppo_turn`` agent: a PPO value network between turns, exact expectimax inside each turn.

PPO trained with ``score_rewards`` learns a value network whose output (times
the run's ``value_scale``) is the expected number of points still to come
from a decision. This agent reads it at the boundaries of turns only: the
value of a scorecard at the start of a turn is the network's mean over the
252 first rolls,

    W(card) = sum over rolls r of P(r) * V(card, first roll r),

and a full card is worth its end-of-game award exactly (banked rolls). Inside
the turn the agent plans exactly, with the dice solver's own turn graph
(:func:`gamut.solvers.poker_dice.dp.turn_levels` over a
:class:`~gamut.solvers.poker_dice.solution.DiceSolution` whose table holds
``W`` instead of the optimal values): every keep is worth the exact
expectation over the dice it rolls, every box its points plus ``W`` of the
card it leaves. So its only approximation is the network's judgement of
scorecards; the policy network is not used.

``W`` is computed when a turn first needs it (the cards its box choices can
lead to) and kept for the rest of the agent's life. The network's input
includes the score banked so far, which a table shared by every game cannot
know; it is set to 0 for every card, so the agent's moves are a function of
the position alone, whatever games it played before. (Under score rewards
the network predicts the points still to come, which do not depend on the
points banked.)

    >>> import pyspiel, gamut.envs.poker_dice.game
    >>> from gamut.envs import dice
    >>> from gamut.solvers.rl.shipped import shipped_path
    >>> game = pyspiel.load_game("poker_dice(variant=yacht12,players=1)")
    >>> bot = TurnPlanner(game, 0, shipped_path("ppo", game))
    >>> state = game.new_initial_state()
    >>> state.apply_action(dice.roll_id((2, 3, 4, 5, 6)))
    >>> state.action_to_string(0, bot.step(state))
    'box large straight'
"""

from __future__ import annotations

import numba
import numpy as np

from gamut.envs import dice
from gamut.envs.poker_dice import kernels as K
from gamut.envs.poker_dice.encoding import encode_observation, observation_scales
from gamut.envs.poker_dice.scorecard import AUX_BANK, P_AUX_KIND, P_NUM_AUX, P_NUM_BOXES, P_SUM_LO
from gamut.envs.poker_dice.scoring import final_value, record
from gamut.solvers.poker_dice.dp import state_layout
from gamut.solvers.poker_dice.solution import DiceSolution
from gamut.solvers.poker_dice.table_bot import TableBot
from gamut.solvers.rl.checkpoint import RLFileError, load_weights
from gamut.solvers.rl.networks import forward, layer_sizes
from gamut.solvers.rl.shipped import shipped_path

FIRST_ROLL_PROBS = np.ascontiguousarray(dice.TRANSITION[0])
"""float64 (252,): probability of each roll id when five dice are rolled."""


@numba.njit(cache=True)
def turn_successors(p, bx, rd, offsets, mask, total, aux, index, masks, totals, auxes):
    """Every card a turn starting at ``(mask, total, aux)`` can leave; returns how many were written.

    Writes layout indices into ``index`` and the card's ``(mask, total, aux)``
    into ``masks``/``totals``/``auxes`` (int64, capacity
    ``num_boxes * 252 * 2 * num_aux``; repeats included). It covers every box
    left open, every roll, first roll or not, and every bank the turn can end
    with: a superset of what the turn's levels read (for ``aux`` only).
    """
    n, lo, num_aux = p[P_NUM_BOXES], p[P_SUM_LO], p[P_NUM_AUX]
    banks = min(aux + 3, num_aux) if p[P_AUX_KIND] == AUX_BANK else 1
    count = 0
    for b in range(n):
        if (mask >> b) & 1:
            continue
        for r in range(dice.NUM_ROLLS):
            for first in range(2):
                for c in range(banks):
                    bank_after = c if p[P_AUX_KIND] == AUX_BANK else aux
                    _, m2, s2, a2 = record(p, bx, rd, mask, total, aux, r, first == 1, b, bank_after)
                    if offsets[m2] < 0:
                        continue
                    index[count] = offsets[m2] + (s2 - lo) * num_aux + a2
                    masks[count], totals[count], auxes[count] = m2, s2, a2
                    count += 1
    return count


@numba.njit(cache=True)
def first_roll_inputs(cfg, p, bx, rd, scales, masks, totals, auxes, out):
    """Observation of each card after each first roll of its turn, with the score input 0.

    ``out`` float32 ``(len(masks) * 252, size)``: row ``i * 252 + r`` is the tensor
    of a one-player game whose card is ``(masks[i], totals[i], auxes[i])``, whose
    score is 0 and whose turn has just rolled roll id ``r``: the state built and
    encoded by the game's own kernels.
    """
    state = np.zeros(K.STATE_SIZE, np.int64)
    base = K.S_PLAYERS
    for i in range(len(masks)):
        filled = 0
        for b in range(p[P_NUM_BOXES]):
            filled += (masks[i] >> b) & 1
        for r in range(dice.NUM_ROLLS):
            K.init_state(state, cfg, p)
            state[K.S_ROUND] = filled
            state[base + K.F_MASK] = masks[i]
            state[base + K.F_TOTAL] = totals[i]
            state[base + K.F_AUX] = auxes[i]
            K.apply_action(state, cfg, p, bx, rd, r)
            encode_observation(state, cfg, p, scales, out[i * dice.NUM_ROLLS + r])


def value_network(game, path) -> tuple[dict, float]:
    """The value network ``v/*`` of a PPO weights file for ``game``, and the scale of its output.

    Raises :class:`~gamut.solvers.rl.checkpoint.RLFileError` when the file is
    damaged, was trained on another game or by another algorithm, holds no value
    network, or was trained without ``score_rewards`` (its value would then be
    the final score, which a table of scorecards cannot read without the score).
    """
    arrays, meta = load_weights(path, game, "ppo")
    if "v/w0" not in arrays:
        raise RLFileError(f"weights {path} hold no value network (only {', '.join(sorted(arrays))}); PPO weights "
                          "files written by gamut train hold one, older files do not")
    if meta.get("value_meaning") != "points to come":
        raise RLFileError(f"weights {path} were trained without score_rewards (their value is "
                          f"{meta.get('value_meaning', 'not recorded')!r}); ppo_turn reads the points still to come: "
                          "train with --set score_rewards=true")
    params = {k: np.asarray(a, np.float32) for k, a in arrays.items() if k.startswith("v/")}
    sizes = layer_sizes(params, "v")
    if sizes[0] != game.observation_tensor_size() or sizes[-1] != 1:
        raise RLFileError(f"weights {path}: the value network takes {sizes[0]} inputs and gives {sizes[-1]} "
                          f"outputs; {game} needs {game.observation_tensor_size()} and 1")
    return params, float(meta["value_scale"])


class TurnPlanner(TableBot):
    """Plays the exact turn graph over the start-of-turn values a PPO value network gives.

    Parameters
    ----------
    game : pyspiel.Game
        A one-player scorecard game of ``poker_dice``.
    player_id : int
    path : str or Path
        PPO weights file (from ``gamut train --set score_rewards=true``) trained on ``game``.
    """

    VALUES_MEANING = "expected points to come under the value network"

    def __init__(self, game, player_id: int, path):
        if game.variant is None:
            raise ValueError("ppo_turn plays the scorecard variants, not the ranking game")
        if game.num_players() != 1:
            raise ValueError(f"ppo_turn plans one player's card; {game} has {game.num_players()} players")
        self._params, self._scale = value_network(game, path)
        tables = game.tables
        layout = state_layout(tables)
        self._values = np.zeros(layout.size)
        self._known = np.zeros(layout.size, dtype=np.bool_)
        super().__init__(game, player_id, DiceSolution(game.variant, tables, layout, self._values, 0.0, False))
        self._cfg = game.cfg
        self._scales = observation_scales(tables)
        self._full = (1 << tables.num_boxes) - 1
        capacity = tables.num_boxes * dice.NUM_ROLLS * 2 * tables.num_aux
        self._buffers = tuple(np.zeros(capacity, np.int64) for _ in range(4))

    def best_action(self, state) -> int:
        st = state.state
        base = K.S_PLAYERS + K.PLAYER_FIELDS * int(st[K.S_PLAYER])
        self.learn_turn(int(st[base + K.F_MASK]), int(st[base + K.F_TOTAL]), int(st[base + K.F_AUX]))
        return super().best_action(state)

    def learn_turn(self, mask: int, total: int, aux: int) -> int:
        """Fill the values of every card the turn at ``(mask, total, aux)`` can leave; returns how many were new."""
        t = self._solution.tables
        index, masks, totals, auxes = self._buffers
        count = turn_successors(t.params, t.box_data, t.roll_data, self._solution.layout.offsets, mask, total, aux,
                                index, masks, totals, auxes)
        new, first = np.unique(index[:count], return_index=True)
        fresh = ~self._known[new]
        new, first = new[fresh], first[fresh]
        if len(new) == 0:
            return 0
        m, s, a = masks[first], totals[first], auxes[first]
        full = m == self._full
        self._values[new[full]] = [final_value(t.params, int(x)) for x in a[full]]
        if (~full).any():
            self._values[new[~full]] = self.start_values(m[~full], s[~full], a[~full])
        self._known[new] = True
        return len(new)

    def start_values(self, masks, totals, auxes) -> np.ndarray:
        """``W`` float64 ``(len(masks),)``: the network's points to come at the start of each card's turn."""
        t = self._solution.tables
        inputs = np.zeros((len(masks) * dice.NUM_ROLLS, self._game.observation_tensor_size()), np.float32)
        first_roll_inputs(self._cfg, t.params, t.box_data, t.roll_data, self._scales, np.ascontiguousarray(masks),
                          np.ascontiguousarray(totals), np.ascontiguousarray(auxes), inputs)
        v = forward(self._params, "v", inputs)[:, 0].astype(np.float64) * self._scale
        return v.reshape(len(masks), dice.NUM_ROLLS) @ FIRST_ROLL_PROBS


def make_turn_planner(game, player: int, seed: int, weights: str) -> TurnPlanner:
    """Registry factory of ``ppo_turn``: ``weights`` or the shipped PPO weights of ``game`` (``seed`` unused)."""
    return TurnPlanner(game, player, weights or shipped_path("ppo", game))
