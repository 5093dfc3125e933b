"""A person plays any toolkit game in the terminal against registered agents.

One experience for every game: the same prompt, the same commands (``help``,
``hint``, ``undo`` where the game allows it, ``actions``, ``board``, ``quit``),
a board or score sheet drawn by the game's view, and a clean exit on Ctrl-D.

A move is typed as its number in the listing, which is its OpenSpiel action id
(so ``12`` is action 12, as ``state.apply_action(12)`` would play it), or as
its name, the game's action string (any case; commas and spaces alike, so
``keep 3 3 5`` is ``keep 3,3,5``); a game's view may accept friendlier forms
too and explain why a move is not legal. Anything else is answered with the
legal moves and changes nothing. At a terminal the prompt has line editing:
Up recalls earlier lines and Tab completes commands and legal action names.

A view may narrate what an action revealed (the hands compared in a battle,
the opponent's cards at the end of a deal), and ``hint`` shows the values
behind the hint agent's choice where the agent exposes them: the ``last_values``
it set while choosing (``[(action, value)]``, what the values mean in its
``VALUES_MEANING``), or the root statistics of an ISMCTS search
(``last_search``) or of OpenSpiel's MCTS.

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

import math
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pyspiel
from open_spiel.python.algorithms import mcts as openspiel_mcts

from gamut.envs.declaration import resolve
from gamut.envs.registry import declaration_of
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
    narrate : callable ``(before, actor, action, after, viewer) -> list of str``, optional
        Lines telling ``viewer`` what ``actor``'s ``action`` (or a chance
        outcome, actor ``pyspiel.PlayerId.CHANCE``) brought to light, given the
        states before and after it; only what ``viewer`` may know.
    return_unit : str
        What the game's returns count, named in a search hint's values
        (``"mean above-the-line points in the search ..."``).
    advice : callable ``(state, player, seed) -> str | None``, optional
        The game's own answer to ``hint`` where it has one (Poke: the values
        of every draw option at a draw decision); None elsewhere, where the
        hint agent answers. ``seed`` makes the answer repeatable. A hint
        agent the player names (``--hint``) answers everywhere instead.
    """

    render: Callable[[pyspiel.State, int], str] = _generic_render
    describe_action: Callable[[pyspiel.State, int, int, int], str] = _generic_describe
    allows_undo: bool = False
    opponent: tuple[str, ...] = ("random",)
    hint: tuple[str, ...] = ("random",)
    parse_action: Callable[[pyspiel.State, int, str], int | None] | None = None
    moves_help: str = ""
    narrate: Callable[[pyspiel.State, int, int, pyspiel.State, int], list[str]] | None = None
    return_unit: str = "return"
    advice: Callable[[pyspiel.State, int, int], str | None] | None = None


# Views registered for games that declare none (another OpenSpiel game, for instance).
_VIEWS: dict[str, TableView] = {}


def register_view(short_name: str, view: TableView) -> None:
    """Register the terminal presentation of a game that has no declared view (it takes precedence)."""
    _VIEWS[short_name] = view


def view_for(game: pyspiel.Game) -> TableView:
    """The registered view of ``game``, else the one its declaration names (``GAME.view``), else the generic one."""
    name = game.get_type().short_name
    if name in _VIEWS:
        return _VIEWS[name]
    declaration = declaration_of(game)
    if declaration is None or declaration.view is None:
        return TableView()
    return resolve(declaration.view)


HELP = """Commands:
  <number>     play the action with that number in the list: its OpenSpiel action id
  <name>       play the action with that name (as listed, any case)
  actions      list the legal actions again
  board        show the board or score sheet again
  hint         ask the hint agent what it would play (with its values where it has them)
  undo         take back your last move (where the game allows it)
  help         this text
  quit         leave the game (Ctrl-D works too)
At a terminal, Up and Down recall earlier lines and Tab completes commands and action names."""

COMMANDS = ("actions", "board", "help", "hint", "quit", "undo")

# An agent answering within this many seconds needs no "thinking..." notice.
THINKING_AFTER = 0.5

