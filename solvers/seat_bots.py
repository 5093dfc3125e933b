"""Bases of the agents that play one seat and keep nothing between games, and a game played by such bots.

``SeatBot`` answers ``player_id`` and ``restart_at`` for its seat and refuses
a state where another seat is to act (``check_turn``); ``PolicyBot`` adds
``step_with_policy`` for agents that act by a distribution over the legal
actions of their seat. Each agent then only says how it chooses.
``play_out`` plays a state to its end with one bot a seat and chance
outcomes from a given function (a match's common random deals).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pyspiel


class SeatBot(pyspiel.Bot):
    """A ``pyspiel.Bot`` for one seat whose moves need no memory of earlier games.

    Subclasses set the class attribute ``name`` (the agent's name in error
    messages) and implement ``step``.

    Parameters
    ----------
    player : int
        The seat the bot plays.
    """

    name = ""

    def __init__(self, player: int):
        pyspiel.Bot.__init__(self)
        self._player = player

    def player_id(self) -> int:
        return self._player

    def restart_at(self, state) -> None:
        """Nothing to reset: the bot keeps no state between games."""

    def check_turn(self, state) -> None:
        """Refuse ``state`` (``ValueError``) unless the bot's seat is to act."""
        if state.current_player() != self._player:
            raise ValueError(f"the {self.name} bot plays seat {self._player}, but the player to act is "
                             f"{state.current_player()}")


class PolicyBot(SeatBot):
    """A ``SeatBot`` that acts by a distribution over the legal actions of its seat.

    Subclasses implement ``_policy(state, legal)``: for the non-empty list
    ``legal``, the pairs ``[(action, probability), ...]`` and the action
    chosen. Where its seat has no legal action (another seat is to act, or the
    game is over) the bot returns ``([], pyspiel.INVALID_ACTION)``.
    """

    def provides_policy(self) -> bool:
        return True

    def step_with_policy(self, state):
        legal = state.legal_actions(self._player)
        if not legal:
            return [], pyspiel.INVALID_ACTION
        return self._policy(state, legal)

    def step(self, state) -> int:
        return self.step_with_policy(state)[1]


def play_out(state: pyspiel.State, bots: Sequence[pyspiel.Bot], chance: Callable[[pyspiel.State], int]) -> None:
    """Play ``state`` to its end in place: ``bots[s]`` moves for seat ``s``, ``chance(state)`` picks each chance outcome.

    Each bot is restarted first and hears every other seat's action (and
    each chance outcome) through ``inform_action``.
    """
    for bot in bots:
        bot.restart_at(state)
    while not state.is_terminal():
        if state.is_chance_node():
            actor = pyspiel.PlayerId.CHANCE
            action = chance(state)
        else:
            actor = state.current_player()
            action = bots[actor].step(state)
        for seat, bot in enumerate(bots):
            if seat != actor:
                bot.inform_action(state, actor, action)
        state.apply_action(action)
