"""Speed measurements: each times a baseline beside our kernels in the same run."""
