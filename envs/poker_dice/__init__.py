"""Poker dice: scorecard variants as data, scoring and turn kernels, the observation
encoder, the pyspiel game and its batched environment."""
