"""Experiment configs, the runner and its backends, the results store and the ``gamut`` CLI."""
