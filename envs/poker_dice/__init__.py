"""Poker dice: scorecard variants as data, scoring and turn kernels, the pyspiel game."""
