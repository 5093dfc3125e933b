"""Poker dice solvers: the exact solitaire DP over scorecard variants."""
