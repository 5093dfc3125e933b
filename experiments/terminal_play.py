"""A person plays any toolkit game in the terminal against registered agents.

One experience for every game: the same prompt, the same commands (``help``,
``hint``, ``undo`` where the game allows it, ``actions``, ``board``, ``quit``),
a board or score sheet drawn by the game's view, and a clean exit on Ctrl-D.

A move is typed as its number in the listing or as its name, the game's action
string (any case; commas and spaces alike, so ``keep 3 3 5`` is ``keep 3,3,5``);
a game's view may accept friendlier forms too and explain why a move is not
legal. Anything else is answered with the legal moves and changes nothing.

A game's presentation is a :class:`TableView` registered under its pyspiel
short name; games without one get a generic view built from the human's
information-state (or observation) string.

Chance outcomes are drawn from a generator seeded by ``(seed, history
length)``, so the same seed deals the same cards and making the same move
again after ``undo`` meets the same card or roll. Undo is offered only where
the view allows it (games in which no other seat holds hidden cards, such as
poker dice and Poker Squares). A card or roll seen after the move stays known
once the move is taken back, so the final line counts the moves taken back and
such a score is never mistaken for a straight one.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pyspiel

from gamut.solvers.bots import bot_names, make_bot


def _generic_render(state: pyspiel.State, player: int) -> str:
    game_type = state.get_game().get_type()
    if state.is_terminal() or game_type.information == pyspiel.GameType.Information.PERFECT_INFORMATION:
        return str(state)
    if game_type.provides_information_state_string:
        return state.information_state_string(player)
    return state.observation_string(player)


def _generic_describe(state: pyspiel.State, actor: int, action: int, viewer: int) -> str:
    return state.action_to_string(actor, action)


def normalise(text: str) -> str:
    """Lower case, commas as spaces, single spaces: how typed moves and action names are compared.

    >>> normalise("Keep 3,3, 5")
    'keep 3 3 5'
    """
    return " ".join(text.lower().replace(",", " ").split())


@dataclass(frozen=True)
class TableView:
    """How a game shows itself to a person.

    Attributes
    ----------
    render : callable ``(state, player) -> str``
        The board or score sheet as ``player`` may see it.
    describe_action : callable ``(state, actor, action, viewer) -> str``
        How ``actor``'s ``action`` (about to be applied to ``state``) appears to
        ``viewer``; must not reveal what ``viewer`` may not know.
    allows_undo : bool
        Whether ``undo`` is offered (games in which no other seat holds hidden cards).
    opponent, hint : tuple of str
        Agents for the other seats and for ``hint``, best first: the first one
        the loaded variant supports is used.
    parse_action : callable ``(state, player, text) -> int | None``, optional
        Friendlier ways to type a move, tried after the number and the action
        string; returns a legal action, None when ``text`` is not a move of
        this game, or raises ValueError saying why the move is not legal now.
    moves_help : str
        Lines added to ``help`` about typing this game's moves.
    """

    render: Callable[[pyspiel.State, int], str] = _generic_render
    describe_action: Callable[[pyspiel.State, int, int, int], str] = _generic_describe
    allows_undo: bool = False
    opponent: tuple[str, ...] = ("random",)
    hint: tuple[str, ...] = ("random",)
    parse_action: Callable[[pyspiel.State, int, str], int | None] | None = None
    moves_help: str = ""


_VIEWS: dict[str, TableView] = {}

# Modules that register the views of the toolkit's games (imported on first use).
VIEW_MODULES = (
    "gamut.experiments.poke_view",
    "gamut.experiments.squares_view",
    "gamut.experiments.palace_view",
    "gamut.experiments.dice_view",
)


def register_view(short_name: str, view: TableView) -> None:
    """Register the terminal presentation of a game."""
    _VIEWS[short_name] = view


def view_for(game: pyspiel.Game) -> TableView:
    """The registered view of ``game``, or the generic one."""
    for module in VIEW_MODULES:
        importlib.import_module(module)
    return _VIEWS.get(game.get_type().short_name, TableView())


HELP = """Commands:
  <number>     play the action with that number in the list
  <name>       play the action with that name (as listed, any case)
  actions      list the legal actions again
  board        show the board or score sheet again
  hint         ask the hint agent what it would play
  undo         take back your last move (where the game allows it)
  help         this text
  quit         leave the game (Ctrl-D works too)"""

# An agent answering within this many seconds needs no "thinking..." notice.
THINKING_AFTER = 0.5

# Listings longer than this are laid out in columns to stay on one screen.
_COLUMN_AFTER = 12
_LINE_WIDTH = 96


def make_preferred_bot(game: pyspiel.Game, names: tuple[str, ...] | str, player: int,
                       seed: int) -> tuple[str, pyspiel.Bot, list[str]]:
    """The first agent of ``names`` (best first) that plays this variant of ``game`` and can be built.

    An agent that needs a file (a learned table, a trained policy) which is
    missing or stale raises ValueError when built; the next one is tried and
    the reason is kept. Returns ``(name, bot, reasons the better ones were skipped)``.
    """
    names = (names,) if isinstance(names, str) else tuple(names)
    available = bot_names(game)
    skipped = []
    for name in names:
        if name not in available:
            continue
        try:
            return name, make_bot(game, name, player=player, seed=seed), skipped
        except ValueError as err:
            skipped.append(f"{name}: {err}")
    raise ValueError(f"none of the agents {', '.join(names)} can play {game}"
                     + "".join(f"; {reason}" for reason in skipped) + f"; available: {', '.join(available)}")


class PlaySession:
    """One game between a person at seat ``human`` and agents at the other seats.

    Parameters
    ----------
    game : pyspiel.Game
    human : int
        The person's seat.
    opponent, hint : str, optional
        Agent names for the other seats and for hints (default: the first of
        the view's that plays this variant).
    seed : int
        Seeds the deal and every agent.
    read : callable ``(prompt) -> str``
        Reads a line; raises EOFError at end of input (Ctrl-D).
    write : callable ``(text) -> None``
    """

    def __init__(self, game: pyspiel.Game, human: int = 0, opponent: str | None = None,
                 hint: str | None = None, seed: int = 0, read=input, write=print):
        if game.get_type().dynamics != pyspiel.GameType.Dynamics.SEQUENTIAL:
            raise ValueError(f"{game} is not a sequential game; terminal play takes turns one at a time")
        if not 0 <= human < game.num_players():
            raise ValueError(f"seat {human} is not a seat of {game} (0..{game.num_players() - 1})")
        self.game, self.human, self.seed = game, human, seed
        self.view = view_for(game)
        self.read, self.write = read, write
        # Agents named by the caller must work; the view's preferences fall back and say why.
        notices: dict[str, None] = {}  # ordered and without repeats (every seat skips alike)
        self.bots, self.bot_names = {}, {}
        for p in range(game.num_players()):
            if p != human:
                self.bot_names[p], self.bots[p], skipped = make_preferred_bot(
                    game, opponent or self.view.opponent, p, seed + 1 + p)
                notices.update((f"opponent agent skipped ({reason})", None) for reason in skipped)
        self.hint_name, self.hint_bot, skipped = make_preferred_bot(game, hint or self.view.hint, human,
                                                                    seed + 1000 + human)
        notices.update((f"hint agent skipped ({reason})", None) for reason in skipped)
        self.notices = list(notices)
        self.state = game.new_initial_state()
        self.undo_stack: list[pyspiel.State] = []
        self.undone = 0

    def _chance_outcome(self) -> int:
        outcomes, probs = zip(*self.state.chance_outcomes())
        rng = np.random.default_rng([self.seed, len(self.state.history())])
        return int(outcomes[rng.choice(len(outcomes), p=np.asarray(probs) / np.sum(probs))])

    def _apply(self, actor: int, action: int) -> None:
        for player, bot in self.bots.items():
            if player != actor:
                bot.inform_action(self.state, actor, action)
        self.state.apply_action(action)

    def _legal_listing(self) -> str:
        names = [self.state.action_to_string(self.human, a) for a in self.state.legal_actions(self.human)]
        items = [f"{i:>3}. {name}" for i, name in enumerate(names, start=1)]
        if len(items) <= _COLUMN_AFTER:
            return "\n".join("  " + item for item in items)
        # Column-major, like ls: numbers run down each column.
        width = max(map(len, items)) + 2
        columns = max(1, _LINE_WIDTH // width)
        rows = -(-len(items) // columns)
        lines = []
        for r in range(rows):
            row = items[r::rows]
            lines.append("  " + "".join(f"{item:<{width}}" for item in row).rstrip())
        return "\n".join(lines)

    def _parse(self, text: str) -> int | None:
        """The legal action ``text`` names, or None; ValueError from the view says why a move is not legal."""
        legal = self.state.legal_actions(self.human)
        if text.isdigit():
            index = int(text)
            return legal[index - 1] if 1 <= index <= len(legal) else None
        by_name = {normalise(self.state.action_to_string(self.human, a)): a for a in legal}
        if normalise(text) in by_name:
            return by_name[normalise(text)]
        if self.view.parse_action is not None:
            return self.view.parse_action(self.state, self.human, text)
        return None

    def _thinking(self, compute):
        """``compute()``, writing ``thinking...`` first if it has not answered within THINKING_AFTER seconds."""
        timer = threading.Timer(THINKING_AFTER, self.write, ["thinking..."])
        timer.daemon = True
        timer.start()
        try:
            return compute()
        finally:
            timer.cancel()
            timer.join()  # a notice already being written is finished before the answer

    def _hint(self) -> str:
        self.hint_bot.restart_at(self.state)
        if self.hint_bot.provides_policy():
            policy, action = self._thinking(lambda: self.hint_bot.step_with_policy(self.state))
            ranked = sorted(policy, key=lambda pair: -pair[1])[:5]
            weights = ", ".join(f"{self.state.action_to_string(self.human, a)} {p:.2f}" for a, p in ranked)
            return f"hint: {self.state.action_to_string(self.human, action)}   ({self.hint_name}: {weights})"
        action = self._thinking(lambda: self.hint_bot.step(self.state))
        return f"hint: {self.state.action_to_string(self.human, action)}   ({self.hint_name})"

    def _undo(self) -> str:
        if not self.view.allows_undo:
            return "undo is not available in this game (it would reveal hidden information)"
        if not self.undo_stack:
            return "nothing to undo"
        self.state = self.undo_stack.pop()
        self.undone += 1
        for bot in self.bots.values():
            bot.restart_at(self.state)
        return "your last move was taken back"

    def _human_turn(self) -> bool:
        """Handle one line of input; returns False when the person leaves."""
        try:
            text = self.read("> ").strip()
        except EOFError:
            self.write("\nbye: the game was left unfinished")
            return False
        command = text.lower()
        if command in ("quit", "exit"):
            self.write("bye: the game was left unfinished")
            return False
        if command in ("help", "?"):
            self.write(HELP + (f"\nMoves:\n{self.view.moves_help}" if self.view.moves_help else ""))
        elif command == "actions":
            self.write(self._legal_listing())
        elif command == "board":
            self._show()
        elif command == "hint":
            self.write(self._hint())
        elif command == "undo":
            undone = self.undone
            self.write(self._undo())
            if self.undone > undone:
                self._show()
        elif text:
            self._play_text(text)
        return True

    def _play_text(self, text: str) -> None:
        try:
            action = self._parse(text)
        except ValueError as err:
            self.write(f"{text!r} is not a legal action here: {err}")
            return
        if action is None:
            self.write(f"{text!r} is not a legal action here; type a number or a name from this list "
                       f"(or 'help'):\n{self._legal_listing()}")
            return
        self.undo_stack.append(self.state.clone())
        self._apply(self.human, action)
        self._show_if_human_turn()

    def _show(self) -> None:
        self.write(self.view.render(self.state, self.human))
        self.write("Your move:\n" + self._legal_listing())

    def _show_if_human_turn(self) -> None:
        if not self.state.is_terminal() and self.state.current_player() == self.human:
            self._show()

    def run(self) -> list[float] | None:
        """Play until the game ends (returns the returns) or the person leaves (returns None)."""
        self.write(f"{self.game}: you are seat {self.human}. Type 'help' for commands.")
        for notice in self.notices:
            self.write(notice)
        self.write(f"agents: {self.hint_name} answers 'hint'"
                   + "".join(f"; seat {p} is {name}" for p, name in self.bot_names.items()))
        self._show_if_human_turn()
        while not self.state.is_terminal():
            if self.state.is_chance_node():
                self._apply(pyspiel.PlayerId.CHANCE, self._chance_outcome())
                self._show_if_human_turn()
            elif self.state.current_player() == self.human:
                if not self._human_turn():
                    return None
            else:
                actor = self.state.current_player()
                action = self._thinking(lambda: self.bots[actor].step(self.state))
                self.write(f"seat {actor}: {self.view.describe_action(self.state, actor, action, self.human)}")
                self._apply(actor, action)
                self._show_if_human_turn()
        returns = self.state.returns()
        self.write(self.view.render(self.state, self.human))
        taken_back = f" ({self.undone} move(s) taken back)" if self.undone else ""
        self.write("game over: " + ", ".join(
            f"{'you' if p == self.human else f'seat {p}'} {r:+g}" for p, r in enumerate(returns)
        ) + taken_back)
        return returns
