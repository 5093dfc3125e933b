"""Bots for the scorecard variants of ``poker_dice``: optimal, greedy, MCTS and random.

* ``optimal``: the solitaire-optimal policy read from the exact DP value table
  (maximises the player's own expected final score; in a game of several
  players it ignores the others).
* ``greedy``: maximises the points of the current turn only (the same turn
  graph with every later turn valued 0).
* ``mcts``: OpenSpiel's Python MCTS with random rollouts.
* ``random``: OpenSpiel's uniform random bot.

    >>> import pyspiel, gamut.envs.poker_dice.game
    >>> game = pyspiel.load_game("poker_dice(variant=yacht12,players=1)")
    >>> bot = make_bot("optimal", game, seed=0)
    >>> state = game.new_initial_state()
    >>> state.apply_action(dice.roll_id((6, 6, 6, 6, 6)))
    >>> state.action_to_string(0, bot.step(state))
    'box poker'
"""

from __future__ import annotations

import numpy as np
import pyspiel

from gamut.envs import dice
from gamut.envs.poker_dice import kernels as K
from gamut.solvers.poker_dice.solution import DiceSolution, solve

BOT_NAMES = ("optimal", "greedy", "mcts", "random")


class TableBot(pyspiel.Bot):
    """Plays the best option of a :class:`DiceSolution` (its value table decides)."""

    # What ``last_values`` holds (read by ``gamut play``'s hint).
    VALUES_MEANING = "expected points to come"

    def __init__(self, game, player_id: int, solution: DiceSolution):
        pyspiel.Bot.__init__(self)
        self._game = game
        self._player = player_id
        self._solution = solution
        self._names = list(game.box_names)
        self.last_values: list[tuple[int, float]] | None = None

    def restart_at(self, state):
        pass

    def step(self, state):
        return self.best_action(state)

    def best_action(self, state) -> int:
        """The action with the highest value under this bot's table."""
        st = state.state
        base = K.S_PLAYERS + K.PLAYER_FIELDS * int(st[K.S_PLAYER])
        rolls = int(st[K.S_ROLLS])
        aux = int(st[base + K.F_AUX])
        bank = aux - max(0, rolls - K.BASE_ROLLS)  # banked rolls spent this turn
        options = self._solution.options(int(st[base + K.F_MASK]), int(st[base + K.F_TOTAL]), aux,
                                         int(st[K.S_ROLL]), max(0, K.BASE_ROLLS - rolls), bank)
        ids = [K.BOX_BASE + self._names.index(o["box"]) if o["action"] == "box" else dice.keep_id(o["keep"])
               for o in options]
        # Every option's value under the table, best first (the points scored now included).
        self.last_values = [(a, float(o["value"])) for a, o in zip(ids, options)]
        return ids[0]


def _greedy_solution(solution: DiceSolution) -> DiceSolution:
    return DiceSolution(solution.variant, solution.tables, solution.layout,
                        np.zeros_like(solution.values), 0.0, False)


def make_bot(name: str, game, player_id: int = 0, seed: int = 0, cache_dir=True,
             simulations: int = 200):
    """A bot ``name`` (one of ``BOT_NAMES``) for ``player_id`` of a loaded poker_dice game."""
    if name not in BOT_NAMES:
        raise ValueError(f"bot {name!r} is not one of {', '.join(BOT_NAMES)}")
    if name == "random":
        return pyspiel.make_uniform_random_bot(player_id, seed)
    if name == "mcts":
        from open_spiel.python.algorithms import mcts

        rng = np.random.RandomState(seed)
        evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
        return mcts.MCTSBot(game, 2.0, simulations, evaluator, random_state=rng)
    if game.variant is None:
        raise ValueError(f"bot {name!r} needs a scorecard variant, not the ranking game")
    params = game.params
    solution = solve(params["variant"], params["joker"], cache_dir=cache_dir)
    if name == "greedy":
        solution = _greedy_solution(solution)
    return TableBot(game, player_id, solution)
