"""Running scores of batched one-player games: the potential behind PPO's ``score_rewards``.

A one-player game whose return is a score built up during play can pay that
score as it accrues: each decision earns the change of a running score
``phi`` it causes, and the last decision of a game earns ``return -
phi(before)``. Under ``gamma = 1`` the rewards of a game then sum to its
return whenever ``phi`` is 0 at the first decision, so the objective is
unchanged; what changes is that the value network learns the points still to
come rather than the whole score.

A game lends its ``phi`` through its declaration (``GAME.running_score``, see
``gamut.envs.declaration``); each game's function documents what it reads,
with an example. A game without one (or a variant it refuses, such as two
players) is refused with ``ValueError``.
"""

from __future__ import annotations

from gamut.envs.declaration import resolve
from gamut.envs.registry import declaration_of, declarations


def running_score_reader(game):
    """A function ``env -> float64 (N,)``: ``phi`` of every row of a batched environment of ``game``.

    Raises ``ValueError`` for a game without a running score that ends at its return.
    """
    declaration = declaration_of(game)
    scored = ", ".join(name for name, d in declarations().items() if d.running_score)
    needs = f"PPO score_rewards needs a one-player game with a running score (one-player {scored}), not {game}"
    if declaration is None or declaration.running_score is None:
        raise ValueError(needs)
    try:
        return resolve(declaration.running_score)(game)
    except ValueError as err:
        raise ValueError(f"{needs}: {err}") from None


def optional_running_score(game):
    """:func:`running_score_reader` of ``game``, or None where it has no running score (or a variant it refuses)."""
    try:
        return running_score_reader(game)
    except ValueError:
        return None
