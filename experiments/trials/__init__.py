"""The registered experiments, one module each (see ``experiments.experiment`` for the interface)."""
