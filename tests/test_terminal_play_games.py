"""``gamut play`` for each of the four games, driven end to end through a real pseudo-terminal.

Each session starts the installed ``gamut`` console script under a pty (as a
person at a terminal would), and checks the board, ``help``, ``hint``, a legal
move typed in a friendly form, an illegal move (explained, position unchanged),
``undo`` where the game offers it, and the end: a finished game or Ctrl-D, with
exit status 0. The seeds fix the deals and rolls, so the boards are known.
"""

import re
import sys
from pathlib import Path

import pexpect
import pytest

from gamut.experiments.terminal_play import HELP

GAMUT = str(Path(sys.executable).parent / "gamut")
PROMPT = "\r\n> "


class Terminal:
    """A ``gamut`` process under a pseudo-terminal; ``screen`` is what it printed before its first prompt."""

    def __init__(self, *args: str):
        self.child = pexpect.spawn(GAMUT, list(args), encoding="utf-8", timeout=180)
        self.child.expect_exact(PROMPT)
        self.screen = self._text()
        self.exitstatus = None

    def _text(self) -> str:
        return self.child.before.replace("\r\n", "\n")

    def send(self, line: str) -> str:
        """Type ``line``; the output up to the next prompt, or to the end of the program."""
        self.child.sendline(line)
        ended = self.child.expect_exact([PROMPT, pexpect.EOF]) == 1
        echo, _, out = self._text().partition("\n")
        assert echo == line
        if ended:
            self._close()
        return out

    def ctrl_d(self) -> str:
        self.child.sendeof()
        self.child.expect(pexpect.EOF)
        out = self._text()
        self._close()
        return out

    def _close(self) -> None:
        self.child.close()
        self.exitstatus = self.child.exitstatus

    @property
    def running(self) -> bool:
        return self.exitstatus is None


def first_listed(out: str) -> str:
    """The number of the first move listed in ``out`` (the lowest legal action id)."""
    return re.search(r"Your move.*\n +(\d+)\. ", out).group(1)


def check_help(term: Terminal, moves_line: str) -> None:
    out = term.send("help")
    assert out.startswith(HELP + "\nMoves:\n")  # the same commands, then the game's own moves
    assert moves_line in out


def check_illegal_move_changes_nothing(term: Terminal, move: str, explanation: str) -> None:
    before = term.send("board")
    out = term.send(move)
    assert out.startswith(f"{move!r} is not a legal action here")
    assert explanation in out
    assert term.send("board") == before


def check_ctrl_d_leaves(term: Terminal) -> None:
    assert "bye: the game was left unfinished" in term.ctrl_d()
    assert term.exitstatus == 0


@pytest.mark.slow
def test_poker_dice_session_to_the_end_with_undo():
    term = Terminal("play", "poker_dice(variant=yacht12,players=1)", "--seed", "1")
    screen = term.screen
    assert "agents: optimal answers 'hint'" in screen
    assert re.search(r"small straight +\[25\]\n", screen) and re.search(r"chance +\[19\]\n", screen)
    assert "your dice: 1 3 4 5 6   roll 1 of 3: 2 rerolls left\n(keep 3 5 and reroll 1 2 name faces" in screen
    assert "189. keep 3,4,5,6" in screen and "473. box chance" in screen  # numbers are action ids
    check_help(term, "keep 3 3 5   keep the dice showing 3, 3 and 5")
    hint = term.send("hint").removeprefix("thinking...\n")  # the first hint may load the value table
    assert re.fullmatch(r"hint: keep 3,4,5,6   \(optimal; expected points to come: keep 3,4,5,6 \d+\.\d\d, .*\)",
                        hint)
    check_illegal_move_changes_nothing(term, "keep 6 6 6", "cannot keep 6 6 6: the dice showing are 1 3 4 5 6")
    check_illegal_move_changes_nothing(term, "box sevens", "0. keep nothing")  # lists the legal moves
    first = term.send("board")
    after = term.send("keep 6 5 4 3")
    assert "your dice: 3 3 4 5 6   roll 2 of 3: 1 reroll left" in after
    assert re.search(r"threes +\[6\]\n", after)
    out = term.send("undo")
    assert out == "your last move was taken back\n" + first
    while term.running:  # the first listed move: reroll everything, then the first open box
        out = term.send(first_listed(out))
    assert term.exitstatus == 0
    sheet, _, last = out.rstrip("\n").rpartition("\n")
    total = re.search(r"\n  total +(\d+)\n", sheet + "\n").group(1)
    assert last == f"game over: you +{total} (1 move(s) taken back)"
    assert "[" not in sheet and " . " not in sheet  # every box filled


@pytest.mark.slow
def test_gamut_dice_play_starts_the_same_session():
    term = Terminal("dice", "play", "--variant", "yacht12", "--seed", "1")
    shared = Terminal("play", "poker_dice(variant=yacht12,players=1)", "--seed", "1")
    assert term.screen == shared.screen
    assert term.send("reroll 1") == shared.send("keep 3 4 5 6")
    assert term.send("undo") == shared.send("undo")
    assert term.send("reroll positions 1") == shared.send("189")
    for t in (term, shared):
        check_ctrl_d_leaves(t)


