"""Reproduction pipeline for adaptive data analysis under (Bayesian) differential privacy.

Pure functions grouped by concept; the Snakemake rules in ``workflow/`` only wire files to them.
"""

__version__ = "0.1.0"
