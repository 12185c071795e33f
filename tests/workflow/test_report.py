"""The HTML report (`snakemake --report results/report.html`): every figure and table, with its caption, by paper.

Snakemake 9 writes a self-contained HTML file whose script holds two JSON objects: `var results = {path: {name,
caption (HTML), labels, data_uri, ...}}` and `var categories = {category: {subcategory: [path, ...]}}`.
"""
import json
import re
import warnings
from pathlib import Path

import pytest
import yaml

from conftest import ROOT, copy_workflow, snakemake, tiny_config
from adaptive_repro import catalogue

REPORT_DIR = ROOT / "workflow" / "report"
PAPERS = catalogue.PAPERS


def catalogue_ids():
    return list(catalogue.OUTPUT_IDS)


def shipped_outputs():
    """Catalogue IDs that a shipped config builds (config.yaml, config/*.yaml, tests/configs/*.yaml)."""
    configs = [ROOT / "config.yaml", *(ROOT / "config").glob("*.yaml"), *(ROOT / "tests" / "configs").glob("*.yaml")]
    return sorted({oid for path in configs for oid in (yaml.safe_load(path.read_text()) or {}).get("outputs", [])})


def test_every_output_of_a_shipped_config_has_a_caption():
    ids = shipped_outputs()
    assert "dwork-null" in ids
    missing = [f"workflow/report/{oid}.rst" for oid in ids if not (REPORT_DIR / f"{oid}.rst").is_file()]
    assert not missing, f"report captions missing (what the paper claims, what this run shows): {missing}"
    assert (REPORT_DIR / "workflow.rst").is_file()


def test_every_catalogue_id_has_a_paper_category_and_a_caption():
    for entry in catalogue.CATALOGUE:
        assert entry.category in PAPERS.values() and (REPORT_DIR / f"{entry.id}.rst").is_file(), entry


def render_caption(path: Path, config: dict) -> tuple[str, str]:
    """Render a caption as Snakemake's report does (Jinja, then reStructuredText): (HTML body, docutils messages)."""
    import io
    from types import SimpleNamespace

    from docutils.core import publish_parts
    from jinja2 import Environment

    # the link targets Snakemake appends to every caption
    links = "\n\n" + "\n".join(f".. _{name}: javascript:void(0)"
                                 for name in ["Workflow", "Statistics", "Claims", "Other", *PAPERS.values()])
    snakemake = SimpleNamespace(config=config, wildcards={}, params={}, input=[], output=[], log=[], rule="",
                                threads=1, resources={})
    text = Environment(trim_blocks=True, lstrip_blocks=True).from_string(path.read_text() + links).render(
        snakemake=snakemake, categories={}, files=[])
    messages = io.StringIO()
    with warnings.catch_warnings():  # docutils 0.22 deprecates writer_name (Snakemake's report uses it too)
        warnings.simplefilter("ignore", PendingDeprecationWarning)
        html = publish_parts(text, writer_name="html", settings_overrides={"warning_stream": messages})["body"]
    return html, messages.getvalue()


@pytest.mark.parametrize("caption", sorted(p.name for p in REPORT_DIR.glob("*.rst")))
def test_caption_renders_with_the_default_config(caption):
    config = yaml.safe_load((ROOT / "config.yaml").read_text())
    html, messages = render_caption(REPORT_DIR / caption, config)
    assert not messages, f"workflow/report/{caption} does not render cleanly:\n{messages}"
    assert html.strip()


def report_data(html: str):
    def js_object(name):
        match = re.search(rf"^\s*var {name} = (\{{.*\}});\s*$", html, re.M)
        assert match, f"no `var {name} = {{...}}` in the report: has Snakemake's report layout changed?"
        return json.loads(match.group(1))

    return js_object("results"), js_object("categories")


@pytest.mark.slow
def test_report_has_every_figure_and_table_with_its_caption(tmp_path):
    workdir = copy_workflow(tmp_path / "repo")
    proc = snakemake(workdir, "--configfile", "tests/configs/tiny.yaml")
    assert proc.returncode == 0, proc.stderr[-5000:]
    # as `make report` does: captioned from the config the run recorded, whatever config.yaml says now
    proc = snakemake(workdir, "--configfile", "results/run-config.yaml", "--report", "results/report.html")
    assert proc.returncode == 0, proc.stderr[-5000:]
    assert "(ERROR/" not in proc.stderr and "(SEVERE/" not in proc.stderr, \
        f"a caption does not render as reStructuredText:\n{proc.stderr[-5000:]}"

    html = (workdir / "results" / "report.html").read_text()
    results, categories = report_data(html)

    produced = sorted(str(p.relative_to(workdir)) for sub in ("figures", "tables")
                      for p in (workdir / "results" / sub).iterdir() if p.is_file())
    assert produced
    missing = [p for p in produced if p not in results]
    assert not missing, f"produced but not in the report: {missing}"

    for path, entry in results.items():
        assert entry["data_uri"].startswith("data:"), f"{path} is not embedded"
        caption = entry["caption"]
        assert caption.strip(), f"{path} has no caption"
        assert "system-message" not in caption and "No caption" not in caption, f"{path}: {caption[:500]}"

    # grouped by paper; each output's files (table, figures, claims) in its own subcategory
    for oid in tiny_config()["outputs"]:
        category = catalogue.get(oid).category
        assert set(categories[category][oid]) >= {f"results/tables/{oid}.csv", f"results/figures/{oid}.pdf",
                                                   f"results/figures/{oid}.png"}
    # the captions show this run's parameters (Jinja on snakemake.config)
    cfg = tiny_config()["experiments"]["dwork-null"]
    caption = results["results/figures/dwork-null.png"]["caption"]
    assert f"n = {cfg['n']} records" in caption and f"{cfg['replicates']} replicates" in caption
    default_n = yaml.safe_load((ROOT / "config.yaml").read_text())["experiments"]["dwork-null"]["n"]
    assert f"n = {default_n} records" not in caption  # never the current config.yaml's numbers
    assert "Figure 1" in caption and "Figure 2" in results["results/figures/dwork-signal.png"]["caption"]
