"""zhao-correlation: one classifier experiment per correlation structure and strength (docs/METHODS.md §4b), run as
one spec so that a replicate runs every point (a few jobs for the whole grid, not one per point).

Each point is an :class:`ExperimentSpec` named ``zhao-correlation@<model>:<key>=<value>,...``; its records carry
that name in ``experiment`` and have random streams of their own, so adding a point never changes another's numbers.
"""

from __future__ import annotations

import dataclasses
from typing import Callable

import pandas as pd

from adaptive_repro.simulation.experiments import ExperimentSpec, run_replicate


@dataclasses.dataclass(frozen=True)
class CorrelationSpec:
    """The resolved ``experiments.zhao-correlation`` block: its points (one experiment spec per model block)."""

    name: str
    replicates: int
    points: tuple[ExperimentSpec, ...]

    # the attributes the workflow reads from every experiment spec
    @property
    def n(self) -> int:
        return max(p.n for p in self.points)

    @property
    def d(self) -> int:
        return max(p.d for p in self.points)

    @property
    def k_grid(self) -> tuple[int, ...]:
        return self.points[0].k_grid

    @property
    def mechanisms(self) -> tuple[str, ...]:
        return self.points[0].mechanisms

    def arm_engines(self) -> dict[str, str]:
        return {f"{p.name}/{arm}": engine for p in self.points for arm, engine in p.arm_engines().items()}

    def alg1_calibrations(self) -> dict:
        return {}

    def record_experiments(self) -> tuple[str, ...]:
        """One ``experiment`` value per point."""
        return tuple(p.name for p in self.points)

    def plugin_modules(self) -> tuple[str, ...]:
        return tuple(sorted({m for p in self.points for m in p.plugin_modules()}))

    def run_replicates(self, seed: int, replicates, progress: Callable[[int, int], None] | None = None,
                       with_diagnostics: bool = False):
        replicates = list(replicates)
        settings = {p.name: p.arm_settings() for p in self.points}
        frames, diags = [], []
        for i, rep in enumerate(replicates, start=1):
            for point in self.points:
                records, diagnostics = run_replicate(point, seed, rep, settings[point.name])
                frames.append(records)
                diags.append(diagnostics)
            if progress is not None:
                progress(i, len(replicates))
        records = pd.concat(frames, ignore_index=True)
        return (records, pd.concat(diags, ignore_index=True)) if with_diagnostics else records
