"""Algorithms over OpenSpiel games, with fast paths that call the games' kernels."""
