"""How two agents meet in a paired, seat-balanced match of a game: what each game declares for head-to-head studies.

A game's declaration names a :class:`PairedMatch` (``GAME.paired_match``):
the game string the match is played on, what one sample is, and
``play(game, make, a, b, seed, index)``, which plays sample ``index`` of the
match seeded by ``seed`` between agents ``a`` and ``b`` and returns a dict
whose ``"sample"`` is A's advantage in it (more fields may say how it came
about). Sample ``index`` depends only on ``(seed, index)``, so a match can be
resumed or fanned out sample by sample. ``make(name, seat, seed)`` creates
agent ``name`` for ``seat``.

    >>> from gamut.envs.registry import declarations
    >>> from gamut.solvers.paired_match import PairedMatch, paired_match
    >>> declaring = [name for name, d in declarations().items() if d.paired_match is not None]
    >>> all(isinstance(paired_match(name), PairedMatch) for name in declaring) and len(declaring) > 0
    True
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from gamut.envs.declaration import resolve


@dataclass(frozen=True)
class PairedMatch:
    """A game's paired match: ``game`` (its game string), ``unit`` (what one sample is), ``play`` (the player).

    ``play`` is a ``"module:function"`` reference, resolved when a sample is played.
    """

    game: str
    unit: str
    play: str

    def play_sample(self, game, make: Callable, a: str, b: str, seed: int, index: int) -> dict:
        """Sample ``index`` of the match seeded by ``seed``: a dict whose ``"sample"`` is A's advantage."""
        return resolve(self.play)(game, make, a, b, seed, index)


def paired_match(name: str) -> PairedMatch:
    """The paired match the game ``name`` declares; ValueError naming the games that declare one."""
    from gamut.envs.registry import declarations

    found = {n: d.paired_match for n, d in declarations().items() if d.paired_match is not None}
    if name not in found:
        raise ValueError(f"{name!r} declares no paired match; games that do: {', '.join(sorted(found))}")
    return resolve(found[name])
