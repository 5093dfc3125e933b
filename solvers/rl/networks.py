"""Multilayer perceptrons as plain dicts of arrays, and sampling under an action mask.

A network is a dict ``{"<head>/w<k>": float32 (in, out), "<head>/b<k>": float32 (out,)}``
for layers ``k = 0 .. L-1``: ReLU between layers, none after the last. The
same dict is a JAX pytree (training differentiates it with ``jax.grad``) and a
set of NumPy arrays (an ``.npz`` file holds it as it is, and agents play with
:func:`forward` in NumPy, without JAX).

    >>> import numpy as np
    >>> params = init_mlp("pi", [3, 8, 2], np.random.default_rng(0))
    >>> sorted(params)
    ['pi/b0', 'pi/b1', 'pi/w0', 'pi/w1']
    >>> forward(params, "pi", np.zeros((5, 3), np.float32)).shape
    (5, 2)

Invalid-action masking sets the logits of illegal actions to ``-inf`` before
the softmax, so an illegal action has probability exactly 0 and is never
drawn (:func:`sample_masked` draws by the Gumbel-max trick, which keeps every
``-inf`` at ``-inf``).
"""

from __future__ import annotations

import numpy as np

# A finite stand-in for -inf inside JAX losses: exp(-1e9 - max) underflows to exactly 0,
# while -inf would make 0 * -inf = nan in the entropy term.
MASKED_LOGIT = -1e9


def init_mlp(head: str, sizes: list[int], rng: np.random.Generator, last_scale: float = 1.0) -> dict:
    """Parameters of an MLP with layer widths ``sizes`` (input first, output last).

    Weights are drawn He-normal (``sqrt(2 / fan_in)``), the last layer scaled by
    ``last_scale`` (a small value starts a policy near uniform); biases are 0.
    """
    if len(sizes) < 2 or any(int(s) < 1 for s in sizes):
        raise ValueError(f"an MLP needs at least two positive layer sizes, got {sizes}")
    params = {}
    layers = len(sizes) - 1
    for k in range(layers):
        fan_in, fan_out = int(sizes[k]), int(sizes[k + 1])
        scale = np.sqrt(2.0 / fan_in) * (last_scale if k == layers - 1 else 1.0)
        params[f"{head}/w{k}"] = (rng.standard_normal((fan_in, fan_out)) * scale).astype(np.float32)
        params[f"{head}/b{k}"] = np.zeros(fan_out, np.float32)
    return params


def num_layers(params: dict, head: str) -> int:
    """Number of layers of ``head`` in ``params``."""
    count = 0
    while f"{head}/w{count}" in params:
        count += 1
    if count == 0:
        raise ValueError(f"the network has no layers named {head!r}; it holds {sorted(params)}")
    return count


def layer_sizes(params: dict, head: str) -> list[int]:
    """Widths ``[input, hidden..., output]`` of ``head``."""
    layers = num_layers(params, head)
    return [int(params[f"{head}/w0"].shape[0])] + [int(params[f"{head}/w{k}"].shape[1]) for k in range(layers)]


def forward(params: dict, head: str, x, xp=np):
    """Output ``(batch, out)`` of ``head`` on inputs ``x`` ``(batch, in)``; ``xp`` is ``numpy`` or ``jax.numpy``."""
    layers = num_layers(params, head)
    h = x
    for k in range(layers):
        h = h @ params[f"{head}/w{k}"] + params[f"{head}/b{k}"]
        if k < layers - 1:
            h = xp.maximum(h, 0.0)
    return h


def masked_log_softmax(logits: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Log-probabilities float64 ``(batch, actions)`` of the masked softmax: ``-inf`` at illegal actions.

    Every row of ``mask`` must hold a legal action.
    """
    if not mask.any(axis=1).all():
        raise ValueError("every row of the action mask needs at least one legal action")
    z = np.where(mask, logits.astype(np.float64), -np.inf)
    z = z - z.max(axis=1, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=1, keepdims=True))


def sample_masked(logits: np.ndarray, mask: np.ndarray, rng: np.random.Generator, greedy: bool = False):
    """Actions int64 ``(batch,)`` drawn from the masked softmax, and their log-probabilities float64 ``(batch,)``.

    ``greedy`` takes the most probable legal action instead (the first on ties).
    An illegal action is never returned: its log-probability is ``-inf``.
    """
    logp = masked_log_softmax(logits, mask)
    if greedy:
        actions = np.argmax(logp, axis=1)
    else:
        actions = np.argmax(logp + rng.gumbel(size=logp.shape), axis=1)
    return actions.astype(np.int64), logp[np.arange(len(actions)), actions]


def policy_input(tensors: np.ndarray, players: np.ndarray, num_players: int) -> np.ndarray:
    """Network input float32 ``(batch, size + num_players)``: the tensor, then the seat one-hot.

    A game of one player adds nothing (``(batch, size)``). The seat lets one
    shared network play every seat of a multi-player game.

    >>> policy_input(np.ones((2, 3), np.float32), np.array([0, 1]), 2).tolist()
    [[1.0, 1.0, 1.0, 1.0, 0.0], [1.0, 1.0, 1.0, 0.0, 1.0]]
    """
    tensors = np.asarray(tensors, np.float32)
    if num_players == 1:
        return tensors
    seats = np.zeros((tensors.shape[0], num_players), np.float32)
    seats[np.arange(tensors.shape[0]), np.asarray(players)] = 1.0
    return np.concatenate([tensors, seats], axis=1)
