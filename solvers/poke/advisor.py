"""The Poke doubling advisor: what every draw option of a draw decision is worth, to the end of the match.

At a draw decision (stand, or discard 1 to 3 cards and draw, which doubles or
redoubles the opponent's tricks, or is the dealer's free draw) the advisor
estimates, for each legal option, the drawer's expected above-the-line points
from now to the end of the match (the rubber, the game, or in ``deal`` mode
the deal's return with ``trick_value`` per point below the line): the mean,
over rollouts, of the drawer's final return minus the return the score sheet
gives it now. Every estimate has its 95% t interval over the rollouts, and
every option's difference from the best is paired rollout by rollout.

Each rollout draws one determinization of the position
(``gamut.solvers.poke.advisor_kernels.determinize``: the hidden cards drawn
uniformly among those consistent with what the drawer saw, and a stock
order) and plays every option from it with the same later deals and the same
random streams (common random numbers): the differences between options
come from the options, not from the cards.

After the option, the drawer's later moves are played by ``policy`` and the
opponent's by ``opponent``, both agent names of the registry
(``gamut.solvers.bots``) with their options. When both are ``heuristic`` (the
default: draws by category thresholds, tricks beaten as cheaply as possible)
the rollouts run in compiled loops, about twenty thousand rubbers a second on one core;
any other agent (``ismcts``, ``cfr`` on the small deck, ``mccfr``, the
learned agents) plays through pyspiel, much more slowly. There an agent that
acts by a distribution over the legal actions (a ``PolicyBot``: ``cfr``,
``cfr-policy``) is made once per seat and its distribution is sampled with
the rollout's own stream; any other agent is made afresh for each rollout and
option, seeded by the rollout, so every option meets the same agent randomness.

The belief over the hidden cards is uniform over what is consistent with the
drawer's information (no model of why the opponent drew as it did). At the
non-dealer's draws the opponent has not yet acted in the deal, so this is
the exact belief; at the dealer's draws it ignores what the non-dealer's
draws say about its hand.

    >>> import pyspiel, gamut
    >>> from gamut.solvers.poke.advisor import advise, deal_position
    >>> state = deal_position(pyspiel.load_game("poke(mode=rubber)"), deal_seed=7)   # doctest: +SKIP
    >>> print(advise(state, rollouts=500).table())                                      # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pyspiel

from gamut.envs.hands import CATEGORY_NAMES, category_of
from gamut.envs.poke import kernels as K
from gamut.envs.poke.encoding import action_to_string, mask_str
from gamut.envs.poke.showdown import hand_strength
from gamut.envs.rng import splitmix64
from gamut.solvers.bots import make_bot
from gamut.solvers.poke.advisor_kernels import determinize, rollout_key, rollout_returns
from gamut.solvers.poke.equilibrium import STAGE_NAMES
from gamut.solvers.poke.heuristic import draw_stage, make_params, require_poke
from gamut.solvers.poke.match import deal_order, fill_deal_order, next_card
from gamut.solvers.seat_bots import PolicyBot
from gamut.solvers.stats import Estimate, mean_ci

DEFAULT_ROLLOUTS = 2000
DEFAULT_AGENT = "heuristic"
MAX_ROLLOUTS = 10**7
# Rollouts per compiled call: a fraction of a second each on the full deck, so a bar moves;
# rollout r always uses rollout_key(seed, r), so the chunking does not change the numbers.
CHUNK = 200


@dataclass(frozen=True)
class OptionValue:
    """One draw option: its action id and name, its value and its paired difference from the best option."""

    action: int
    name: str
    value: Estimate
    versus_best: Estimate

    def as_dict(self) -> dict:
        return {"action": self.action, "option": self.name, "value": self.value.value,
                "ci95_low": self.value.ci95_low, "ci95_high": self.value.ci95_high,
                "versus_best": self.versus_best.value, "versus_best_ci95_low": self.versus_best.ci95_low,
                "versus_best_ci95_high": self.versus_best.ci95_high, "n": self.value.n}


@dataclass(frozen=True)
class Advice:
    """The advisor's answer at one draw decision.

    Attributes
    ----------
    position : dict
        The game string, the drawer, the draw (stage number and name), the
        drawer's hand and the score sheet.
    opponent, policy : str
        Agents playing the opponent's moves and the drawer's later moves.
    opponent_options, policy_options : dict
    rollouts, seed : int
    options : tuple of OptionValue
        Every option evaluated, best (highest mean) first.
    samples : ndarray, float64, shape (rollouts, len(options))
        Points to the end of the match of each rollout and option, columns in
        the order of ``options``.
    """

    position: dict
    opponent: str
    policy: str
    rollouts: int
    seed: int
    options: tuple
    samples: np.ndarray = field(repr=False)
    opponent_options: dict = field(default_factory=dict)
    policy_options: dict = field(default_factory=dict)

    @property
    def best(self) -> OptionValue:
        return self.options[0]

    def value_of(self, action: int) -> OptionValue:
        """The evaluated option of action id ``action``."""
        for option in self.options:
            if option.action == action:
                return option
        raise ValueError(f"action {action} was not evaluated; evaluated: {[o.action for o in self.options]}")

    def as_dict(self) -> dict:
        """Everything but the samples, as JSON-ready values."""
        return {**self.position, "opponent": self.opponent, "opponent_options": dict(self.opponent_options),
                "policy": self.policy, "policy_options": dict(self.policy_options), "rollouts": self.rollouts,
                "seed": self.seed, "unit": _UNIT, "best": self.best.name,
                "options": [option.as_dict() for option in self.options]}

    def table(self, limit: int | None = None) -> str:
        """The answer in readable lines: the position, then one line per option, best first."""
        p = self.position
        lines = [f"{p['game']}: seat {p['player']} to draw, {p['stage_name']}; hand {p['hand']} ({p['category']})",
                 f"score: above {p['above'][0]}/{p['above'][1]}, below {p['below'][0]}/{p['below'][1]}, "
                 f"games {p['games'][0]}/{p['games'][1]} (seat {p['player']}/opponent), deal {p['deal']}",
                 f"{_UNIT}; 95% CI over {self.rollouts:,} rollouts (same cards for every option); "
                 f"opponent {_agent_words(self.opponent, self.opponent_options)}, "
                 f"later moves {_agent_words(self.policy, self.policy_options)}"]
        width = max(len(o.name) for o in self.options)
        lines.append(f"  {'option':<{width}}  {'value':>8}  {'95% CI':<20} {'vs best':>8}  95% CI")
        for option in self.options[:limit]:
            v, d = option.value, option.versus_best
            lines.append(f"  {option.name:<{width}}  {v.value:>+8.1f}  ({v.ci95_low:+.1f} .. {v.ci95_high:+.1f})"
                         .ljust(width + 34) + f" {d.value:>+8.1f}  ({d.ci95_low:+.1f} .. {d.ci95_high:+.1f})")
        return "\n".join(lines)


_UNIT = "expected above-the-line points from now to the end of the match"


def _agent_words(name: str, options: dict) -> str:
    return name + (" (" + ", ".join(f"{k}={v}" for k, v in sorted(options.items())) + ")" if options else "")


def require_draw_decision(state) -> None:
    """Raise ValueError unless ``state`` is a Poke position where a player chooses a draw."""
    if not hasattr(state, "get_game"):
        raise ValueError(f"the advisor takes a pyspiel Poke state, got {type(state).__name__}")
    require_poke(state.get_game())
    phase = int(state.state[K.S_PHASE])
    if phase != K.PH_DRAW:
        names = {K.PH_DEAL: "dealing", K.PH_REPLACE: "drawing replacement cards", K.PH_TRICK: "trick play",
                 K.PH_OVER: "over"}
        raise ValueError(f"the position is not at a draw decision (stand or discard): it is at {names[phase]}; "
                         "the advisor answers at draw decisions only")


def current_return(st: np.ndarray, cfg: np.ndarray, trick_value: float, player: int) -> float:
    """What ``player``'s return would be if the match ended now (above-the-line difference; deal mode adds tricks)."""
    diff = float(st[K.S_ABOVE + player] - st[K.S_ABOVE + 1 - player])
    if cfg[K.C_MODE] == K.MODE_DEAL:
        diff += trick_value * float(st[K.S_BELOW + player] - st[K.S_BELOW + 1 - player])
    return diff


