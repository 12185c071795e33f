"""Compatibility re-exports for ``workflow/scripts/zhao_theory.py`` (until it calls ``catalogue.build``).

The Zhao theory builders live in :mod:`adaptive_repro.outputs.zhao_quilts` (zhao-fig1, zhao-bdp-conversion),
:mod:`adaptive_repro.outputs.zhao_sample_complexity` and :mod:`adaptive_repro.outputs.zhao_maxinfo`.
"""

from adaptive_repro.outputs.zhao_maxinfo import maxinfo_claims, maxinfo_figure, maxinfo_table  # noqa: F401
from adaptive_repro.outputs.zhao_quilts import (conversion_claims, conversion_curves, conversion_figure,  # noqa: F401
                                                conversion_table, fig1_claims, fig1_figure, fig1_table,
                                                with_defaults)
from adaptive_repro.outputs.zhao_sample_complexity import (sample_complexity_claims,  # noqa: F401
                                                           sample_complexity_figure, sample_complexity_table)
