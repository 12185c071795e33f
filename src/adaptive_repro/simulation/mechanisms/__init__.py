"""Holdout mechanisms: how the analyst's queries to the holdout are answered (one module per mechanism).

The contract is :class:`adaptive_repro.simulation.arm.Arm` (what the config names, what figures and
claims call it) and :class:`~adaptive_repro.simulation.mechanisms.base.HoldoutMechanism` (the object that answers
one replicate's queries). The registry of arms is :data:`adaptive_repro.simulation.registries.ARMS`.
"""
