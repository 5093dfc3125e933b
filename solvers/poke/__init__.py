"""Poke agents: the threshold heuristic, ISMCTS leaf play-outs, exact CFR+ and abstracted MCCFR, matches."""