def position_summary(game, st: np.ndarray) -> dict:
    """The drawer, the draw and the score sheet of draw decision ``st`` (the ``position`` of an Advice)."""
    player = int(st[K.S_DRAWER])
    stage = int(draw_stage(st))
    hand = int(st[K.S_HAND + player])

    def pair(field):
        return [int(st[field + player]), int(st[field + 1 - player])]

    return {"game": str(game), "player": player, "stage": stage, "stage_name": STAGE_NAMES[stage],
            "hand": mask_str(hand), "category": CATEGORY_NAMES[category_of(hand_strength(hand))],
            "above": pair(K.S_ABOVE), "below": pair(K.S_BELOW), "games": pair(K.S_GAMES),
            "deal": int(st[K.S_DEALS_DONE]) + 1}


def draw_options(st: np.ndarray, cfg: np.ndarray) -> np.ndarray:
    """The legal draw actions (``int64``) of the drawer at draw decision ``st``, ascending."""
    buf = np.empty(64, dtype=np.int64)
    return buf[:K.legal_actions(st, cfg, buf)].copy()


def _checked_actions(st: np.ndarray, cfg: np.ndarray, actions) -> np.ndarray:
    legal = draw_options(st, cfg)
    if actions is None:
        return legal
    chosen = np.asarray(list(actions), dtype=np.int64)
    bad = [int(a) for a in chosen if a not in legal]
    if bad or len(chosen) == 0 or len(set(chosen.tolist())) != len(chosen):
        raise ValueError(f"actions must be distinct legal draw actions of this position; got {list(chosen)}, "
                         f"legal: {legal.tolist()}")
    return chosen


