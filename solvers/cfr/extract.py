"""Extract a small two-player zero-sum pyspiel game into flat arrays, once.

The tabular CFR kernels and the exact best response run over these arrays
instead of over pyspiel states, so the game tree is walked through the pyspiel
API exactly once.

Layout
------
Nodes are numbered in depth-first preorder, so a parent always has a smaller
index than its children and the subtree of node ``n`` is the index range
``[n, subtree_end[n])``. A top-down sweep is ``for n in range(num_nodes)`` and a
bottom-up sweep is the same loop reversed.

Worked example (Kuhn poker, 58 nodes, 12 information sets, 24 actions): node 0
is the chance node dealing player 0's card, ``edge_start[0:2] == [0, 3]`` so its
children are ``edge_child[0:3] == [1, 20, 39]`` with ``edge_prob[0:3] == 1/3``.
Node 2 (player 0 holding the jack, after both deals) has ``node_kind == DECISION``,
``node_player == 0``, ``node_infoset == 0`` and the information set
``infoset_keys[0] == "0"`` has ``infoset_actions[0:2] == [0, 1]`` (pass, bet):
the k-th edge of a decision node is the k-th action of its information set.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field

import numpy as np
import pyspiel

TERMINAL = 0
CHANCE = 1
DECISION = 2

# Memory model for the estimate printed before extraction. Per node: the final
# arrays (26 bytes), the solvers' scratch buffers (four float64) and the Python
# lists built during the walk (~250 bytes; peak growth measured 414 bytes per
# node in all on tic_tac_toe's 549,946 histories). Per information set: its key
# string, dictionary entry and action list. The estimate assumes up to half of
# the nodes have their own information set (as in perfect-information games),
# so it errs on the high side for card games.
_BYTES_PER_NODE = 26 + 4 * 8 + 250
_BYTES_PER_EDGE = 4 + 8
_BYTES_PER_INFOSET = 300
_INFOSETS_PER_NODE = 0.5

DEFAULT_MAX_NODES = 5_000_000


@dataclass(frozen=True)
class GameTree:
    """A two-player zero-sum game tree as flat arrays (see the module docstring).

    Attributes
    ----------
    game_string : str
        ``str(game)`` of the extracted game, e.g. ``"leduc_poker()"``.
    node_kind : ndarray, shape (num_nodes,), int8
        ``TERMINAL``, ``CHANCE`` or ``DECISION``.
    node_player : ndarray, shape (num_nodes,), int8
        Acting player (0 or 1) at decision nodes, -1 elsewhere.
    node_infoset : ndarray, shape (num_nodes,), int32
        Information set index at decision nodes, -1 elsewhere.
    node_parent : ndarray, shape (num_nodes,), int32
        Parent node, -1 at the root.
    subtree_end : ndarray, shape (num_nodes,), int32
        One past the last node of the subtree rooted at each node.
    node_utility : ndarray, shape (num_nodes,), float64
        Player 0's return at terminal nodes (player 1 gets the negative), 0 elsewhere.
    edge_start : ndarray, shape (num_nodes + 1,), int32
        Children of node ``n`` are ``edge_child[edge_start[n]:edge_start[n + 1]]``.
    edge_child : ndarray, shape (num_edges,), int32
        Child node of each edge.
    edge_prob : ndarray, shape (num_edges,), float64
        Chance probability of each edge leaving a chance node, 0 elsewhere.
    infoset_player : ndarray, shape (num_infosets,), int8
        Player to act in each information set.
    infoset_action_start : ndarray, shape (num_infosets + 1,), int32
        Actions of set ``i`` are ``infoset_actions[infoset_action_start[i]:infoset_action_start[i + 1]]``;
        per-action tables (regrets, policies) use the same flat index.
    infoset_actions : ndarray, shape (num_infoset_actions,), int32
        OpenSpiel action ids, in ``legal_actions()`` order.
    infoset_keys : tuple of str
        ``information_state_string`` of each information set.
    """

    game_string: str
    node_kind: np.ndarray
    node_player: np.ndarray
    node_infoset: np.ndarray
    node_parent: np.ndarray
    subtree_end: np.ndarray
    node_utility: np.ndarray
    edge_start: np.ndarray
    edge_child: np.ndarray
    edge_prob: np.ndarray
    infoset_player: np.ndarray
    infoset_action_start: np.ndarray
    infoset_actions: np.ndarray
    infoset_keys: tuple
    infoset_index: dict = field(repr=False, compare=False)

    @property
    def num_nodes(self) -> int:
        return int(self.node_kind.shape[0])

    @property
    def num_infosets(self) -> int:
        return int(self.infoset_player.shape[0])

    @property
    def num_infoset_actions(self) -> int:
        return int(self.infoset_actions.shape[0])

    def fingerprint(self) -> dict:
        """Sizes that identify the tree; checkpoints and saved policies record them."""
        return {
            "game": self.game_string,
            "num_nodes": self.num_nodes,
            "num_infosets": self.num_infosets,
            "num_infoset_actions": self.num_infoset_actions,
        }


def check_two_player_zero_sum(game: pyspiel.Game) -> None:
    """Raise ``ValueError`` unless ``game`` is sequential, two-player, zero-sum, terminal-reward."""
    game_type = game.get_type()
    problems = []
    if game.num_players() != 2:
        problems.append(f"{game.num_players()} players (need 2)")
    if game_type.dynamics != pyspiel.GameType.Dynamics.SEQUENTIAL:
        problems.append(f"dynamics {game_type.dynamics} (need SEQUENTIAL)")
    if game_type.utility != pyspiel.GameType.Utility.ZERO_SUM:
        problems.append(f"utility {game_type.utility} (need ZERO_SUM)")
    if game_type.reward_model != pyspiel.GameType.RewardModel.TERMINAL:
        problems.append(f"reward model {game_type.reward_model} (need TERMINAL)")
    if game_type.chance_mode == pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC:
        problems.append("sampled chance (need explicit or deterministic chance)")
    if problems:
        raise ValueError(f"CFR needs a two-player zero-sum sequential game; {game} has " + "; ".join(problems))


def estimate_num_nodes(game: pyspiel.Game, probes: int = 256, seed: int = 0) -> float:
    """Estimate the number of histories with Knuth's random-probe estimator.

    Each probe walks one random root-to-leaf path choosing children uniformly
    and sums the products of branching factors along it; the mean over probes
    is an unbiased estimate of the tree size. It costs ``probes`` paths, not a
    walk of the tree.
    """
    rng = np.random.default_rng(seed)
    total = 0.0
    for _ in range(probes):
        state = game.new_initial_state()
        width = 1.0
        count = 1.0
        while not state.is_terminal():
            actions = [a for a, _ in state.chance_outcomes()] if state.is_chance_node() else state.legal_actions()
            width *= len(actions)
            count += width
            state.apply_action(actions[int(rng.integers(len(actions)))])
        total += count
    return total / probes


def memory_estimate_bytes(num_nodes: float) -> float:
    """Approximate peak memory of extracting and solving a tree of ``num_nodes`` histories."""
    return num_nodes * (_BYTES_PER_NODE + _BYTES_PER_EDGE + _INFOSETS_PER_NODE * _BYTES_PER_INFOSET)


def _too_big(game, num_nodes: float, max_nodes: int, how: str) -> ValueError:
    return ValueError(
        f"{game} is too large to extract: {how} {num_nodes:,.0f} histories > max_nodes={max_nodes:,} "
        f"(~{memory_estimate_bytes(num_nodes) / 2**20:,.0f} MB); use es-mccfr/os-mccfr "
        "or an information-state abstraction instead, or raise max_nodes"
    )


def _report_to_stderr(message: str) -> None:
    print(message, file=sys.stderr)


def extract_game(game: pyspiel.Game | str, max_nodes: int = DEFAULT_MAX_NODES, report=_report_to_stderr) -> GameTree:
    """Walk a two-player zero-sum game once and return its tree as flat arrays.

    Parameters
    ----------
    game : pyspiel.Game or str
        The game, or a game string for ``pyspiel.load_game``.
    max_nodes : int
        Refuse (``ValueError``) games with more histories than this, before the
        walk when the estimate exceeds it and during the walk otherwise.
    report : callable of str, or None
        Receives the memory estimate printed before extraction (stderr by default).

    Returns
    -------
    GameTree
    """
    if isinstance(game, str):
        game = load_game_string(game)
    check_two_player_zero_sum(game)
    if max_nodes < 1:
        raise ValueError(f"max_nodes must be positive, got {max_nodes}")
    estimate = estimate_num_nodes(game)
    if report is not None:
        report(
            f"extracting {game}: about {estimate:,.0f} histories "
            f"(~{memory_estimate_bytes(estimate) / 2**20:,.1f} MB estimated)"
        )
    if estimate > max_nodes:
        raise _too_big(game, estimate, max_nodes, "an estimated")
    return _walk(game, max_nodes)


def load_game_string(game_string: str) -> pyspiel.Game:
    """``pyspiel.load_game`` with a ``ValueError`` naming the string when it is malformed or unknown.

    The toolkit's own games are registered first, so ``poke(...)`` loads like ``kuhn_poker``.
    """
    import gamut.envs  # noqa: F401  (registers the toolkit's games with pyspiel)
    from gamut.envs.loading import load_game

    return load_game(game_string)


def _walk(game: pyspiel.Game, max_nodes: int) -> GameTree:
    kind, player, infoset, parent, utility = [], [], [], [], []
    edge_start, edge_child, edge_prob, edge_owner = [], [], [], []
    subtree_end = []
    keys: dict[str, int] = {}
    infoset_player, infoset_actions = [], []
    # Perfect recall check: the acting player's previous (infoset, action) must
    # be the same for every history of an information set.
    infoset_history: list[tuple] = []

    # Stack entries: (state, parent's edge slot, own previous (infoset, action) per
    # player), or (None, node, ...) marking the end of that node's subtree.
    stack = [(game.new_initial_state(), -1, ((-1, -1), (-1, -1)))]
    while stack:
        state, slot, previous = stack.pop()
        if state is None:
            subtree_end[slot] = len(kind)
            continue
        node = len(kind)
        if node >= max_nodes:
            raise _too_big(game, node + 1, max_nodes, "at least")
        parent_node = -1
        if slot >= 0:
            edge_child[slot] = node
            parent_node = edge_owner[slot]
        kind.append(0)
        player.append(-1)
        infoset.append(-1)
        parent.append(parent_node)
        utility.append(0.0)
        subtree_end.append(-1)
        edge_start.append(len(edge_child))
        stack.append((None, node, None))
        if state.is_terminal():
            returns = state.returns()
            if abs(returns[0] + returns[1]) > 1e-9 * max(1.0, abs(returns[0])):
                raise ValueError(f"{game} is declared zero-sum but a terminal has returns {returns}")
            kind[node] = TERMINAL
            utility[node] = float(returns[0])
            continue
        if state.is_chance_node():
            kind[node] = CHANCE
            outcomes = state.chance_outcomes()
            actions = [a for a, _ in outcomes]
            edge_prob.extend(float(p) for _, p in outcomes)
            next_previous = [previous] * len(actions)
        else:
            acting = state.current_player()
            key = state.information_state_string(acting)
            actions = state.legal_actions(acting)
            index = keys.get(key)
            if index is None:
                index = len(infoset_player)
                keys[key] = index
                infoset_player.append(acting)
                infoset_actions.append(actions)
                infoset_history.append(previous[acting])
            elif infoset_actions[index] != actions or infoset_history[index] != previous[acting]:
                raise ValueError(
                    f"{game} lacks perfect recall or has history-dependent legal actions "
                    f"at information state {key!r}; tabular CFR needs perfect recall"
                )
            kind[node] = DECISION
            player[node] = acting
            infoset[node] = index
            edge_prob.extend([0.0] * len(actions))
            next_previous = []
            for k in range(len(actions)):
                own = list(previous)
                own[acting] = (index, k)
                next_previous.append(tuple(own))
        first = len(edge_child)
        edge_child.extend([-1] * len(actions))
        edge_owner.extend([node] * len(actions))
        # Push in reverse so the first child is visited first (preorder).
        for k in range(len(actions) - 1, -1, -1):
            stack.append((state.child(actions[k]), first + k, next_previous[k]))
    edge_start.append(len(edge_child))

    action_start = np.zeros(len(infoset_actions) + 1, dtype=np.int32)
    action_start[1:] = np.cumsum([len(a) for a in infoset_actions])
    flat_actions = [a for actions in infoset_actions for a in actions]
    return GameTree(
        game_string=str(game),
        node_kind=np.asarray(kind, dtype=np.int8),
        node_player=np.asarray(player, dtype=np.int8),
        node_infoset=np.asarray(infoset, dtype=np.int32),
        node_parent=np.asarray(parent, dtype=np.int32),
        subtree_end=np.asarray(subtree_end, dtype=np.int32),
        node_utility=np.asarray(utility, dtype=np.float64),
        edge_start=np.asarray(edge_start, dtype=np.int32),
        edge_child=np.asarray(edge_child, dtype=np.int32),
        edge_prob=np.asarray(edge_prob, dtype=np.float64),
        infoset_player=np.asarray(infoset_player, dtype=np.int8),
        infoset_action_start=action_start,
        infoset_actions=np.asarray(flat_actions, dtype=np.int32),
        infoset_keys=tuple(keys),
        infoset_index=keys,
    )
