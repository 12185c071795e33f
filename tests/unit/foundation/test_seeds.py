"""Same config and seed: same numbers, whatever the chunking of replicates into jobs."""
import numpy as np
import pandas as pd

from adaptive_repro.foundation import seeds
from adaptive_repro.pipeline.validation import experiment_spec
from adaptive_repro.simulation.experiments import chunk_replicates, run_replicates


def spec(engine):
    return experiment_spec("dwork-signal", dict(n=200, d=150, replicates=7, k_grid=[0, 5, 10, 30],
                                                mechanisms=["standard", "dwork_code"], signal_attributes=5), engine)


def test_streams_depend_on_names_not_on_order():
    a = seeds.rng(7, "dwork-null", 3, "data").standard_normal(4)
    seeds.rng(7, "dwork-null", 2, "data").standard_normal(100)
    b = seeds.rng(7, "dwork-null", 3, "data").standard_normal(4)
    c = seeds.rng(7, "dwork-null", 4, "data").standard_normal(4)
    d = seeds.rng(8, "dwork-null", 3, "data").standard_normal(4)
    np.testing.assert_array_equal(a, b)
    assert not np.allclose(a, c) and not np.allclose(a, d)


def test_records_do_not_depend_on_chunking():
    for engine in ("direct", "fast"):
        s = spec(engine)
        whole = run_replicates(s, 11, range(s.replicates))
        for per_job in (1, 3, 7):
            parts = [run_replicates(s, 11, chunk) for chunk in reversed(chunk_replicates(s.replicates, per_job))]
            chunked = pd.concat(parts).sort_values(["replicate"], kind="stable").reset_index(drop=True)
            pd.testing.assert_frame_equal(whole, chunked)


def test_chunks_cover_every_replicate_once():
    chunks = chunk_replicates(10, 4)
    assert [list(c) for c in chunks] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