def _heuristic_seats(player: int, policy_options: dict, opponent_options: dict) -> np.ndarray:
    params = np.empty((2, 5), dtype=np.int64)
    params[player] = make_params(**policy_options)
    params[1 - player] = make_params(**opponent_options)
    return params


def advise_array(st: np.ndarray, cfg: np.ndarray, trick_value: float = 0.0, rollouts: int = DEFAULT_ROLLOUTS,
                 seed: int = 0, actions=None, opponent_options: dict | None = None,
                 policy_options: dict | None = None, progress: Callable[[int], None] | None = None,
                 game_string: str = "poke") -> Advice:
    """The advice at the draw decision of kernel state ``st`` with heuristic seats (the compiled engine).

    For positions built as arrays (a chosen hand and score sheet: see
    ``gamut.solvers.poke.point_value.first_draw_position``). ``opponent_options``
    and ``policy_options`` are heuristic thresholds (``heuristic.make_params``);
    ``actions`` restricts the options evaluated (default: every legal draw).
    ``progress(done)`` is called after each chunk of rollouts.
    """
    if st[K.S_PHASE] != K.PH_DRAW:
        raise ValueError("the position is not at a draw decision (stand or discard)")
    _check_rollouts(rollouts)
    opponent_options, policy_options = dict(opponent_options or {}), dict(policy_options or {})
    player = int(st[K.S_DRAWER])
    chosen = _checked_actions(st, cfg, actions)
    params = _heuristic_seats(player, policy_options, opponent_options)
    parts = []
    for first in range(0, rollouts, CHUNK):
        parts.append(rollout_returns(st, cfg, player, chosen, params, trick_value, seed, first,
                                     min(CHUNK, rollouts - first)))
        if progress is not None:
            progress(first + len(parts[-1]))
    samples = np.concatenate(parts) - current_return(st, cfg, trick_value, player)
    names = [action_to_string(st, cfg, player, int(a)) for a in chosen]
    return _advice(position_summary(game_string, st), chosen, names, samples, DEFAULT_AGENT, opponent_options,
                   DEFAULT_AGENT, policy_options, rollouts, seed)


