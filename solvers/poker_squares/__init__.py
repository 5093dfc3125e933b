"""Poker Squares agents (registered with ``solvers.bots`` by ``solvers.poker_squares.agents``)."""
