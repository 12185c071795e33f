"""Simulation layer: data models, the analyst, holdout mechanisms, engines and the replicate runner."""
