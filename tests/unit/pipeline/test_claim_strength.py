"""Each theory row's strength label agrees with its measurement (``python -m adaptive_repro.pipeline.strength``,
tables in ``strength/``): a row whose verdict changed at some valid configuration is labelled ``tested``; a row whose
verdict never changed is labelled ``identity`` or ``by construction`` (and the Claim class demands the reason in its
text). The named points are re-checked here: rebuilt at the stored point, the row gives the stored verdict, so a
table that no longer matches the code fails. (Experiment rows: test_claim_strength_experiments.)"""

from __future__ import annotations

import functools

import pandas as pd
import pytest
import yaml
from conftest import ROOT

from adaptive_repro.pipeline import catalogue, schema_points, strength, strength_table
from adaptive_repro.pipeline.catalogue import default_params

THEORY = catalogue.THEORY_OUTPUTS


@functools.cache
def table(oid: str) -> pd.DataFrame:
    return strength.read_table(strength.table_path(oid, ROOT))


def _claims(oid: str, block: dict, seed: int) -> dict:
    import matplotlib.pyplot as plt

    params = default_params(oid, block, seed=seed)
    _, fig, claims = catalogue.build(oid, params, {})
    plt.close(fig)
    return {c.claim_id: c for c in claims}


def test_the_reference_seed_is_the_default_configs():
    config = yaml.safe_load((ROOT / "config.yaml").read_text(encoding="utf-8"))
    assert strength.REFERENCE_SEED == config["seed"]


@pytest.mark.parametrize("oid", THEORY)
def test_every_theory_output_has_a_measured_table(oid):
    t = table(oid)
    assert list(t.columns) == list(strength.COLUMNS)
    assert len(t) and (t["output_id"] == oid).all()
    assert set(t["verdict_changes"]) <= {"yes", "no"}
    measured = t[t["points"].astype(int) > 0]  # a row decided only where its hypotheses hold may have few
    assert (measured["points"].astype(int) >= 3).all(), f"{oid}: rows measured at fewer than 3 points"


@pytest.mark.parametrize("oid", THEORY)
def test_labels_agree_with_the_measurement(oid):
    """Built at the fast settings (the labels are the code's, whatever the point): a row the code calls an identity
    or true by construction never changed verdict at any valid point (the converse of a tested row), and the build
    labels each measured row as the table says."""
    claims = _claims(oid, strength.FAST_SETTINGS[oid], strength.REFERENCE_SEED)
    rows = table(oid).set_index("claim_id")
    measured = [c for cid, c in claims.items() if cid in rows.index and int(rows.loc[cid, "points"]) > 0]
    wrong = [f"{c.claim_id}: labelled {c.strength!r}, yet {strength_table.evidence(rows.loc[c.claim_id])}"
             for c in measured if c.strength != "tested" and rows.loc[c.claim_id, "verdict_changes"] == "yes"]
    assert not wrong, f"{oid}: {wrong}"
    built = {c.claim_id: c for c in strength_table.apply_measured(measured, table(oid), "theory")}
    for cid, c in built.items():
        changes = rows.loc[cid, "verdict_changes"] == "yes"
        assert (c.strength == "tested") == changes, (cid, c.strength)
        assert c.strength_evidence.startswith("measured:"), (cid, c.strength_evidence)


@pytest.mark.slow
@pytest.mark.parametrize("oid", THEORY)
def test_each_named_point_gives_the_named_verdict(oid):
    """Rebuilt at a tested row's stored point, the row has the stored verdict (the table is the code's)."""
    t = table(oid)
    flips = t[t["verdict_changes"] == "yes"]
    wrong = []
    for stored, rows in flips.groupby("example_point"):
        block, seed = strength.point_block(oid, stored)
        got = _claims(oid, block, seed)
        for r in rows.itertuples():
            status = got[r.claim_id].status if r.claim_id in got else "(no row)"
            if status != r.example_status:
                wrong.append(f"{r.claim_id} at {strength.format_point(stored)}: {status}, table says "
                             f"{r.example_status}")
    assert not wrong, f"{oid}: {wrong}"


def test_the_drawn_points_are_valid_and_reach_the_edges():
    """The sampler draws values the schema allows (the config check accepts most points) and reaches a range's
    edges: he-kl's eps_min gets its minimum 1e-150 among 400 draws."""
    import numpy as np

    rng = np.random.default_rng(0)
    seen = [strength.draw_block("he-kl", rng)["eps_min"] for _ in range(400)]
    assert min(seen) == 1e-150 and max(seen) > 1.0
    schema, root = catalogue.output_schema("he-composition-eps")
    draws = [schema_points.draw_value(schema["properties"]["T"], root, rng, 10) for _ in range(200)]
    assert all(1 <= len(d) <= 3 and d == sorted(set(d)) and all(1 <= x <= 1_000_000 for x in d) for d in draws)


def test_no_valid_point_crashed_a_build():
    """Across the measurement's valid points (edges and random draws of every theory output's schema), every build
    finished: a schema-valid value either builds or is refused by the config check in one line."""
    summary = strength.read_table(ROOT / strength.STRENGTH_DIR / strength.SUMMARY_FILE).set_index("output_id")
    assert set(summary.index) == set(THEORY)
    assert (summary["built"].astype(int) >= 21).all()
    crashed = summary[summary["crashed"].astype(int) > 0]
    assert crashed.empty, f"valid points crashed builds: {crashed['crashed'].to_dict()}"
