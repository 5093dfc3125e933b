"""Palace Poker agents: the threshold heuristic (``heuristic``, ``bots``), ISMCTS with Numba
play-outs (``search``), matches with rotating seats and common random deals (``match``), and
their registration (``agents``)."""
