"""Poker Squares in the terminal: the 5x5 grid drawn with its line points, the card to place.

Importing this module registers the view for ``poker_squares`` with
``gamut.experiments.terminal_play`` (``gamut squares play`` does). Undo is allowed:
the cards are dealt from a generator seeded by the history length, so taking
a placement back shows the same card again and the same cards follow (the
final line counts the moves taken back). Hints come from the ``expectimax_cross``
agent with the estimated final score of each cell it weighed, or
``expectimax`` when its cross-line correction is missing or stale, or
``greedy`` when the learned table is; the other seats play ``mc_cross`` (the
best agent, about 0.2 s a move). A full row names its hand beside its points
and full columns are named under the grid. A cell is
typed ``r2c1``, ``r2 c1``, ``2 1`` or ``2,1``. Example (one player, three
cards placed)::

          c0    c1    c2    c3    c4
        +-----+-----+-----+-----+-----+
     r0 | As  | Ad  |     |     |     |   2
        +-----+-----+-----+-----+-----+
     r1 | 7h  |     |     |     |     |   0
        ...
           2     0     0     0     0      score 4
    card to place: Kd
"""

from __future__ import annotations

from gamut.envs.cards import card_str
from gamut.envs.hands import CATEGORY_NAMES, CATEGORY_SHIFT, HAND_TABLE
from gamut.envs.poker_squares import kernels as K
from gamut.experiments.terminal_play import TableView, normalise

_RULE = "       " + "+-----" * K.GRID_SIZE + "+"


def _hand_name(st, player: int, line: int) -> str:
    """The hand category of a full line (rows 0-4, columns 5-9), or '' while it has an empty cell."""
    cells = [K.S_GRID + K.NUM_CELLS * player + (5 * line + i if line < K.GRID_SIZE else 5 * i + line - K.GRID_SIZE)
             for i in range(K.GRID_SIZE)]
    if any(st[cell] < 0 for cell in cells):
        return ""
    return CATEGORY_NAMES[int(K.line_strength(st, player, line, HAND_TABLE)) >> CATEGORY_SHIFT]


def grid_lines(st, cfg, player: int) -> list[str]:
    """The drawn grid of ``player`` in kernel state ``st`` with the points of each line as it stands.

    A full row shows its hand beside its points; once a column is full, a line
    under the grid names its hand and points.
    """
    base = K.S_GRID + K.NUM_CELLS * player
    out = ["        " + "".join(f"  c{c}  " for c in range(K.GRID_SIZE)), _RULE]
    for r in range(K.GRID_SIZE):
        cells = [st[base + 5 * r + c] for c in range(K.GRID_SIZE)]
        shown = "".join(f"| {card_str(int(x)) if x >= 0 else '  ':<3} " for x in cells)
        name = _hand_name(st, player, r)
        out.append(f"    r{r} {shown}|  {int(K.line_points(st, player, r, cfg, HAND_TABLE)):>3}"
                   + (f"  {name}" if name else ""))
        out.append(_RULE)
    cols = "".join(f"{int(K.line_points(st, player, K.GRID_SIZE + c, cfg, HAND_TABLE)):>6}" for c in range(5))
    out.append(f"      {cols}      score {int(K.grid_score(st, player, cfg, HAND_TABLE))}")
    full = [(c, _hand_name(st, player, K.GRID_SIZE + c)) for c in range(K.GRID_SIZE)]
    named = [f"c{c} {name} {int(K.line_points(st, player, K.GRID_SIZE + c, cfg, HAND_TABLE))}"
             for c, name in full if name]
    if named:
        out.append("    columns: " + ", ".join(named))
    return out


def render(state, player: int) -> str:
    st, cfg = state.state, state.cfg
    lines = []
    for p in range(int(cfg[K.C_PLAYERS])):
        if int(cfg[K.C_PLAYERS]) > 1:
            lines.append("your grid" if p == player else f"grid of seat {p}")
        lines.extend(grid_lines(st, cfg, p))
    if not state.is_terminal() and state.current_player() == player:
        lines.append(f"card to place: {card_str(int(K.card_to_place(st, player)))}")
    return "\n".join(lines)


def describe(state, actor: int, action: int, viewer: int) -> str:
    card = card_str(int(K.card_to_place(state.state, actor)))
    return f"puts {card} at row {action // 5}, column {action % 5}"


def parse_action(state, player: int, text: str) -> int | None:
    """A cell typed as row and column: ``r2 c1``, ``2 1`` or ``2,1`` as well as the action string ``r2c1``."""
    words = normalise(text).replace("r", " ").replace("c", " ").split()
    if len(words) != 2 or not all(w.isdigit() for w in words):
        return None
    row, col = map(int, words)
    if not (0 <= row < K.GRID_SIZE and 0 <= col < K.GRID_SIZE):
        raise ValueError(f"rows and columns are 0..{K.GRID_SIZE - 1}")
    cell = K.GRID_SIZE * row + col
    if cell in state.legal_actions(player):
        return cell
    card = int(state.state[K.S_GRID + K.NUM_CELLS * player + cell])
    raise ValueError(f"r{row}c{col} already holds {card_str(card)}")


# The game's declaration names this view (``GAME.view``).
VIEW = TableView(
    render=render, describe_action=describe, allows_undo=True,
    opponent=("mc_cross", "expectimax_cross", "expectimax", "greedy"),
    hint=("expectimax_cross", "expectimax", "greedy"), parse_action=parse_action,
    moves_help="  r2c1         place the card at row 2, column 1 (also 'r2 c1', '2 1', '2,1')",
)
