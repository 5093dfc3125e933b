"""Counterfactual regret minimization for two-player zero-sum games.

- ``extract``: walk a small pyspiel game once into flat arrays (``GameTree``).
- ``tabular``: CFR, CFR+, DCFR and linear CFR as Numba kernels on those arrays.
- ``best_response``: exact best response, policy value and exploitability.
- ``mccfr``: external- and outcome-sampling Monte Carlo CFR for games too big to
  extract, through the pyspiel API or a game's own walker.
- ``sampled_best_response``: a sampled lower bound on exploitability for those games.
- ``policy_io``: OpenSpiel ``TabularPolicy`` conversion, saved policies, the bot of
  the ``cfr-policy`` agent.
- ``checkpoint``: periodic checkpoints and exact resume of long runs.
"""
