"""The claims registry rendered into REPRODUCTION.md."""
import numpy as np
import pandas as pd
import pytest

from adaptive_repro.foundation.registry import (
    Claim,
    check_grid,
    code_name,
    read_claims,
    render_reproduction,
    run_header,
    verdict,
    write_claims,
)

ROW = dict(output_id="x", claim_id="c", source="s", claim="claim", expected="e", measured="m")


def test_status_must_be_known():
    with pytest.raises(ValueError, match="status"):
        Claim(**ROW, status="maybe", kind="paper")


@pytest.mark.parametrize("kind", ["folklore", ""])
def test_kind_must_be_known_and_given(kind):
    with pytest.raises(ValueError, match="kind"):
        Claim(**ROW, status="holds", kind=kind)
    with pytest.raises(ValueError, match="kind"):
        Claim(**ROW, status="holds")  # no kind: refused


@pytest.mark.parametrize("strength", ["identity", "by construction"])
def test_an_untested_row_names_what_decides_it(strength):
    """A row that cannot fail says why, so its label is checked rather than typed: 'identity: <the inequality>'."""
    with pytest.raises(ValueError, match=f"a '{strength}' row names what makes it so"):
        Claim(**ROW, status="holds", kind="project", strength=strength)
    why = dict(ROW, measured=f"holds at 3/3 points; {strength}: 1 - e^-eps <= eps for every eps")
    assert Claim(**why, status="holds", kind="project", strength=strength).strength == strength
    assert Claim(**ROW, status="holds", kind="project").strength == "tested"  # a tested row needs no reason


def test_code_name_is_where_the_function_is_defined():
    assert code_name(check_grid) == "adaptive_repro.foundation.registry.check_grid"


def test_run_header_knows_no_paper():
    cfg = {"seed": 1, "engine": "auto", "experiments": {"e": {"n": 10, "d": 5, "replicates": 2}}}
    text = run_header(cfg, ["e", "t"])
    assert "seed = 1" in text and "`e`: n = 10, d = 5, 2 replicates" in text and "\n\n" not in text
    assert run_header(cfg, ["e"], ["A note."]).endswith("\n\nA note.")


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
    claims = [Claim(output_id="he-kl", claim_id="a", source="He, Lemma 5", claim="A | B", expected="x", measured="y",
                    status="holds", kind="paper", quote="tighter"),
              Claim(output_id="he-kl", claim_id="b", source="He, Lemma 5", claim="C", expected="x", measured="y",
                    status="does not hold", counterexample="eps = 3", kind="project")]
    write_claims(claims, tmp_path / "he-kl.csv")
    frame = read_claims([tmp_path / "he-kl.csv"])
    assert list(frame["status"]) == ["holds", "does not hold"]
    text = render_reproduction(frame, {"he-kl": ["tables/he-kl.csv"], "other": []})
    assert "A \\| B" in text and "eps = 3" in text and "paper: 1 holds · project: 1 does not hold" in text
    assert "Paper claims (1): 1 holds" in text and "Project questions (1" in text
    assert "“tighter”" in text
    assert "`other`" in text  # every output that exists gets a row


def test_duplicate_claim_ids_rejected(tmp_path):
    c = Claim(output_id="he-kl", claim_id="a", source="s", claim="c", expected="e", measured="m", status="holds",
              kind="project")
    with pytest.raises(ValueError, match="duplicate"):
        write_claims([c, c], tmp_path / "x.csv")


def test_reproduction_opens_with_the_failing_paper_claims_linked_to_their_rows():
    import pandas as pd

    from adaptive_repro.foundation.registry import COLUMNS, claim_anchor, render_reproduction

    rows = [dict.fromkeys(COLUMNS, "") | {"output_id": "he-kl", "claim_id": cid, "kind": kind, "status": status,
                                          "claim": f"claim {cid}"}
            for cid, kind, status in (("a", "paper", "does not hold"), ("b", "project", "does not hold"),
                                      ("c", "paper", "holds"), ("d", "paper", "differs"))]
    md = render_reproduction(pd.DataFrame(rows), {"he-kl": []})
    head = md[:md.index("| output |")]
    listed = [line for line in head.splitlines() if line.startswith("- [")]
    assert [line.split("`")[3] for line in listed] == ["a", "d"]  # paper rows that fail, in order; not b, not c
    assert f"(#{claim_anchor('he-kl', 'a')})" in listed[0]
    assert f'<a id="{claim_anchor("he-kl", "a")}"></a>' in md[md.index("## `he-kl`"):]