def _check_rollouts(rollouts) -> None:
    if isinstance(rollouts, bool) or not isinstance(rollouts, (int, np.integer)) or not 2 <= rollouts <= MAX_ROLLOUTS:
        raise ValueError(f"rollouts={rollouts!r} must be a whole number in 2..{MAX_ROLLOUTS:,} (a CI needs two)")


def _advice(position, actions, names, samples, opponent, opponent_options, policy, policy_options, rollouts,
            seed) -> Advice:
    means = samples.mean(axis=0)
    order = np.argsort(-means, kind="stable")
    best = samples[:, order[0]]
    options = tuple(OptionValue(int(actions[j]), names[j], mean_ci(samples[:, j]), mean_ci(samples[:, j] - best))
                    for j in order)
    return Advice(position, opponent, policy, int(rollouts), int(seed), options, samples[:, order],
                  dict(opponent_options), dict(policy_options))


def advise(state, opponent: str = DEFAULT_AGENT, policy: str = DEFAULT_AGENT, rollouts: int = DEFAULT_ROLLOUTS,
           seed: int = 0, opponent_options: dict | None = None, policy_options: dict | None = None, actions=None,
           progress: Callable[[int], None] | None = None) -> Advice:
    """The value of every draw option at the draw decision of a pyspiel Poke ``state``.

    Parameters
    ----------
    state : pyspiel.State
        A Poke position (any mode and deck) where a player chooses a draw.
    opponent, policy : str
        Registry agents for the opponent's moves and the drawer's later moves.
    rollouts : int
        Determinizations, each played once per option (at least 2).
    seed : int
        Seeds every determinization, later deal and agent (same seed, same numbers).
    opponent_options, policy_options : dict, optional
        The agents' options (``heuristic``: its thresholds).
    actions : iterable of int, optional
        The draw actions to evaluate (default: every legal one).
    progress : callable ``(rollouts done) -> None``, optional

    Raises
    ------
    ValueError
        When the position is not at a draw decision, an agent or option is
        unknown or cannot play the game, or ``rollouts`` is out of range.
    """
    require_draw_decision(state)
    _check_rollouts(rollouts)
    game = state.get_game()
    opponent_options, policy_options = dict(opponent_options or {}), dict(policy_options or {})
    st, cfg = state.state, game.cfg
    player = int(st[K.S_DRAWER])
    # Build both agents now, so an unknown name or option fails before any rollout.
    for name, options, seat, role in ((opponent, opponent_options, 1 - player, "opponent"),
                                      (policy, policy_options, player, "policy")):
        try:
            make_bot(game, name, seat, 0, **options)
        except ValueError as err:
            raise ValueError(f"{role}: {err}") from None
    if opponent == policy == DEFAULT_AGENT:
        return advise_array(st, cfg, game.trick_value, rollouts, seed, actions, opponent_options, policy_options,
                            progress, str(game))
    chosen = _checked_actions(st, cfg, actions)
    seats = {player: _Seat(game, policy, policy_options, player), 1 - player: _Seat(game, opponent,
                                                                                    opponent_options, 1 - player)}
    samples = _bot_returns(state, player, chosen, seats, seed, rollouts, progress)
    samples -= current_return(st, cfg, game.trick_value, player)
    names = [action_to_string(st, cfg, player, int(a)) for a in chosen]
    return _advice(position_summary(game, st), chosen, names, samples, opponent, opponent_options, policy,
                   policy_options, rollouts, seed)


