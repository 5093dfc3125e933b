"""Information-Set Monte Carlo Tree Search for sequential pyspiel games with any number of players.

The algorithm is ISMCTS (Cowling, Powley and Whitehouse, "Information Set
Monte Carlo Tree Search", IEEE TCIAIG 4(2), 2012) in the form OpenSpiel's
ISMCTS also takes: one determinization per iteration, and every node an
information set *of the player who acts there*, identified by that player's
information-state string. Each player therefore chooses with statistics that
depend only on what it knows, as in the paper's multiple-observer variant
(MO-ISMCTS), but with a single walk and one dictionary per player instead of
per-observer trees with partially observed moves; each node backs up its own
player's return. (The paper's single-observer SO-ISMCTS keys every node by the
searching player's view, so opponents there cannot act on their own cards.)
One search builds the statistics for the move of ``player``; each iteration:

1. **Determinize** once: ``state.resample_from_infostate(player, sampler)``
   draws a full state that ``player`` cannot tell apart from the real one (in
   perfect-information games a clone). Every later step applies actions to
   this one state in place; nothing else is cloned (except by leaf
   evaluators that average several play-outs through the pyspiel API). The
   walk starts at the root node without recomputing its key; the first
   determinization of a search is checked to share the root's information
   state, and a resampler that fails this raises ValueError.
2. **Select and expand**. A tree node is an information set of the player to
   act, keyed by that player and ``information_state_string(player)``
   (``history_str()`` in perfect-information games without information-state
   strings). It holds, per legal action, a visit count ``n_a`` and the mean of
   *its own acting player's* returns. At a node with actions not yet tried,
   one of them (uniformly at random) is applied and the walk stops; otherwise
   the action maximising UCB1, ``mean_a + uct_c * spread * sqrt(ln N / n_a)``
   with ``N = sum n_a``, is applied. Chance nodes are sampled from
   ``chance_outcomes()``. With a ``prior`` (PUCT, below) there is no
   untried phase: the action maximising ``Q_a + c * spread * P_a *
   sqrt(N) / (1 + n_a)`` is applied, and the walk stops after it if it had no
   visits yet.
3. **Evaluate** the state reached with a leaf evaluator (below): one return
   per player.
4. **Back up**: each node on the path adds the return of the player who acts
   there, so the search needs neither two players nor zero sum (Palace Poker
   has up to ten seats).

``spread`` is the range (max - min over all players) of the returns seen so
far in this search, 1 until two differ: ``uct_c`` is in units of the payoff
range actually met, so one default serves games paid in single chips or in
hundreds of points. The move is the root action with the most visits (ties:
the higher mean return, then the earlier legal action).

PUCT: selection with a prior
----------------------------
Given ``prior``, a callable ``prior(state, player) -> probabilities``, the
search selects as AlphaZero does, with the prior over the legal actions of the
acting player's information state (the policy network of a game, for
instance): ``P_a`` is ``prior(state, player)[a]`` for ``a`` indexing
``state.legal_actions()``, computed once per information set and search: at
the root when the search starts, elsewhere at the node's second visit, from
the determinization that reaches it then (nodes with a single legal action
skip the call). A node's first visit takes a uniformly random action and
ends the walk there, as UCB1's first expansion does: most nodes below the
root are visited once, and a network's forward pass there would cost more
than the play-out that values the leaf. ``Q_a`` is the
action's mean return, or, while unvisited, the mean return of the node
itself (0 before its first visit): an untried action is neither assumed to
win nor to lose. ``N`` is the node's visit count, taken as at least 1 so that
the root's first selection follows the prior. ``c`` is ``uct_c``, in the
same units of the payoff spread. The probabilities must be finite, >= 0,
one per legal action, with a positive sum (they are normalised); anything
else raises ValueError. With a uniform prior PUCT still tries every action
before repeating one at a node whose actions all tie, and otherwise differs
from UCB1 only in how exploration decays (``1 / (1 + n_a)`` instead of
``sqrt(ln N / n_a)``).

Legal actions must be determined by the acting player's information state (as
in every OpenSpiel game: a policy maps information states to actions); a node
takes them from the first determinization that reaches it.

Leaf evaluators: the rollout protocol
-------------------------------------
A leaf evaluator is any callable ``evaluate(state, seed) -> returns``:

``state`` : pyspiel.State
    The determinized state where the walk stopped (a decision, chance or
    terminal node). The search never uses it again, so the evaluator may
    advance it in place.
``seed`` : int
    In ``[0, 2**63)``, drawn from the search's seeded stream. The same state
    and seed must give the same returns.
``returns`` : sequence of float, length ``num_players``
    A list or a 1-D ``float64`` array: each player's return, in the units of
    ``state.returns()``.

Built in are :func:`random_rollout` (uniform random legal actions and exact
chance probabilities, through the pyspiel API) and :func:`state_rollout`,
the fast path of a game whose State class defines ``rollout_returns``::

    def rollout_returns(self, seed: int) -> np.ndarray:
        # Play a copy to the end in a @njit(cache=True) kernel; self is unchanged.
        work = self.state.copy()
        kernels.random_rollout(work, self.cfg, seed)
        out = np.zeros(self.get_game().num_players())
        kernels.returns(work, self.cfg, out)
        return out

Contract of ``rollout_returns(seed)``: return a ``float64`` array of shape
``(num_players,)`` holding the returns at the end of a play-out of a *copy*
of the state (the state itself and its history stay unchanged); the play-out
chooses uniformly among legal actions and draws chance outcomes with their
exact probabilities, as :func:`random_rollout` does (a game may document a
different default play-out policy); the same seed gives the same returns; at a
terminal state it returns ``state.returns()``. With ``evaluator="auto"`` (the
default) a search uses ``rollout_returns`` whenever the game's states have it.

Example
-------
>>> import numpy as np, pyspiel
>>> game = pyspiel.load_game("kuhn_poker")
>>> state = game.new_initial_state()
>>> for action in (2, 0, 0, 1):  # deal K to player 0 and J to 1; 0 checks, 1 bets
...     state.apply_action(action)
>>> result = ISMCTS(game).search(state, np.random.default_rng(0), iterations=500)
>>> result.best_action()        # player 0 calls with the king
1
>>> result.visits
[9, 491]
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pyspiel

from gamut.solvers.search.leaf import (  # noqa: F401  (re-exported: the protocol's built-in evaluators)
    CHANCE,
    EVALUATOR_NAMES,
    LeafEvaluator,
    make_evaluator,
    random_rollout,
    sample_outcome,
    state_rollout,
)

# Measured on leduc_poker, 1,000 iterations per move, 1,000 hands per pair with seats
# alternating, chips per hand for c against c = 1 (95% CI): c = 4: -0.85 (-1.20 .. -0.50);
# c = 2: -0.35 (-0.67 .. -0.03); c = 0.5: +0.16 (-0.11 .. +0.43); c = 0.25: +0.20 (-0.06 .. +0.46).
# Against uniform random play larger c scores more (200 iterations, 400 hands: c = 0.5: +1.55,
# c = 1: +1.90, c = 2: +2.24), so 1 is kept as the compromise.
DEFAULT_UCT_C = 1.0
_SEED_BOUND = 1 << 63


Prior = Callable[[pyspiel.State, int], Sequence[float]]


def checked_priors(probabilities, count: int) -> list[float]:
    """``probabilities`` of ``count`` legal actions as a normalised list; ValueError if they are not.

    They must be finite, >= 0 and sum to more than 0 (a 1-D sequence or array of length ``count``).
    """
    values = np.asarray(probabilities, dtype=np.float64)
    if values.shape != (count,):
        raise ValueError(f"the prior gave {values.shape} probabilities for {count} legal actions; it must give "
                         f"one per legal action, in legal_actions() order")
    total = values.sum()
    if not np.isfinite(values).all() or (values < 0).any() or not total > 0:
        raise ValueError(f"the prior's probabilities must be finite, >= 0 and sum to more than 0, got "
                         f"{values.tolist()}")
    return (values / total).tolist()


# The priors of a PUCT node not yet asked for them (compared by identity).
PENDING: list[float] = []


class _Node:
    """Statistics of one information set: per legal action, visits and mean return of its player.

    ``inv_roots[a] = 1 / sqrt(visits[a])`` is kept beside the mean so that UCB1
    needs one multiply-add per action during selection.

    With ``priors`` (PUCT) nothing is left untried: selection alone decides
    when an action is first taken, and ``value`` (the mean return of the
    node's player over its visits) stands in for an unvisited action's mean.
    ``priors`` is ``PENDING`` until the prior is asked (at the second visit).
    """

    __slots__ = ("actions", "visits", "means", "inv_roots", "untried", "count", "priors", "value")

    def __init__(self, actions: list[int], priors: list[float] | None = None):
        self.actions = actions
        self.visits = [0] * len(actions)
        self.means = [0.0] * len(actions)
        self.inv_roots = [0.0] * len(actions)
        self.untried = list(range(len(actions))) if priors is None else []
        self.count = 0
        self.priors = priors
        self.value = 0.0


@dataclass(frozen=True)
class SearchResult:
    """What one search found at its root.

    Attributes
    ----------
    actions : list of int
        The root's legal actions, in ``legal_actions()`` order.
    visits : list of int
        Visits of each root action (sum = ``iterations``).
    mean_returns : list of float
        The searching player's mean return after each root action (NaN if unvisited).
    iterations : int
        Iterations run (one determinization each).
    leaf_evaluations : int
        Calls of the leaf evaluator (iterations whose walk ended by expanding a node).
    num_nodes : int
        Information-set nodes in the tree, all players together.
    seconds : float
        Wall time of the search.
    """

    actions: list[int]
    visits: list[int]
    mean_returns: list[float]
    iterations: int
    leaf_evaluations: int
    num_nodes: int
    seconds: float

    def best_action(self) -> int:
        """The most visited action; ties go to the higher mean return, then the earlier action."""
        best = max(range(len(self.actions)), key=lambda i: (self.visits[i], self.mean_returns[i], -i))
        return self.actions[best]

    def policy(self) -> list[tuple[int, float]]:
        """``[(action, visit fraction)]`` over the root's legal actions."""
        total = sum(self.visits)
        return [(a, v / total) for a, v in zip(self.actions, self.visits)]


def require_searchable(game: pyspiel.Game) -> None:
    """Raise ValueError unless ISMCTS can search ``game``.

    It needs a sequential game and, when information is imperfect, information-state
    strings and states that implement ``resample_from_infostate``; the latter is
    tried on a fresh state after its opening chance moves (drawn with a fixed seed).
    """
    game_type = game.get_type()
    name = game_type.short_name
    if game_type.dynamics != pyspiel.GameType.Dynamics.SEQUENTIAL:
        raise ValueError(f"ISMCTS searches sequential games only; {name} has {game_type.dynamics.name} moves")
    if game_type.information == pyspiel.GameType.Information.PERFECT_INFORMATION:
        return
    if not game_type.provides_information_state_string:
        raise ValueError(f"ISMCTS needs information-state strings; {name} does not provide them")
    state = game.new_initial_state()
    rnd = random.Random(0)
    while state.is_chance_node():
        state.apply_action(sample_outcome(state.chance_outcomes(), rnd.random()))
    if state.is_terminal():
        return
    try:
        state.resample_from_infostate(state.current_player(), pyspiel.UniformProbabilitySampler(0, 0.0, 1.0))
    except pyspiel.SpielError as err:
        raise ValueError(
            f"ISMCTS needs states that implement resample_from_infostate; {name} does not ({err})"
        ) from None


class ISMCTS:
    """ISMCTS for one game (see the module docstring for the algorithm and the protocol).

    Parameters
    ----------
    game : pyspiel.Game
        A sequential game; imperfect-information games need ``resample_from_infostate``.
    uct_c : float
        Exploration constant, in units of the observed payoff spread (>= 0).
    evaluator : str or callable
        ``"auto"`` (the states' ``rollout_returns`` if they have it, else ``"api"``),
        ``"api"`` (:func:`random_rollout`), ``"state"`` (require ``rollout_returns``),
        or a leaf evaluator ``evaluate(state, seed) -> returns``.
    rollouts : int
        Play-outs averaged per leaf evaluation (>= 1).
    prior : callable or None
        ``prior(state, player) -> probabilities`` over ``state.legal_actions()``: selection
        becomes PUCT with ``uct_c`` as its constant (see the module docstring); None keeps UCB1.
    """

    def __init__(self, game: pyspiel.Game, uct_c: float = DEFAULT_UCT_C,
                 evaluator: str | LeafEvaluator = "auto", rollouts: int = 1, prior: Prior | None = None):
        if isinstance(uct_c, bool) or not isinstance(uct_c, (int, float)) or not 0 <= uct_c < math.inf:
            raise ValueError(f"uct_c must be a finite number >= 0, got {uct_c!r}")
        if prior is not None and not callable(prior):
            raise ValueError(f"prior must be a callable prior(state, player) -> probabilities or None, got {prior!r}")
        require_searchable(game)
        game_type = game.get_type()
        self.game = game
        self.uct_c = float(uct_c)
        self.prior = prior
        self.evaluate = make_evaluator(game, evaluator, rollouts)
        self._perfect = game_type.information == pyspiel.GameType.Information.PERFECT_INFORMATION
        self._by_infostate = game_type.provides_information_state_string

    def search(self, state: pyspiel.State, rng: np.random.Generator,
               iterations: int | None = None, seconds: float | None = None) -> SearchResult:
        """Search the move of the player to act at ``state`` within one budget.

        Parameters
        ----------
        state : pyspiel.State
            A decision node of this search's game (not changed).
        rng : np.random.Generator
            Source of every random draw: same generator state and same ``iterations``,
            same result. A time budget (``seconds``) is not reproducible.
        iterations, seconds : int or float
            Exactly one: the number of iterations (>= 1), or wall seconds (> 0; at least
            one iteration runs).
        """
        if (iterations is None) == (seconds is None):
            raise ValueError("give exactly one budget: iterations or seconds")
        if iterations is not None and (isinstance(iterations, bool) or not isinstance(iterations, int)
                                       or iterations < 1):
            raise ValueError(f"iterations must be an int >= 1, got {iterations!r}")
        if seconds is not None and not 0 < seconds < math.inf:
            raise ValueError(f"seconds must be a finite number > 0, got {seconds!r}")
        player = state.current_player()
        if player < 0:
            raise ValueError(f"ISMCTS searches decision nodes; this state's current player is {player}")
        if str(state.get_game()) != str(self.game):
            raise ValueError(f"this search is for {self.game}, the state is of {state.get_game()}")
        start = time.perf_counter()
        rnd = random.Random(int(rng.integers(_SEED_BOUND)))
        if self._perfect:
            determinize = state.clone
        else:
            sampler = pyspiel.UniformProbabilitySampler(int(rng.integers(1 << 31)), 0.0, 1.0)
            resample = state.resample_from_infostate

            def determinize():
                return resample(player, sampler)

        trees = [{} for _ in range(self.game.num_players())]
        root = self._new_node(state, player, ask=True)
        root_key = self._key(state, player)
        trees[player][root_key] = root
        first = determinize()
        # Iterations start at the root node without recomputing its key (information-state
        # strings can be the costliest call of a Python game), so check the resampler once.
        if self._key(first, player) != root_key:
            raise ValueError(
                f"resample_from_infostate({player}, ...) gave a state with another information state "
                f"than the searched state's: the game's resampling is inconsistent"
            )
        done, evaluations = self._run(trees, root, player, first, determinize, rnd, iterations,
                                      start + (seconds or 0.0))
        means = [m if v else math.nan for m, v in zip(root.means, root.visits)]
        return SearchResult(list(root.actions), list(root.visits), means, done, evaluations,
                            sum(len(tree) for tree in trees), time.perf_counter() - start)

    def _new_node(self, state: pyspiel.State, player: int, ask: bool = False) -> _Node:
        """The node of ``player``'s information set at ``state``; under PUCT its priors, now if ``ask``, else PENDING."""
        actions = state.legal_actions()
        if self.prior is None:
            return _Node(actions)
        if len(actions) == 1:
            return _Node(actions, [1.0])
        return _Node(actions, checked_priors(self.prior(state, player), len(actions)) if ask else PENDING)

    def _key(self, state: pyspiel.State, player: int) -> str:
        return state.information_state_string(player) if self._by_infostate else state.history_str()

    def _run(self, trees: list[dict], root: _Node, root_player: int, first: pyspiel.State,
             determinize: Callable[[], pyspiel.State], rnd: random.Random, iterations: int | None,
             deadline: float) -> tuple[int, int]:
        """The iterations, the first from ``first``; returns (iterations done, leaf evaluations).

        Kept in one function for speed: locals are the fastest names in CPython.
        """
        evaluate = self.evaluate
        uct_c = self.uct_c
        new_node = self._new_node
        prior = self.prior
        by_infostate = self._by_infostate
        num_players = len(trees)
        log, sqrt, clock, uniform, bits = math.log, math.sqrt, time.perf_counter, rnd.random, rnd.getrandbits
        low, high, spread = math.inf, -math.inf, 1.0
        done = evaluations = 0
        state = first
        while True:
            path = []
            node, player = root, root_player
            while True:
                if node is None:
                    player = state.current_player()
                    if player < 0:
                        if player == CHANCE:
                            state.apply_action(sample_outcome(state.chance_outcomes(), uniform()))
                            continue
                        returns = state.returns()
                        break
                    tree = trees[player]
                    key = state.information_state_string(player) if by_infostate else state.history_str()
                    node = tree.get(key)
                    if node is None:
                        node = tree[key] = new_node(state, player)
                priors = node.priors
                if priors is not None:
                    if priors is PENDING:
                        if node.count == 0:
                            index = int(uniform() * len(node.actions))
                            path.append((node, index, player))
                            state.apply_action(node.actions[index])
                            returns = evaluate(state, bits(63))
                            evaluations += 1
                            break
                        priors = node.priors = checked_priors(prior(state, player), len(node.actions))
                    explore = uct_c * spread * sqrt(max(node.count, 1))
                    fpu = node.value
                    index, best, a = 0, -math.inf, 0
                    for n_a in node.visits:
                        value = (node.means[a] if n_a else fpu) + explore * priors[a] / (1 + n_a)
                        if value > best:
                            index, best = a, value
                        a += 1
                    path.append((node, index, player))
                    state.apply_action(node.actions[index])
                    if node.visits[index] == 0:
                        returns = evaluate(state, bits(63))
                        evaluations += 1
                        break
                    node = None
                    continue
                untried = node.untried
                if untried:
                    # Take a random untried action: swap it to the end, then pop.
                    j = int(uniform() * len(untried))
                    index = untried[j]
                    untried[j] = untried[-1]
                    untried.pop()
                    path.append((node, index, player))
                    state.apply_action(node.actions[index])
                    returns = evaluate(state, bits(63))
                    evaluations += 1
                    break
                inv_roots = node.inv_roots
                explore = uct_c * spread * sqrt(log(node.count))
                index, best, a = 0, -math.inf, 0
                for mean in node.means:
                    value = mean + explore * inv_roots[a]
                    if value > best:
                        index, best = a, value
                    a += 1
                path.append((node, index, player))
                state.apply_action(node.actions[index])
                node = None
            if isinstance(returns, np.ndarray):
                returns = returns.tolist()
            if len(returns) != num_players:
                raise ValueError(f"the leaf evaluator returned {len(returns)} values for {num_players} players")
            lo, hi = min(returns), max(returns)
            if lo < low or hi > high:
                low, high = min(low, lo), max(high, hi)
                if high > low:
                    spread = high - low
            for node, index, player in path:
                node.count += 1
                node.value += (returns[player] - node.value) / node.count
                n = node.visits[index] + 1
                node.visits[index] = n
                node.means[index] += (returns[player] - node.means[index]) / n
                node.inv_roots[index] = n ** -0.5
            done += 1
            if iterations is not None:
                if done >= iterations:
                    return done, evaluations
            elif clock() >= deadline:
                return done, evaluations
            state = determinize()

