"""Palace Poker agents: the threshold heuristic and its bot (``heuristic``), ISMCTS with Numba
play-outs (``search``), matches with rotating seats and common random deals (``match``), and
the table that registers them (``agents``)."""