class _Seat:
    """How one seat's agent is made in the pyspiel engine (see the module docstring)."""

    def __init__(self, game, name: str, options: dict, player: int):
        self._make = lambda seed: make_bot(game, name, player, seed, **options)
        first = self._make(0)
        self.shared = first if isinstance(first, PolicyBot) else None

    def bot(self, key: int):
        """The agent for the rollout keyed ``key``: the shared one, or one seeded by the key."""
        return self.shared if self.shared is not None else self._make(int(key) >> 2)


def _uniform(key: int, move: int) -> float:
    """A number in [0, 1) for move number ``move`` of the rollout keyed ``key``."""
    return float(splitmix64(np.uint64(key) ^ splitmix64(np.uint64(move))) >> np.uint64(11)) / 2.0**53


def _sample(policy: list, u: float) -> int:
    total = sum(p for _, p in policy)
    acc = 0.0
    for action, p in policy:
        acc += p
        if u * total < acc:
            return int(action)
    return int(policy[-1][0])


def _substituted_deal(deal_actions: list, st: np.ndarray, det: np.ndarray, cfg: np.ndarray, player: int) -> list:
    """The current deal's actions with the opponent's cards, discards and draws of determinization ``det``."""
    opp = 1 - player
    dealt_cards = [c for c in range(52) if (int(det[K.S_DEALT + opp]) >> c) & 1]
    drawn = [[c for c in range(52) if (int(det[K.S_DRAWN + 3 * opp + k]) >> c) & 1] for k in range(3)]
    replay = st.copy()
    K.start_deal(replay, cfg, st[K.S_DEALER])
    replay[K.S_MOVES] = st[K.S_DEAL_START]
    replay[K.S_DEAL_START] = st[K.S_DEAL_START]
    out = []
    for action in deal_actions:
        phase, mover = replay[K.S_PHASE], K.current_player(replay)
        new = action
        if phase == K.PH_DEAL:
            k = replay[K.S_NUM_DEALT]
            if (1 - replay[K.S_DEALER] if k % 2 == 0 else replay[K.S_DEALER]) == opp:
                new = dealt_cards.pop()
        elif phase == K.PH_REPLACE and replay[K.S_DRAWER] == opp:
            new = drawn[replay[K.S_NDRAWS + opp] - 1].pop()
        elif phase == K.PH_DRAW and mover == opp and action != K.STAND:
            new = K.cards_to_slots(replay[K.S_HAND + opp], det[K.S_DISC + 3 * opp + replay[K.S_NDRAWS + opp]])
        out.append(int(new))
        K.apply_action(replay, cfg, int(new))
    return out


def _bot_returns(state, player: int, actions: np.ndarray, seats: dict, seed: int, rollouts: int,
                 progress) -> np.ndarray:
    """Final returns ``(rollouts, len(actions))`` of the pyspiel engine, rollout keys as the compiled one."""
    game = state.get_game()
    cfg, st = game.cfg, state.state
    history = state.history()
    start = int(st[K.S_DEAL_START])
    prefix = game.new_initial_state()
    for action in history[:start]:
        prefix.apply_action(action)
    det = np.empty(K.STATE_SIZE, dtype=np.int64)
    order = np.empty(52, dtype=np.int64)
    out = np.empty((rollouts, len(actions)))
    for r in range(rollouts):
        key = int(rollout_key(np.uint64(seed), r))
        n = determinize(st, cfg, player, np.uint64(key), det, order)
        base = prefix.clone()
        for action in _substituted_deal(history[start:], st, det, cfg, player):
            base.apply_action(action)
        for j, action in enumerate(actions):
            rollout = base.clone()
            rollout.apply_action(int(action))
            _play_bots(rollout, {seat: s.bot(key) for seat, s in seats.items()}, key, order[:n].copy())
            out[r, j] = rollout.returns()[player]
        if progress is not None and ((r + 1) % 10 == 0 or r + 1 == rollouts):
            progress(r + 1)
    return out