@pytest.mark.parametrize("strength", ["weak", ""])
def test_strength_must_be_known(strength):
    with pytest.raises(ValueError, match="strength"):
        Claim(**ROW, status="holds", kind="project", strength=strength)


def test_strength_is_independent_of_the_verdict():
    """An identity or a check true by construction may decide either way (algebra can also settle a failure)."""
    for status in ("holds", "does not hold", "not checked"):
        row = dict(ROW, measured="identity: 9 eps < 13 eps for every eps > 0")
        assert Claim(**row, status=status, kind="project", strength="identity").strength == "identity"


@pytest.mark.parametrize("kind", ["paper", "slip"])
def test_paper_and_slip_rows_quote_the_paper(kind):
    with pytest.raises(ValueError, match="quotes"):
        Claim(**ROW, status="holds", kind=kind)
    assert Claim(**ROW, status="holds", kind=kind, quote="words").quote == "words"


def test_reproduction_counts_tested_rows_apart_from_identities_and_slips_apart_from_claims():
    from adaptive_repro.foundation.registry import COLUMNS

    spec = [("a", "paper", "holds", "tested"), ("b", "paper", "holds", "identity"),
            ("c", "paper", "does not hold", "tested"), ("d", "paper", "holds", "by construction"),
            ("e", "slip", "does not hold", "tested"), ("f", "project", "holds", "tested"),
            ("g", "paper", "not applicable", "tested")]
    rows = [dict.fromkeys(COLUMNS, "") | {"output_id": "he-kl", "claim_id": cid, "kind": kind, "status": status,
                                          "strength": strength, "claim": f"claim {cid}"}
            for cid, kind, status, strength in spec]
    md = render_reproduction(pd.DataFrame(rows), {"he-kl": []})
    assert "Paper claims (5): 3 holds, 1 does not hold, 1 not applicable. Of the 4 decided rows, 2 are tested " \
           "checks that could have come out the other way (1 holds, 1 does not hold) and 2 are not evidence of that " \
           "kind: decided by algebra or by construction, or never turned at any valid configuration tried (1 " \
           "identity, 1 by construction)." in md
    assert "Slips in the papers' text (1;" in md and "): 1 does not hold." in md
    assert "Project questions (1;" in md
    head = md[:md.index("| output |")]
    assert [line.split("`")[3] for line in head.splitlines() if line.startswith("- [")] == ["c"]  # not the slip
    assert "| **holds** | identity |" in md  # the strength column of the row
    assert "paper: 3 holds, 1 does not hold, 1 not applicable · slip: 1 does not hold · project: 1 holds" in md
    assert "*not applicable*: the statement's hypotheses are not met" in md  # the legend


@pytest.mark.parametrize("measured", ["ratio inf at eps = 1e-300", "lemma5 = nan", "gap -inf"])
def test_a_row_decided_from_a_non_finite_value_is_not_checked(measured):
    from adaptive_repro.foundation.registry import Claim

    row = Claim(output_id="he-kl", claim_id="x", source="s", claim="c", expected="e", measured=measured,
                status="holds", kind="project")
    assert row.status == "not checked" and "numerical failure" in row.measured
    fine = Claim(output_id="he-kl", claim_id="x", source="s", claim="c", expected="e", measured="infeasible; 1e-300",
                 status="holds", kind="project")
    assert fine.status == "holds"


def test_verdicts_refuse_an_id_the_builder_did_not_make():
    """Figures read claims through Verdicts: a renamed or missing ID is an error naming it, never a silent None."""
    from adaptive_repro.foundation.registry import Verdicts

    made = Claim(output_id="x", claim_id="standard-overfits", source="s", claim="c", expected="e", measured="m",
                 status="reproduced", kind="project")
    verdicts = Verdicts([made])
    assert verdicts["standard-overfits"] is made and "standard-overfits" in verdicts and len(verdicts) == 1
    with pytest.raises(KeyError, match=r"no claim 'standard-overfit' among this output's claims "
                                       r"\['standard-overfits'\]"):
        verdicts["standard-overfit"]
