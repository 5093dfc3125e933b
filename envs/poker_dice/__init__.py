"""Poker dice: scorecard variants as data and their scoring kernels."""