def _play_bots(state, bots: dict, key: int, order: np.ndarray) -> None:
    """Play ``state`` to its end: the current deal's stock in ``order``, later deals keyed by ``key``."""
    cfg = state.get_game().cfg
    deal = int(state.state[K.S_DEALS_DONE])
    deck = np.empty(52, dtype=np.int64)
    for bot in bots.values():
        bot.restart_at(state)
    while not state.is_terminal():
        st = state.state
        if state.is_chance_node():
            if st[K.S_DEALS_DONE] != deal:
                deal = int(st[K.S_DEALS_DONE])
                order = deck[:fill_deal_order(cfg[K.C_DECK], np.uint64(key), np.uint64(deal), deck)].copy()
            actor, action = pyspiel.PlayerId.CHANCE, int(next_card(st, cfg, order, len(order)))
        else:
            actor = state.current_player()
            bot = bots[actor]
            if isinstance(bot, PolicyBot):
                action = _sample(bot.step_with_policy(state)[0], _uniform(key, int(st[K.S_MOVES])))
            else:
                action = int(bot.step(state))
        for seat, bot in bots.items():
            if seat != actor:
                bot.inform_action(state, actor, action)
        state.apply_action(action)


def deal_position(game, deal_seed: int):
    """The first draw decision of a match of ``game`` whose first deal comes from ``deal_order(cfg, deal_seed, 0)``.

    The non-dealer (seat 0: seat 1 deals first) is to draw, with the score
    sheet empty. The cards are those of the first deal of a match seeded
    ``deal_seed`` in ``gamut.solvers.poke.match`` (``play_pyspiel``,
    ``heuristic_margins``).
    """
    require_poke(game)
    if isinstance(deal_seed, bool) or not isinstance(deal_seed, (int, np.integer)) or not 0 <= deal_seed < 2**63:
        raise ValueError(f"deal seed {deal_seed!r} must be a whole number in 0..2**63-1")
    order = deal_order(game.cfg, int(deal_seed), 0)
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(int(next_card(state.state, game.cfg, order, len(order))))
    return state


def first_draw_position(cfg: np.ndarray, hand: str, below=(0, 0), games=(0, 0), above=(0, 0)) -> np.ndarray:
    """Kernel state of the non-dealer's first draw (seat 0; seat 1 deals) holding ``hand`` at a chosen score.

    ``hand`` names the cards (``"Kc Kd 3h 7s 9d"``); ``below``, ``games`` and
    ``above`` are (seat 0, seat 1). The dealer's cards are the lowest others
    of the deck (the advisor redraws them). The deal number is even (seat 1
    deals the even deals) and grows with the games won: 8 deals a game.
    """
    from gamut.envs.cards import parse_cards

    cards = [int(c) for c in parse_cards(hand)]
    size = int(cfg[K.C_HAND_SIZE])
    deck = [c for c in range(52) if (int(cfg[K.C_DECK]) >> c) & 1]
    if len(cards) != size or len(set(cards)) != size or not set(cards) <= set(deck):
        raise ValueError(f"hand {hand!r} must name {size} different cards of the deck")
    for name, pair, high in (("below", below, K.GAME_TARGET - 1), ("games", games, K.GAMES_TO_WIN_RUBBER - 1),
                             ("above", above, 10**6)):
        if len(pair) != 2 or not all(isinstance(v, (int, np.integer)) and 0 <= v <= high for v in pair):
            raise ValueError(f"{name}={pair!r} must be two whole numbers in 0..{high}")
    st = np.zeros(K.STATE_SIZE, dtype=np.int64)
    K.init_state(st, cfg)
    for field_, pair in ((K.S_BELOW, below), (K.S_GAMES, games), (K.S_ABOVE, above)):
        st[field_], st[field_ + 1] = pair
    st[K.S_DEALS_DONE] = 8 * (games[0] + games[1])
    others = [c for c in deck if c not in cards]
    for mine, theirs in zip(cards, others):
        K.apply_action(st, cfg, mine)
        K.apply_action(st, cfg, theirs)
    return st
