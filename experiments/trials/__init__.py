"""The registered experiments, one module each (see ``gamut.experiments.experiment`` for the interface)."""
