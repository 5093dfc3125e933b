"""Neural agents trained through the batched environments: PPO and NFSP.

- :mod:`gamut.solvers.rl.networks`: multilayer perceptrons as plain dicts of
  arrays, one forward pass for NumPy (play) and JAX (training), masked sampling.
- :mod:`gamut.solvers.rl.rollout`: inputs of the networks and the per-player
  credit of a batch of self-play transitions.
- :mod:`gamut.solvers.rl.ppo`: proximal policy optimisation with invalid-action
  masking, one player or shared-policy self-play.
- :mod:`gamut.solvers.rl.nfsp`: neural fictitious self-play for two-player
  zero-sum games.
- :mod:`gamut.solvers.rl.evaluation`: batched play against random seats,
  paired matches, exact exploitability of a network policy.
- :mod:`gamut.solvers.rl.checkpoint`: hashed checkpoints and weights files.
- :mod:`gamut.solvers.rl.training`: the training loop behind ``gamut train``.
- :mod:`gamut.solvers.rl.neural_bot`: the bot of the ``ppo`` and ``nfsp`` agents.
- :mod:`gamut.solvers.rl.shipped`: their shipped weights and the variants they serve.

Training needs the optional extra ``train`` (JAX and optax, CPU-only); playing
a trained agent needs only NumPy.
"""
