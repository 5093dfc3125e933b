"""Palace Poker matches between agents with rotating seats and common random deals.

Common random deals
-------------------
Every chance node of deal ``d`` of a match seeded by ``seed`` deals the card
of the deck (or draw pile) with the smallest key ``splitmix64(seed, d,
epoch, card)``. An *epoch* lasts while the pile only shrinks: a new one
starts whenever cards are added to it (the set-aside banner cards coming
back, the palaces' deck being gathered, the discard pile turned over), and
its keys are fresh. Within an epoch this is dealing from a uniformly shuffled
pile, so it is exactly the game's chance distribution; and all seatings of
one deal get the same banners and palaces seat by seat and the same bought
cards as long as the piles agree.

Rotation
--------
A *lineup* names the agent of each seat. Deal ``d`` is played once per
rotation ``r = 0 .. n-1``, seat ``s`` taking ``lineup[(s + r) % n]``, so
every agent sits in every seat on the same cards. An agent's sample for a
deal is its mean chips per hand over the seats it held in the ``n`` plays;
samples of different deals are independent, so ``gamut.solvers.stats.mean_ci``
gives the 95% interval (``n`` = deals), and two agents' samples pair up deal
by deal (``paired_diff_ci``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numba
import numpy as np
import pyspiel

from gamut.envs.palace_poker import kernels as K
from gamut.envs.palace_poker import layout as L
from gamut.envs.rng import splitmix64
from gamut.solvers.paired_match import PairedMatch
from gamut.solvers.seat_bots import play_out
from gamut.solvers.stats import Estimate, mean_ci

_SEED_MASK = (1 << 62) - 1


@numba.njit(cache=True)
def card_key(seed, deal, epoch, card):
    """Shuffle key (``uint64``) of ``card`` in ``epoch`` of deal ``deal`` of the match ``seed``."""
    base = splitmix64(np.uint64(seed) ^ splitmix64(np.uint64(deal) ^ splitmix64(np.uint64(epoch))))
    return splitmix64(base ^ np.uint64(card))


@numba.njit(cache=True)
def common_chance(state, seed, deal, track):
    """The chance outcome (card id) of ``state`` under common random deals; updates ``track``.

    ``track`` (``int64``, ``(2,)``): the epoch and the pile size after the
    previous draw; start each hand with ``new_track()``.
    """
    size = K.count_at(state, L.LOC_DRAW)
    if size > track[1]:
        track[0] += 1
    best = -1
    best_key = np.uint64(0)
    for c in range(L.NUM_CARDS):
        if state[L.S_LOC + c] == L.LOC_DRAW:
            key = card_key(seed, deal, track[0], c)
            if best < 0 or key < best_key:
                best, best_key = c, key
    track[1] = size - 1
    return best


def new_track() -> np.ndarray:
    """Epoch tracker for a new hand: epoch 0, a full deck."""
    return np.array([0, L.NUM_CARDS], dtype=np.int64)


def play_hand(game: pyspiel.Game, bots: Sequence[pyspiel.Bot], seed: int, deal: int) -> list[float]:
    """Play deal ``deal`` of the match ``seed`` with ``bots[s]`` in seat ``s``; returns chips per seat.

    Each bot is restarted first and hears every other seat's action (and
    chance outcome) through ``inform_action``.
    """
    state = game.new_initial_state()
    track = new_track()
    play_out(state, bots, lambda s: int(common_chance(s.state, seed, deal, track)))
    return state.returns()


def bot_seed(seed: int, deal: int, rotation: int, seat: int) -> int:
    """Seed of the bot in ``seat`` for one play of a deal (independent of the agents)."""
    mixed = np.random.SeedSequence([seed & _SEED_MASK, deal, rotation, seat]).generate_state(2, dtype=np.uint32)
    return int(mixed[0]) << 30 | int(mixed[1]) >> 2


def rotated_deal(game: pyspiel.Game, lineup: Sequence[str], make: Callable[[str, int, int], pyspiel.Bot],
                 seed: int, deal: int) -> dict[str, float]:
    """Play one deal in every rotation of ``lineup``; each agent's mean chips per hand over its seats.

    ``make(name, seat, seed)`` creates agent ``name`` for ``seat``.
    """
    n = game.num_players()
    if len(lineup) != n:
        raise ValueError(f"a lineup needs one agent per seat: {n} seats, got {len(lineup)} agents")
    totals = dict.fromkeys(lineup, 0.0)
    for r in range(n):
        names = [lineup[(s + r) % n] for s in range(n)]
        bots = [make(name, s, bot_seed(seed, deal, r, s)) for s, name in enumerate(names)]
        for name, chips in zip(names, play_hand(game, bots, seed, deal)):
            totals[name] += chips
    return {name: total / (n * lineup.count(name)) for name, total in totals.items()}


def ab_rotations(game: pyspiel.Game, make: Callable[[str, int, int], pyspiel.Bot], a: str, b: str, seed: int,
                 index: int) -> dict:
    """Deal ``index`` of the match seeded by ``seed``, played in every seat rotation of the lineup A, B, A, B, ...

    The sample is A's mean chips per hand minus B's over the deal's rotations.
    """
    lineup = [(a, b)[s % 2] for s in range(game.num_players())]
    chips = rotated_deal(game, lineup, make, seed, index)
    return {"deal": index, "chips": chips, "sample": chips[a] - chips[b]}


PAIRED_DEALS = PairedMatch(
    game="palace_poker(players=4)",
    unit="deals x 4 seat rotations (lineup A, B, A, B); sample = A's mean chips per hand minus B's over the "
         "deal's rotations",
    play="gamut.solvers.palace_poker.match:ab_rotations",
)


def rotated_match(game: pyspiel.Game, lineup: Sequence[str], make: Callable[[str, int, int], pyspiel.Bot],
                  seed: int, deals: Sequence[int], progress: Callable[[int], None] | None = None
                  ) -> dict[str, np.ndarray]:
    """Per-agent samples (``float64``, one per deal of ``deals``) of :func:`rotated_deal`."""
    samples = {name: np.empty(len(deals)) for name in dict.fromkeys(lineup)}
    for i, deal in enumerate(deals):
        for name, value in rotated_deal(game, lineup, make, seed, int(deal)).items():
            samples[name][i] = value
        if progress is not None:
            progress(i + 1)
    return samples


def summarize_samples(samples: dict[str, np.ndarray]) -> dict[str, Estimate]:
    """Mean chips per hand with a 95% t interval for each agent (``n`` = deals)."""
    return {name: mean_ci(values) for name, values in samples.items()}


def lineup_for(agents: Sequence[str], players: int) -> list[str]:
    """Seats filled with ``agents`` in turn: ``["a", "b"]`` at 4 seats is ``["a", "b", "a", "b"]``."""
    if not agents:
        raise ValueError("name at least one agent")
    if len(agents) > players:
        raise ValueError(f"{len(agents)} agents do not fit {players} seats")
    return [agents[s % len(agents)] for s in range(players)]
