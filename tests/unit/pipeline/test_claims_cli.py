"""`python -m adaptive_repro.pipeline.claims show`: a claim in full, and re-evaluated at a point the user gives."""
import pytest
import yaml
from conftest import ROOT

from adaptive_repro.foundation.registry import claims_frame
from adaptive_repro.pipeline import catalogue, claims, validation
from adaptive_repro.pipeline.catalogue import output_params
from adaptive_repro.report.plotting import pyplot


def make_run(tmp_path, points):
    cfg = yaml.safe_load((ROOT / "config.yaml").read_text())
    cfg["outputs"] = ["he-kl"]
    cfg.setdefault("theory", {})["he"] = {"kl": {"eps_min": 0.01, "eps_max": 5.0, "points": points}}
    resolved = validation.validated(cfg)
    (tmp_path / "run-config.yaml").write_text(yaml.safe_dump(resolved))
    _, fig, rows = catalogue.build("he-kl", output_params(resolved, "he-kl"), {})
    pyplot().close(fig)
    (tmp_path / "tables").mkdir()
    claims_frame(rows).to_csv(tmp_path / "tables" / "claims.csv", index=False)
    return rows


def test_show_prints_quote_status_and_code_location(tmp_path, capsys):
    rows = make_run(tmp_path, 7)
    first = rows[0]
    assert claims.main(["show", f"he-kl/{first.claim_id}", "--results", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert first.status in out and first.source in out and "defined at" in out and ".py:" in out


@pytest.mark.slow
def test_reevaluation_uses_the_given_point(tmp_path, capsys):
    rows = make_run(tmp_path, 7)
    first = rows[0]
    claims.main(["show", f"he-kl/{first.claim_id}", "--results", str(tmp_path), "--set", "points=3"])
    out = capsys.readouterr().out
    assert "Re-evaluated with points=3" in out and "/3 grid points" in out.split("Re-evaluated")[1]


@pytest.mark.slow
@pytest.mark.parametrize("key", ["theory.he.kl.points", "he.kl.points", "kl.points"])
def test_keys_may_name_the_block(tmp_path, capsys, key):
    """Keys are relative to the output's block (theory.he.kl); its path may be written in front, in full or in part."""
    rows = make_run(tmp_path, 7)
    claims.main(["show", f"he-kl/{rows[0].claim_id}", "--results", str(tmp_path), "--set", f"{key}=4"])
    assert "/4 grid points" in capsys.readouterr().out.split("Re-evaluated")[1]


def test_zhao_lemma1_keys_are_its_own_block():
    assert claims.block_key("p_grid", catalogue.get("zhao-lemma1").config_block) == "p_grid"
    assert claims.block_key("theory.zhao.lemma1.p_grid", catalogue.get("zhao-lemma1").config_block) == "p_grid"


def test_unknown_key_is_a_config_error(tmp_path):
    rows = make_run(tmp_path, 7)
    with pytest.raises(SystemExit, match="unknown config key 'kl'"):
        claims.main(["show", f"he-kl/{rows[0].claim_id}", "--results", str(tmp_path), "--set", "kl.kl.points=4"])


def test_code_location_of_a_checked_function_is_its_own_file_and_line():
    """he_corollary2_delta is wrapped by the argument checks of domain.py: the location is bounds/he.py's def line."""
    from pathlib import Path

    from adaptive_repro.pipeline.claims import code_location

    path, line = code_location("adaptive_repro.bounds.he.he_corollary2_delta").rsplit(":", 1)
    assert Path(path).name == "he.py"
    assert Path(path).read_text().splitlines()[int(line) - 1].startswith("def he_corollary2_delta")


@pytest.mark.parametrize("name, message", [("he-kl/no-such-claim", "unknown claim 'he-kl/no-such-claim'"),
                                           ("he-klx/dr-factor", "unknown output 'he-klx'")])
def test_a_misspelled_claim_or_output_is_named_as_unknown(tmp_path, name, message):
    make_run(tmp_path, 3)
    with pytest.raises(SystemExit, match=message):
        claims.main(["show", name, "--results", str(tmp_path)])


def test_repeated_set_options_add_up(tmp_path, capsys):
    """Two --set options: both changes apply (argparse's "extend"), not only the last."""
    rows = make_run(tmp_path, 7)
    claims.main(["show", f"he-kl/{rows[0].claim_id}", "--results", str(tmp_path), "--set", "points=4",
                 "--set", "eps_max=2.0"])
    out = capsys.readouterr().out
    assert "Re-evaluated with points=4, eps_max=2.0" in out or (
        "points=4" in out.split("Re-evaluated")[1] and "eps_max=2.0" in out.split("Re-evaluated")[1]), out
    assert "/4 grid points" in out.split("Re-evaluated")[1]
