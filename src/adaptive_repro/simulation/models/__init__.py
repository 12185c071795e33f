"""Correlated-record data models beyond the batch chain (docs/METHODS.md §4b), one module each: ``regimes``,
``households`` and ``attribute_chains``. The contract is :class:`adaptive_repro.simulation.data_models.DataModel`;
they are registered in :data:`adaptive_repro.simulation.registries.DATA_MODELS`."""
