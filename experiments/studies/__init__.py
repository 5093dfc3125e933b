"""Resumable studies of particular games that run outside the experiment runner (their own command lines)."""