@pytest.mark.slow
def test_poker_squares_session_to_the_end_with_undo():
    term = Terminal("play", "poker_squares", "--seed", "5")
    screen = term.screen
    assert re.search(r"agents: (expectimax_cross|greedy) answers 'hint'", screen)
    assert "    r2 |     |     |     |     |     |    0\n" in screen and "card to place: Qd\nYour move" in screen
    check_help(term, "r2c1         place the card at row 2, column 1")
    # The first card's cell is forced by symmetry; the hint still says what the game is worth.
    assert re.fullmatch(r"hint: (r[0-4]c[0-4])   \(expectimax_cross; estimated final score: \1 \d+\.\d\d\)",
                        term.send("hint")) or "(greedy)" in term.send("hint")
    check_illegal_move_changes_nothing(term, "r7c0", "rows and columns are 0..4")
    check_illegal_move_changes_nothing(term, "somewhere", " 24. r4c4")
    first = term.send("board")
    after = term.send("2 1")
    assert "    r2 |     | Qd  |     |     |     |    0\n" in after and "card to place: 5c" in after
    check_illegal_move_changes_nothing(term, "r2 c1", "r2c1 already holds Qd")
    assert term.send("undo") == "your last move was taken back\n" + first
    out = term.send("2 1")
    hint = term.send("hint")  # a placement with a choice: the values behind the hint are shown
    assert re.fullmatch(r"hint: (r[0-4]c[0-4])   \(expectimax_cross; estimated final score: \1 \d+\.\d\d, "
                        r"r[0-4]c[0-4] \d+\.\d\d.*\)", hint) or "(greedy)" in hint
    while term.running:
        out = term.send(first_listed(out))
    assert term.exitstatus == 0
    grid, _, last = out.rstrip("\n").rpartition("\n")
    assert len(re.findall(r"\|  +\d+  (high card|one pair|two pair|three of a kind|straight|flush|full house|"
                          r"four of a kind|straight flush|royal flush)\n", grid)) == 5  # every row names its hand
    assert len(re.search(r"columns: (.*)$", grid).group(1).split(", ")) == 5
    score = re.search(r"score (\d+)\n", grid).group(1)
    assert last == f"game over: you +{score} (1 move(s) taken back)"
    assert "|     |" not in grid  # all 25 cells filled


@pytest.mark.slow
def test_poke_session_refuses_undo_and_leaves_on_ctrl_d():
    term = Terminal("play", "poke", "--seed", "4")
    screen = term.screen
    assert "agents: ismcts answers 'hint' where the game's own advice does not; seat 1 is ismcts" in screen
    assert "Poke score sheet" in screen and "your cards: 5d 6h 9h 9s Ad\n" in screen
    check_help(term, "discard 5d Ad, play 9h 9s")
    # At a draw the doubling advisor answers: every option's worth to the end of the rubber.
    hint = term.send("hint").removeprefix("thinking...\n")
    assert re.match(r"hint: (stand|discard [2-9TJQKA][cdhs]( [2-9TJQKA][cdhs])*)   \(the doubling advisor\)\n", hint)
    check_illegal_move_changes_nothing(term, "discard 2c", "you do not hold 2c")
    check_illegal_move_changes_nothing(term, "discard 5d 6h 9h 9s", "you may discard at most 3 cards now")
    after = term.send("discard ad 5D")
    assert "your cards: 3d 4c 6h 9h 9s\n" in after and "P0 discards 2 [5d Ad] draws [3d 4c]" in after
    assert term.send("undo") == "undo is not available in this game (it would reveal hidden information)"
    check_ctrl_d_leaves(term)


@pytest.mark.slow
def test_palace_poker_session_refuses_undo_and_leaves_on_ctrl_d():
    term = Terminal("play", "palace_poker", "--seed", "4")
    screen = term.screen
    assert "  0 (you)   Ad      -                  199    1  in, to act\n" in screen
    assert screen.endswith("your palace: 5d 9h Td\nYour move (its number, which is the action id, or its name):\n"
                           "    1. fold\n   62. bet 2 on seat 1")
    check_help(term, "bet 2 on seat 1   as listed, any case")
    assert re.fullmatch(r"hint: (fold|bet 2 on seat 1)   \(ismcts; mean chips won in the search \(\d+ iterations\) and "
                        r"visits: \1 [+-]\d+\.\d\d \(\d+\), (fold|bet 2 on seat 1) [+-]\d+\.\d\d \(\d+\)\)",
                        term.send("hint").removeprefix("thinking...\n"))
    check_illegal_move_changes_nothing(term, "bet 99 on seat 7", "62. bet 2 on seat 1")
    after = term.send("BET 2 ON SEAT 1")
    assert after.startswith("seat 1: raise 4\n")
    assert "battle: seat 0 attacks seat 1; to call 4, raises 1" in after and "   58. raise 4" in after
    assert term.send("undo") == "undo is not available in this game (it would reveal hidden information)"
    check_ctrl_d_leaves(term)
