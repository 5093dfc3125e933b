"""The bot of the ``optimal`` and ``greedy`` poker-dice agents: a DP value table decides every move.

* ``optimal``: the solitaire-optimal policy read from the exact DP value table
  (maximises the player's own expected final score; in a game of several
  players it ignores the others).
* ``greedy``: maximises the points of the current turn only (the same turn
  graph with every later turn valued 0).

Both play the scorecard variants, not the ranking game (the agent table,
``gamut.solvers.poker_dice.agents``, refuses it).

    >>> import gamut
    >>> from gamut.envs import dice
    >>> game = gamut.load_game("poker_dice(variant=yacht12,players=1)")
    >>> bot = gamut.make_bot(game, "optimal", seed=0)
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


def _scorecard_solution(game) -> DiceSolution:
    """The DP solution of ``game``'s scorecard variant (cached on disk)."""
    if game.variant is None:
        raise ValueError("the table bots need a scorecard variant, not the ranking game")
    return solve(game.params["variant"], game.params["joker"])


def make_optimal_bot(game, player: int, seed: int) -> TableBot:
    """Registry factory of ``optimal``: the exact DP table of ``game``'s variant (deterministic; ``seed`` unused)."""
    return TableBot(game, player, _scorecard_solution(game))


def make_greedy_bot(game, player: int, seed: int) -> TableBot:
    """Registry factory of ``greedy``: the DP tables with every later turn valued 0 (``seed`` unused)."""
    return TableBot(game, player, _greedy_solution(_scorecard_solution(game)))
