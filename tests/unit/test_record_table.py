"""RecordTable writes, without pandas, the CSV pandas writes for the same rows: on edge cases of pandas' type inference
and on one replicate of every experiment of config.yaml (the records and diagnostics a simulation job writes)."""
from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
import pytest
import yaml

from adaptive_repro import validation
from adaptive_repro.record_table import RecordTable
from adaptive_repro.simulation.specs import expand_experiments

EDGE_COLUMNS = {
    "ints": [1, 2, np.int64(3)],
    "ints_with_missing": [1, None, 3],
    "ints_and_floats": [1, 2.5, np.int32(7)],
    "floats_with_nan": [0.1 + 0.2, float("nan"), np.float64(1e-05)],
    "float_ranges": [1e16, 123456789.123, -0.0],
    "tiny_and_infinite": [1.5e-07, float("inf"), 9999999999999998.0],
    "bools": [True, np.True_, False],
    "bools_with_missing": [True, None, False],
    "text_to_quote": ['a,b', 'say "hi"', "plain"],
    "text_with_missing": ["x", None, "z"],
    "all_missing": [None, None, None],
    "mixed_kinds": [1, "one", 1.5],
}


@pytest.mark.parametrize("name", list(EDGE_COLUMNS))
def test_edge_columns_are_written_as_pandas_writes_them(name):
    values = EDGE_COLUMNS[name]
    table = RecordTable(("label", name), [(f"row {i}", v) for i, v in enumerate(values)])
    assert table.csv_text() == table.to_frame().to_csv(index=False)


def test_empty_table_and_dict_rows():
    empty = RecordTable(("experiment", "replicate"), [])
    assert empty.csv_text() == empty.to_frame().to_csv(index=False) == "experiment,replicate\n"
    table = RecordTable.from_dicts(("a", "b", "c"), [{"a": 1, "b": 0.5}, {"a": 2, "c": True}])
    assert table.rows == [(1, 0.5, None), (2, None, True)]
    assert table.csv_text() == table.to_frame().to_csv(index=False)
    with pytest.raises(ValueError, match="not columns"):
        RecordTable.from_dicts(("a",), [{"b": 1}])
    with pytest.raises(ValueError, match="every row must have 2 values"):
        RecordTable(("a", "b"), [(1,)])


def test_concat_keeps_order_and_checks_columns():
    a, b = RecordTable(("x",), [(1,)]), RecordTable(("x",), [(2.5,)])
    both = RecordTable.concat(("x",), [a, b]).with_column("tag", "t")
    assert both.rows == [(1, "t"), (2.5, "t")] and both.csv_text() == "x,tag\n1.0,t\n2.5,t\n"
    with pytest.raises(ValueError, match="differ"):
        RecordTable.concat(("y",), [a])


@functools.cache
def _default_specs() -> dict:
    config = yaml.safe_load((Path(__file__).resolve().parents[2] / "config.yaml").read_text())
    return expand_experiments(validation.validated(config))


@pytest.mark.parametrize("name", sorted(_default_specs()))
def test_every_experiment_writes_what_pandas_writes(name):
    spec = _default_specs()[name]
    records, diagnostics = spec.simulate_tables(7, [0])
    assert len(records)
    for table in (records.with_column("spec_digest", "0123456789ab"), diagnostics):
        assert table.csv_text() == table.to_frame().to_csv(index=False)


def test_a_simulation_job_does_not_load_pandas(tmp_path):
    """What simulate_chunk.py runs (simulate, add the digest column, write with a sidecar) leaves pandas unloaded."""
    import pickle
    import subprocess
    import sys

    spec_file = tmp_path / "spec.pickle"
    spec_file.write_bytes(pickle.dumps(_default_specs()["zhao-thm2-check"]))
    code = (f"import pickle, sys\nspec = pickle.loads(open({str(spec_file)!r}, 'rb').read())\n"
            "from adaptive_repro.io import write_verified_csv\n"
            "records, _ = spec.simulate_tables(1, [0])\n"
            f"write_verified_csv(records.with_column('spec_digest', 'x'), {str(tmp_path / 'r.csv')!r}, {{}})\n"
            "print('pandas' in sys.modules)")
    src = str(Path(__file__).resolve().parents[2] / "src")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          env={"PYTHONPATH": src, "PATH": "/usr/bin:/bin"})
    assert done.stdout.strip() == "False"
    assert (tmp_path / "r.csv").read_text().startswith("experiment,replicate,")