# Listings longer than this are laid out in columns to stay on one screen.
_COLUMN_AFTER = 12
_LINE_WIDTH = 96


def make_preferred_bot(game: pyspiel.Game, names: tuple[str, ...] | str, player: int,
                       seed: int, options: dict | None = None) -> tuple[str, pyspiel.Bot, list[str]]:
    """The first agent of ``names`` (best first) that plays this variant of ``game`` and can be built.

    An agent that needs a file (a learned table, a trained policy) which is
    missing or stale raises ValueError when built; the next one is tried and
    the reason is kept. ``options`` go to the agent when ``names`` is one
    name. Returns ``(name, bot, reasons the better ones were skipped)``.
    """
    names = (names,) if isinstance(names, str) else tuple(names)
    if options:
        # Options may lift a refusal (a weights file of the user's own), so the agent is built, not looked up.
        if len(names) != 1:
            raise ValueError(f"agent options {sorted(options)} need one agent, not the preferences "
                             f"{', '.join(names)}")
        return names[0], make_bot(game, names[0], player=player, seed=seed, **options), []
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
    opponent_options, hint_options : dict, optional
        Keyword options of the named ``opponent`` and ``hint`` agents (e.g.
        ``{"weights": "runs/mine/weights.npz"}``).
    seed : int
        Seeds the deal and every agent.
    read : callable ``(prompt) -> str``
        Reads a line; raises EOFError at end of input (Ctrl-D).
    write : callable ``(text) -> None``
    """

    def __init__(self, game: pyspiel.Game, human: int = 0, opponent: str | None = None,
                 hint: str | None = None, seed: int = 0, read=input, write=print,
                 opponent_options: dict | None = None, hint_options: dict | None = None):
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
                    game, opponent or self.view.opponent, p, seed + 1 + p, opponent_options)
                notices.update((f"opponent agent skipped ({reason})", None) for reason in skipped)
        self.hint_name, self.hint_bot, skipped = make_preferred_bot(game, hint or self.view.hint, human,
                                                                    seed + 1000 + human, hint_options)
        notices.update((f"hint agent skipped ({reason})", None) for reason in skipped)
        # The game's own advice is the default hint; an agent the player asked for answers instead.
        self.advice = self.view.advice if hint is None else None
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
        before = self.state.clone() if self.view.narrate is not None else None
        self.state.apply_action(action)
        if before is not None:
            for line in self.view.narrate(before, actor, action, self.state, self.human):
                self.write(line)

    def _legal_listing(self) -> str:
        legal = self.state.legal_actions(self.human)
        width = len(str(max(legal)))
        items = [f"{a:>{max(width, 3)}}. {self.state.action_to_string(self.human, a)}" for a in legal]
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
            return int(text) if int(text) in legal else None
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
        if self.advice is not None:
            seed = self.seed + len(self.state.history())
            advice = self._thinking(lambda: self.advice(self.state, self.human, seed))
            if advice is not None:
                return advice
        bot = self.hint_bot
        bot.restart_at(self.state)
        for attribute in ("last_values", "last_search"):
            if hasattr(bot, attribute):
                setattr(bot, attribute, None)  # values of an earlier move must not pass for this one's
        policy = values = None
        if isinstance(bot, openspiel_mcts.MCTSBot):
            # OpenSpiel's MCTS keeps no root after step: search here and choose as its step does.
            root = self._thinking(lambda: bot.mcts_search(self.state))
            action = root.best_child().action
            values = mcts_values(root, self.view.return_unit)
        elif bot.provides_policy():
            policy, action = self._thinking(lambda: bot.step_with_policy(self.state))
        else:
            action = self._thinking(lambda: bot.step(self.state))
        line = f"hint: {self.state.action_to_string(self.human, action)}   ({self.hint_name}"
        values = values or hint_values(bot, self.view.return_unit)
        if values is not None:
            meaning, ranked = values
            shown = ", ".join(f"{self.state.action_to_string(self.human, a)} {v}" for a, v in ranked[:5])
            return line + f"; {meaning}: {shown})"
        if policy is not None:
            ranked = sorted(policy, key=lambda pair: -pair[1])[:5]
            weights = ", ".join(f"{self.state.action_to_string(self.human, a)} {p:.2f}" for a, p in ranked)
            return line + f": {weights})"
        return line + ")"

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
        self.write("Your move (its number, which is the action id, or its name):\n" + self._legal_listing())

    def _completions(self, text: str) -> list[str]:
        """Commands and legal action names that start with ``text`` (any case), for Tab."""
        names = list(COMMANDS)
        if not self.state.is_terminal() and self.state.current_player() == self.human:
            names += [self.state.action_to_string(self.human, a) for a in self.state.legal_actions(self.human)]
        typed = text.lower()
        return sorted({name for name in names if name.lower().startswith(typed)})

    def _show_if_human_turn(self) -> None:
        if not self.state.is_terminal() and self.state.current_player() == self.human:
            self._show()

    def run(self) -> list[float] | None:
        """Play until the game ends (returns the returns) or the person leaves (returns None).

        When lines are read with ``input`` from a terminal, the prompt gets line
        editing for the length of the game (history, Tab completion); the
        previous completer is put back afterwards.
        """
        restore = self._line_editing() if self.read is input and sys.stdin.isatty() else None
        try:
            return self._run()
        finally:
            if restore is not None:
                restore()

    def _line_editing(self):
        """Turn on readline history and completion; returns the function that restores the old completer."""
        try:
            import readline
        except ImportError:  # a Python built without readline: plain input still works
            return None
        old_completer, old_delims = readline.get_completer(), readline.get_completer_delims()
        matches: list[str] = []

        def complete(text: str, index: int) -> str | None:
            if index == 0:
                matches[:] = self._completions(readline.get_line_buffer())
            return matches[index] if index < len(matches) else None

        # Action names hold spaces ("bet 2 on seat 1"), so the whole line is completed, not its last word.
        readline.set_completer_delims("")
        readline.set_completer(complete)
        readline.parse_and_bind("tab: complete")

        def restore() -> None:
            readline.set_completer(old_completer)
            readline.set_completer_delims(old_delims)

        return restore

    def _run(self) -> list[float] | None:
        self.write(f"{self.game}: you are seat {self.human}. Type 'help' for commands.")
        for notice in self.notices:
            self.write(notice)
        self.write(f"agents: {self.hint_name} answers 'hint'"
                   + (" where the game's own advice does not" if self.advice is not None else "")
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


def hint_values(bot, unit: str = "return") -> tuple[str, list[tuple[int, str]]] | None:
    """What the values behind ``bot``'s last choice mean and ``[(action, value shown)]``, best first; or None.

    Read after the bot has chosen: its ``last_values`` (``[(action, value)]``,
    meaning in ``VALUES_MEANING``) or the root of its last ISMCTS search
    (``last_search``: mean return, in ``unit``, and visits of each visited action).
    """
    values = getattr(bot, "last_values", None)
    if values:
        ranked = sorted(values, key=lambda pair: -pair[1])
        return getattr(bot, "VALUES_MEANING", "values"), [(a, f"{v:.2f}") for a, v in ranked]
    search = getattr(bot, "last_search", None)
    if search is not None:
        rows = [(a, m, v) for a, m, v in zip(search.actions, search.mean_returns, search.visits)
                if v > 0 and not math.isnan(m)]
        rows.sort(key=lambda row: (-row[2], -row[1]))
        return (f"mean {unit} in the search ({search.iterations} iterations) and visits",
                [(a, f"{m:+.2f} ({v})") for a, m, v in rows])
    return None


def mcts_values(root, unit: str = "return") -> tuple[str, list[tuple[int, str]]]:
    """Mean return (in ``unit``) and visits of each visited child of an OpenSpiel MCTS root, most visited first."""
    rows = sorted(((c.action, c.total_reward / c.explore_count, c.explore_count) for c in root.children
                   if c.explore_count > 0), key=lambda row: (-row[2], -row[1]))
    return (f"mean {unit} in the search ({root.explore_count} simulations) and visits",
            [(a, f"{m:+.2f} ({v})") for a, m, v in rows])
