"""The claims registry rendered into REPRODUCTION.md."""
import numpy as np
import pandas as pd
import pytest

from adaptive_repro.registry import Claim, check_grid, read_claims, render_reproduction, verdict, write_claims


def test_status_must_be_known():
    with pytest.raises(ValueError, match="status"):
        Claim("x", "c", "s", "claim", "e", "m", "maybe")


def test_kind_must_be_known():
    with pytest.raises(ValueError, match="kind"):
        Claim("x", "c", "s", "claim", "e", "m", "holds", kind="folklore")


def test_verdict_words():
    assert verdict(True) == "reproduced" and verdict(False) == "differs"
    assert verdict(True, "statement") == "holds" and verdict(False, "statement") == "does not hold"


def test_grid_check_on_zero_points_is_not_checked():
    check = check_grid(np.array([], dtype=bool))
    assert check.status == "not checked" and check.measured == "no grid point in range"


def test_grid_check_names_first_failure():
    points = pd.DataFrame({"eps": [0.1, 0.5, 2.0], "T": [1, 2, 3]})
    check = check_grid([True, False, False], points, ["eps", "T"])
    assert check.status == "does not hold" and check.counterexample == "eps=0.5, T=2"
    assert check.measured == "holds at 1/3 grid points"
    assert check_grid([True, True]).status == "holds"


def test_roundtrip_and_render(tmp_path):
    claims = [Claim("he-kl", "a", "He, Lemma 5", "A | B", "x", "y", "holds", kind="paper", quote="tighter"),
              Claim("he-kl", "b", "He, Lemma 5", "C", "x", "y", "does not hold", "eps = 3", kind="project")]
    write_claims(claims, tmp_path / "he-kl.csv")
    frame = read_claims([tmp_path / "he-kl.csv"])
    assert list(frame["status"]) == ["holds", "does not hold"]
    text = render_reproduction(frame, {"he-kl": ["tables/he-kl.csv"], "other": []})
    assert "A \\| B" in text and "eps = 3" in text and "1 holds, 1 does not hold" in text
    assert "Paper claims (1): 1 holds" in text and "Project questions (1" in text
    assert "“tighter”" in text
    assert "`other`" in text  # every output that exists gets a row


def test_duplicate_claim_ids_rejected(tmp_path):
    c = Claim("he-kl", "a", "s", "c", "e", "m", "holds")
    with pytest.raises(ValueError, match="duplicate"):
        write_claims([c, c], tmp_path / "x.csv")
