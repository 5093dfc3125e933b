"""Action features and the networks that score every legal action with one shared MLP.

A game may describe each of its actions by a feature vector computed from the
position (its declaration's ``action_features``, e.g. what a Poker Squares
placement does to its row and column); :func:`action_features` returns that
callable, or :class:`OneHotFeatures` (the action id's one-hot) for a game
without one. Deep Monte-Carlo's Q-network (:mod:`gamut.solvers.rl.dmc`) and
PPO's action policy head (:mod:`gamut.solvers.rl.ppo`) both score an action
as ``MLP(concat(x, f(a)))``: ``x`` the network input of the position, ``f(a)``
the action's features. The first layer is split, ``x @ W_s + f(a) @ W_a``, so
the position's part is computed once per row and only the action's part once
per action; for one-hot ids ``f(a) @ W_a`` is row ``a`` of ``W_a`` and no
``(N, A, A)`` array is ever built.

    >>> import numpy as np
    >>> from gamut.solvers.rl.networks import init_mlp
    >>> params = init_mlp("q", [3 + 2, 8, 1], np.random.default_rng(0))
    >>> score_actions(params, "q", np.zeros((4, 3), np.float32), np.zeros((4, 6, 2), np.float32)).shape
    (4, 6)

Everything here runs in NumPy or, with ``xp=jax.numpy``, inside JAX.
"""

from __future__ import annotations

import numpy as np

from gamut.envs.declaration import resolve
from gamut.envs.registry import declaration_of
from gamut.solvers.rl.networks import num_layers


class OneHotFeatures:
    """The generic action features: the one-hot of the action id, float32 ``(N, A, A)``.

    The networks never materialise them (``one_hot`` tells them to gather rows
    of the first layer instead); calling the object builds them, for reference.

    >>> OneHotFeatures(3)(np.zeros((1, 4), np.float32), np.ones((1, 3), bool))[0].tolist()
    [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    """

    one_hot = True

    def __init__(self, num_actions: int):
        self.size = int(num_actions)

    def __call__(self, inputs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        eye = np.eye(self.size, dtype=np.float32)
        return np.broadcast_to(eye, (inputs.shape[0], self.size, self.size)).copy()


def declares_features(game) -> bool:
    """Whether ``game``'s declaration lends action features."""
    declaration = declaration_of(game)
    return declaration is not None and declaration.action_features is not None


def action_features(game):
    """The action features of ``game``: its declaration's ``action_features``, else :class:`OneHotFeatures`."""
    if not declares_features(game):
        return OneHotFeatures(game.num_distinct_actions())
    return resolve(declaration_of(game).action_features)(game)


def features_name(game) -> str:
    """What a weights file records as its features: the declared reference, or ``one-hot``."""
    return declaration_of(game).action_features if declares_features(game) else "one-hot"


def recorded_features(game, metadata: dict, path):
    """The action features a weights file of ``game`` was trained on, or RLFileError naming the mismatch.

    A file records ``action_features`` (the declared reference, or ``one-hot``)
    and ``feature_size``. Both the game's declared features and the one-hot of
    the action id are accepted, so weights trained before the game lent
    features still play; any other name or size is refused.
    """
    from gamut.solvers.rl.checkpoint import RLFileError

    name, size = metadata.get("action_features"), metadata.get("feature_size")
    one_hot = OneHotFeatures(game.num_distinct_actions())
    declared = action_features(game)
    for candidate, candidate_name in ((declared, features_name(game)), (one_hot, "one-hot")):
        if (name, size) == (candidate_name, int(candidate.size)):
            return candidate
    raise RLFileError(f"weights {path} were trained on action features {name!r} of size {size}; {game} has "
                      f"{features_name(game)!r} of size {int(declared.size)} (or 'one-hot' of size {one_hot.size})")


def _tail(params: dict, head: str, h, xp):
    """The layers after the first on ``h`` ``(..., H)``: ReLU, then each ``w``, ``b``; output ``(...)``."""
    shape = h.shape[:-1]
    h = h.reshape(-1, h.shape[-1])  # one matrix product per layer, not one per leading index
    for k in range(1, num_layers(params, head)):
        h = xp.maximum(h, 0.0) @ params[f"{head}/w{k}"] + params[f"{head}/b{k}"]
    return h.reshape(shape)


def score_actions(params: dict, head: str, x, feats, xp=np):
    """Score float32 ``(N, A)`` of every action by network ``head`` (one output).

    Parameters
    ----------
    params : dict
        Holds ``{head}/w0`` float32 ``(D + F, H)`` (position rows first) and the later layers.
    head : str
    x : array
        Network inputs float32 ``(N, D)``.
    feats : array or None
        Action features float32 ``(N, A, F)``, or None for one-hot ids (then ``A = F``).
    xp : module
        ``numpy`` (the agents) or ``jax.numpy`` (training).
    """
    w0 = params[f"{head}/w0"]
    d = x.shape[1]
    state = x @ w0[:d] + params[f"{head}/b0"]
    action = w0[d:][None] if feats is None else feats @ w0[d:]
    return _tail(params, head, state[:, None, :] + action, xp)


def score_chosen(params: dict, head: str, x, chosen, one_hot: bool, xp=np):
    """Score float32 ``(B,)`` of one action per row: ``chosen`` its ids int ``(B,)`` (one-hot) or features ``(B, F)``."""
    w0 = params[f"{head}/w0"]
    d = x.shape[1]
    action = w0[d:][chosen] if one_hot else chosen @ w0[d:]
    return _tail(params, head, x @ w0[:d] + params[f"{head}/b0"] + action, xp)


def score_pairs(params: dict, head: str, x, rows, chosen, one_hot: bool, xp=np):
    """Score float32 ``(P,)`` of ``P`` (position, action) pairs, each position's part computed once.

    Parameters
    ----------
    params : dict
    head : str
    x : array
        Network inputs float32 ``(N, D)``.
    rows : array
        Int ``(P,)``: the row of ``x`` of each pair.
    chosen : array
        The pairs' actions: ids int ``(P,)`` (``one_hot``) or features float32 ``(P, F)``.
    one_hot : bool
    xp : module
    """
    w0 = params[f"{head}/w0"]
    d = x.shape[1]
    state = x @ w0[:d] + params[f"{head}/b0"]
    action = w0[d:][chosen] if one_hot else chosen @ w0[d:]
    return _tail(params, head, state[rows] + action, xp)
