"""Poker dice in the terminal: the score sheet of every player, the dice and the rolls left.

Importing this module registers the view for ``poker_dice`` with
``gamut.experiments.terminal_play`` (``gamut play poker_dice`` and ``gamut dice play``
do). Each open box of the player to move shows in brackets what the dice
showing would score there now (first-roll doubling, jokers and the Yahtzee
bonus included; the upper bonus has its own row); ``.`` marks an open box these dice may not fill now (an earlier
stage is still open, or the joker rule points elsewhere). Example (yacht12,
two players, your second turn, second roll)::

    Poker dice, yacht12: turn 2 of 12
      box                            you  seat 1
      ones                           [3]       .
      twos                           [0]       .
      threes                           9       .
      ...
      full house                    [15]       .
      ...
      chance                        [15]      19
      total                            9      19
    your dice: 1 1 1 6 6   roll 2 of 3: 1 reroll left

Moves are typed as the game's action strings (``keep 3,3,5``, ``box full
house``, ``stop``) or more loosely: ``keep 3 3 5`` or ``keep 335`` in any order,
``keep`` / ``keep nothing`` / ``reroll all``, ``reroll 1 2`` (keep the others;
numbers are faces), ``keep positions 1 3`` / ``reroll positions 2 5`` (dice by
place, 1..5 left to right as shown), a box by its name or a unique start of it (``full``, ``large``), with or
without ``box``. The perfect-information game hides nothing, so ``undo`` is
offered (the session's final line counts the moves taken back).

The sheet's per-box scores are recovered by replaying the state's history
through the scoring kernels: the state array itself keeps only each player's
filled-box mask and running totals.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from gamut.envs import dice
from gamut.envs.poker_dice import kernels as K
from gamut.envs.poker_dice.scorecard import AUX_BANK, AUX_REPEAT_FLAG, P_BANK_STAGE_OK
from gamut.envs.poker_dice.scoring import allowed_boxes, box_score, current_stage, record, repeat_bonus
from gamut.experiments.terminal_play import TableView, normalise

_LABEL = 26
_COLUMN = 8


def _base(player: int) -> int:
    return K.S_PLAYERS + K.PLAYER_FIELDS * player


def _faces(roll: int) -> str:
    return " ".join(map(str, dice.roll_faces(roll)))


def sheet_entries(state) -> dict:
    """Per-player box scores and bonuses of a scorecard game, by replaying ``state``'s history.

    Returns
    -------
    dict with ``boxes`` (list per player of ``num_boxes`` scores, None when open),
    ``upper`` (per player: sum of the bonus-group boxes filled, unclipped),
    ``upper_bonus`` (per player: the group bonus once the group is complete, else None)
    and ``repeat`` (per player: repeat bonuses earned, e.g. Yahtzee's extra 100s).
    """
    game = state.get_game()
    t = game.tables
    n = game.num_players()
    out = {"boxes": [[None] * t.num_boxes for _ in range(n)], "upper": [0] * n,
           "upper_bonus": [None] * n, "repeat": [0] * n}
    replay = game.new_initial_state()
    for action in state.history():
        st = replay.state
        if not replay.is_chance_node() and action >= K.BOX_BASE:
            i, b = int(st[K.S_PLAYER]), action - K.BOX_BASE
            base = _base(i)
            mask, aux, roll = int(st[base + K.F_MASK]), int(st[base + K.F_AUX]), int(st[K.S_ROLL])
            score = int(box_score(t.params, t.box_data, t.roll_data, mask, roll, st[K.S_ROLLS] == 1, b))
            points = int(record(t.params, t.box_data, t.roll_data, mask, int(st[base + K.F_TOTAL]), aux,
                                roll, st[K.S_ROLLS] == 1, b, 0)[0])
            extra = int(repeat_bonus(t.params, t.roll_data, aux, roll))
            out["boxes"][i][b] = score
            out["repeat"][i] += extra
            if t.in_group[b]:
                out["upper"][i] += score
                if all(out["boxes"][i][g] is not None for g in range(t.num_boxes) if t.in_group[g]):
                    out["upper_bonus"][i] = points - score - extra
        replay.apply_action(action)
    return out


def potentials(state) -> dict[int, int | None]:
    """For the player to move: each open box's score with the dice showing (None: may not be filled now)."""
    st, t = state.state, state.get_game().tables
    base = _base(int(st[K.S_PLAYER]))
    mask, roll, aux = int(st[base + K.F_MASK]), int(st[K.S_ROLL]), int(st[base + K.F_AUX])
    allowed = np.zeros(t.num_boxes, dtype=np.bool_)
    allowed_boxes(t.params, t.box_data, t.roll_data, mask, roll, allowed)
    first = st[K.S_ROLLS] == 1
    return {b: (int(box_score(t.params, t.box_data, t.roll_data, mask, roll, first, b))
                + int(repeat_bonus(t.params, t.roll_data, aux, roll))) if allowed[b] else None
            for b in range(t.num_boxes) if not (mask >> b) & 1}


def rolls_line(state) -> str:
    """The dice showing and the rolls left to the player to move."""
    st, game = state.state, state.get_game()
    t = game.tables
    rolls = int(st[K.S_ROLLS])
    left = max(0, K.BASE_ROLLS - rolls)
    text = f"dice: {_faces(int(st[K.S_ROLL]))}   "
    text += f"roll {rolls} of {K.BASE_ROLLS}: " if rolls <= K.BASE_ROLLS else f"roll {rolls} (banked): "
    text += f"{left} reroll{'' if left == 1 else 's'} left"
    if game.variant is not None and t.aux_kind == AUX_BANK:
        base = _base(int(st[K.S_PLAYER]))
        banked = int(st[base + K.F_AUX]) - max(0, rolls - K.BASE_ROLLS)
        stage = int(current_stage(t.params, t.box_data, int(st[base + K.F_MASK])))
        usable = "" if t.params[P_BANK_STAGE_OK + stage] else ", usable once the upper boxes are filled"
        text += f" (+{banked} banked{usable})"
    if game.variant is None and st[K.S_FROZEN]:
        frozen = " ".join(map(str, dice.keep_faces(int(st[K.S_FROZEN]))))
        text += f"; kept at the first reroll, must stay: {frozen}"
    return text


def _seat(player: int, viewer: int) -> str:
    return "you" if player == viewer else f"seat {player}"


def _scorecard_render(state, player: int) -> str:
    game, st = state.get_game(), state.state
    t, n = game.tables, game.num_players()
    entries = sheet_entries(state)
    deciding = not state.is_terminal() and not state.is_chance_node()
    mover = int(st[K.S_PLAYER])
    shown = potentials(state) if deciding else {}
    turn = min(int(st[K.S_ROUND]) + 1, t.num_boxes)
    lines = [f"Poker dice, {game.params['variant']}: "
             + ("game over" if state.is_terminal() else f"turn {turn} of {t.num_boxes}"),
             f"  {'box':<{_LABEL}}" + "".join(f"{_seat(i, player):>{_COLUMN}}" for i in range(n))]

    def row(label, cells):
        lines.append(f"  {label:<{_LABEL}}" + "".join(f"{c:>{_COLUMN}}" for c in cells))

    for b, name in enumerate(game.box_names):
        cells = []
        for i in range(n):
            score = entries["boxes"][i][b]
            if score is not None:
                cells.append(str(score))
            elif i == mover and shown.get(b) is not None:
                cells.append(f"[{shown[b]}]")
            else:
                cells.append(".")
        row(name, cells)
    if t.group_mask:
        row("upper total", [str(u) for u in entries["upper"]])
        row(f"upper bonus (+{t.group_bonus} if {t.group_threshold}+)",
            ["-" if u is None else str(u) for u in entries["upper_bonus"]])
    if t.aux_kind == AUX_REPEAT_FLAG:
        row(f"{game.box_names[t.repeat_box]} bonus (+{t.repeat_bonus})", [str(r) for r in entries["repeat"]])
    if t.aux_kind == AUX_BANK:
        row(f"banked rolls ({t.bank_value} pts each)", [str(st[_base(i) + K.F_AUX]) for i in range(n)])
    row("total", [str(st[_base(i) + K.F_SCORE]) for i in range(n)])
    if deciding:
        lines.append(("your " if mover == player else f"seat {mover}'s ") + rolls_line(state))
        lines += _faces_note(state, player)
    return "\n".join(lines)


def _ranking_render(state, player: int) -> str:
    game, st = state.get_game(), state.state
    lines = [f"Poker dice, ranking game: {game.num_players()} players, best hand wins"]
    for i in range(game.num_players()):
        hand = int(st[_base(i) + K.F_HAND])
        shown = (f"{_faces(hand)}   {dice.RANKING_CATEGORY_NAMES[dice.ROLL_RANKING_CATEGORY[hand]]}"
                 if hand >= 0 else "-")
        lines.append(f"  {_seat(i, player):<8}{shown}")
    if not state.is_terminal() and not state.is_chance_node():
        mover = int(st[K.S_PLAYER])
        lines.append(("your " if mover == player else f"seat {mover}'s ") + rolls_line(state))
        lines += _faces_note(state, player)
    return "\n".join(lines)


FACES_NOTE = "(keep 3 5 and reroll 1 2 name faces; reroll positions 1 2 names dice by place, left to right)"


def _faces_note(state, player: int) -> list[str]:
    """The reminder that typed numbers are faces, while ``player`` may still reroll."""
    if int(state.state[K.S_PLAYER]) != player or not any(a < K.NUM_KEEPS for a in state.legal_actions()):
        return []
    return [FACES_NOTE]


def render(state, player: int) -> str:
    """The score sheet (or the ranking table) and the dice, as every player sees them."""
    if state.get_game().variant is None:
        return _ranking_render(state, player)
    return _scorecard_render(state, player)


def describe_action(state, actor: int, action: int, viewer: int) -> str:
    """A move in words with the dice it was made on (the game hides nothing)."""
    st, game = state.state, state.get_game()
    roll = int(st[K.S_ROLL])
    if action < K.NUM_KEEPS:
        kept = dice.keep_faces(action)
        return (f"keeps {' '.join(map(str, kept)) or 'nothing'} of {_faces(roll)} "
                f"and rerolls {dice.NUM_DICE - len(kept)}")
    if game.variant is None:
        return f"stops with {_faces(roll)}"
    t = game.tables
    base = _base(actor)
    b = action - K.BOX_BASE
    score = int(box_score(t.params, t.box_data, t.roll_data, int(st[base + K.F_MASK]), roll,
                          st[K.S_ROLLS] == 1, b))
    return f"scores {score} in {game.box_names[b]} with {_faces(roll)}"


def _read_faces(words: list[str]) -> list[int]:
    if words in ([], ["nothing"], ["none"], ["all"]):
        return []
    faces = []
    for word in words:
        if not word.isdigit() or any(ch not in "123456" for ch in word):
            raise ValueError(f"{word!r} is not a die face; faces are 1..6 (e.g. 'keep 3 3 5')")
        faces.extend(int(ch) for ch in word)
    return faces


def _faces_at(state, words: list[str]) -> list[int]:
    """The faces of the dice at positions ``words`` (1..5, left to right as the dice are shown)."""
    showing = dice.roll_faces(int(state.state[K.S_ROLL]))
    positions = []
    for word in words:
        for ch in word:
            if ch not in "12345":
                raise ValueError(f"{word!r} is not a position; positions are 1..5, left to right as the dice "
                                 f"are shown ({_faces(int(state.state[K.S_ROLL]))})")
            positions.append(int(ch))
    if not positions:
        raise ValueError("name the positions, 1..5 left to right (e.g. 'reroll positions 1 2')")
    if len(set(positions)) != len(positions):
        raise ValueError(f"position {max(positions, key=positions.count)} is named twice")
    return sorted(showing[p - 1] for p in positions)


def _keep_action(state, player: int, kept: list[int]) -> int:
    st, game = state.state, state.get_game()
    showing = Counter(dice.roll_faces(int(st[K.S_ROLL])))
    wanted = Counter(kept)
    if wanted - showing:
        raise ValueError(f"cannot keep {' '.join(map(str, sorted(kept)))}: the dice showing are "
                         f"{_faces(int(st[K.S_ROLL]))}")
    finish = "record them in a box" if game.variant is not None else "type 'stop' to stand on them"
    if len(kept) == dice.NUM_DICE:
        raise ValueError(f"keeping all five dice rerolls nothing; {finish}")
    action = dice.keep_id(kept)
    if action not in state.legal_actions(player):
        if st[K.S_FROZEN] and game.variant is None:
            frozen = " ".join(map(str, dice.keep_faces(int(st[K.S_FROZEN]))))
            raise ValueError(f"the dice kept at the first reroll ({frozen}) must stay kept")
        raise ValueError(f"no rerolls left this turn; {finish}")
    return action


def _box_action(state, player: int, words: list[str]) -> int | None:
    names = state.get_game().box_names
    wanted = " ".join(words)
    matches = [b for b, name in enumerate(names) if name == wanted]
    if not matches:
        matches = [b for b, name in enumerate(names) if name.startswith(wanted) or
                   name.replace(" ", "").startswith(wanted.replace(" ", ""))]
    if not matches:
        return None
    if len(matches) > 1:
        raise ValueError(f"{wanted!r} could be {' or '.join(names[b] for b in matches)}")
    b = matches[0]
    if K.BOX_BASE + b in state.legal_actions(player):
        return K.BOX_BASE + b
    if (state.state[_base(player) + K.F_MASK] >> b) & 1:
        raise ValueError(f"box {names[b]} is already filled")
    open_now = [names[a - K.BOX_BASE] for a in state.legal_actions(player) if a >= K.BOX_BASE]
    raise ValueError(f"box {names[b]} may not take these dice now; boxes that may: {', '.join(open_now)}")


def parse_action(state, player: int, text: str) -> int | None:
    """Friendlier forms of a move (see the module doc); None when ``text`` is not a dice move."""
    words = normalise(text).replace("-", " ").replace("_", " ").split()
    if not words:
        return None
    head, rest = words[0], words[1:]
    if head in ("keep", "hold", "reroll") and rest[:1] in (["positions"], ["position"], ["pos"]):
        faces = _faces_at(state, rest[1:])
        if head == "reroll":
            left = Counter(dice.roll_faces(int(state.state[K.S_ROLL])))
            left.subtract(faces)
            faces = sorted(left.elements())
        return _keep_action(state, player, faces)
    if head in ("keep", "hold"):
        return _keep_action(state, player, _read_faces(rest))
    if head == "reroll":
        rerolled = Counter(_read_faces(rest) if rest != ["all"] else dice.roll_faces(int(state.state[K.S_ROLL])))
        showing = Counter(dice.roll_faces(int(state.state[K.S_ROLL])))
        if rerolled - showing:
            raise ValueError(f"cannot reroll {' '.join(map(str, sorted(rerolled.elements())))}: the dice showing "
                             f"are {_faces(int(state.state[K.S_ROLL]))}")
        return _keep_action(state, player, sorted((showing - rerolled).elements()))
    if state.get_game().variant is None:
        return K.STOP if words in (["stop"], ["stand"]) else None
    return _box_action(state, player, rest if head == "box" else words)


MOVES_HELP = """Numbers after keep and reroll are faces, not positions: 'reroll 1 2' rerolls the die showing 1
and the die showing 2. To pick dice by place, say positions (1..5, left to right as shown).
  keep 3 3 5   keep the dice showing 3, 3 and 5, reroll the others (also 'keep 3,3,5', 'keep 335')
  keep         reroll all five (also 'keep nothing', 'reroll all')
  reroll 1 2   reroll the dice showing faces 1 and 2, keep the others
  reroll positions 1 2   reroll the first and second dice as shown (also 'keep positions 3 4 5', 'pos')
  box NAME     record the dice in a box: its name or a unique start of it ('box full', 'chance')
  stop         ranking game: stand on the dice showing
The sheet shows [points] the dice showing would score in each open box; '.' is an open box
these dice may not fill now."""

# The game's declaration names this view (``GAME.view``).
VIEW = TableView(
    render=render, describe_action=describe_action, allows_undo=True,
    opponent=("optimal", "mcts"), hint=("optimal", "mcts"), parse_action=parse_action, moves_help=MOVES_HELP,
)
