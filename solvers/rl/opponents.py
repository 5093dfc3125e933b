"""The game's heuristic as a fixed opponent inside batched self-play.

PPO's ``heuristic_share`` setting seats the game's rule-of-thumb player at
some tables of its self-play batch. A game lends it through its declaration
(``GAME.heuristic``, see ``gamut.envs.declaration``): a function
``(game, seed)`` returning an object whose ``actions(states, rows)`` gives,
in one compiled call, the heuristic's move in every chosen row straight from
the batched environment's kernel states (``env.states``), so the heuristic
moves exactly as its ``pyspiel.Bot`` would in the same state; ``state()`` and
``load_state(arrays)`` carry its generator across checkpoints.

Which seats it plays is drawn per game by :func:`draw_tables`: one seat of
each table is the learner's; every other seat is the heuristic's with
probability ``share``, else the learner's too (self-play).

Worked example (four players, ``share = 0.5``): a table drawn as
``[False, True, False, True]`` has the learner in seats 0 and 2 (both trained
on) and the heuristic in seats 1 and 3 (not trained on).
"""

from __future__ import annotations

import numpy as np

from gamut.envs.declaration import resolve
from gamut.envs.registry import declaration_of, declarations


def heuristic_games() -> tuple[str, ...]:
    """Short names of the games that lend a heuristic to self-play."""
    return tuple(name for name, d in declarations().items() if d.heuristic)


def batched_heuristic(game, seed: int):
    """The batched heuristic of ``game`` (a ``pyspiel.Game``), its draws seeded by ``seed``.

    Raises
    ------
    ValueError
        For a game without a heuristic (naming the games that have one).
    """
    declaration = declaration_of(game)
    if declaration is None or declaration.heuristic is None:
        raise ValueError(f"{game.get_type().short_name} has no heuristic to seat in self-play; games with one: "
                         f"{', '.join(heuristic_games())}")
    return resolve(declaration.heuristic)(game, seed)


def draw_tables(rng: np.random.Generator, rows: int, players: int, share: float) -> np.ndarray:
    """Seats bool ``(rows, players)`` played by the heuristic in ``rows`` new games (see the module docstring).

    ``rng`` draws the learner's seat of each row, then one uniform number per
    seat (the learner's seat included, so the draws per row are fixed).
    """
    learner = rng.integers(0, players, size=rows)
    heuristic = rng.random((rows, players)) < share
    heuristic[np.arange(rows), learner] = False
    return heuristic
