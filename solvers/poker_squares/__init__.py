"""Poker Squares agents (registered with ``gamut.solvers.bots`` by ``gamut.solvers.poker_squares.agents``)."""
