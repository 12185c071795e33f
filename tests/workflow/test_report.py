"""The HTML reports: the pipeline's own `results/report.html` (rule html_report, checked in a real headless browser)
with every figure and table, its caption, by paper."""
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pandas as pd
import pytest
import yaml
from browser import dump_dom, screenshot
from conftest import ROOT, SHIPPED_CONFIGS, copy_workflow, snakemake, tiny_config

from adaptive_repro.pipeline import catalogue
from adaptive_repro.report.report_html import render_caption

REPORT_DIR = ROOT / "workflow" / "report"
PAPERS = catalogue.PAPERS


def catalogue_ids():
    return list(catalogue.OUTPUT_IDS)


def shipped_outputs():
    """Catalogue IDs that a shipped config builds (config.yaml, SHIPPED_CONFIGS, tests/configs/*.yaml)."""
    configs = [ROOT / "config.yaml", *(ROOT / "config" / name for name in SHIPPED_CONFIGS),
               *(ROOT / "tests" / "configs").glob("*.yaml")]
    return sorted({oid for path in configs for oid in (yaml.safe_load(path.read_text()) or {}).get("outputs", [])})


def test_every_output_of_a_shipped_config_has_a_caption():
    ids = shipped_outputs()
    assert "dwork-null" in ids
    missing = [f"workflow/report/{oid}.rst" for oid in ids if not (REPORT_DIR / f"{oid}.rst").is_file()]
    assert not missing, f"report captions missing (what the paper claims, what this run shows): {missing}"


def test_every_catalogue_id_has_a_paper_category_and_a_caption():
    for entry in catalogue.CATALOGUE:
        assert entry.category in PAPERS.values() and (REPORT_DIR / f"{entry.id}.rst").is_file(), entry


@pytest.mark.parametrize("on_top", [None, *SHIPPED_CONFIGS])
@pytest.mark.parametrize("caption", sorted(p.name for p in REPORT_DIR.glob("*.rst")))
def test_caption_renders_with_every_shipped_config(caption, on_top):
    """Jinja with the default config and with each shipped config merged on top, resolved as the Snakefile resolves
    it (schema defaults filled in), then reStructuredText; docutils messages raise (report_html.render_caption). A
    caption's conditional text must render either way."""
    from adaptive_repro.foundation.config import merged
    from adaptive_repro.pipeline.validation import validated

    config = yaml.safe_load((ROOT / "config.yaml").read_text())
    if on_top:
        config = merged(config, yaml.safe_load((ROOT / "config" / on_top).read_text()))
    assert render_caption((REPORT_DIR / caption).read_text(), validated(config)).strip()


CAPTION_PARTS = ("*What the paper claims.*", "*What this run shows.*", "*How to read it.*")


@pytest.mark.parametrize("output_id", catalogue_ids())
def test_every_caption_has_a_title_and_the_three_parts_in_order(output_id):
    """One structure for every output: a bold human title, then what the paper claims, what this run shows and how
    to read the figure, each part once and in that order."""
    from adaptive_repro.report.report_html import caption_title

    text = (REPORT_DIR / f"{output_id}.rst").read_text()
    title = caption_title(text, "")
    assert title and "_" not in title and "docs/" not in title, f"{output_id}: title {title!r}"
    positions = [text.find(part) for part in CAPTION_PARTS]
    missing = [part for part, at in zip(CAPTION_PARTS, positions) if at < 0]
    assert not missing, f"{output_id}: missing {missing}"
    assert positions == sorted(positions), f"{output_id}: parts out of order"
    assert all(text.count(part) == 1 for part in CAPTION_PARTS), f"{output_id}: a part twice"
    lines = text.splitlines()
    for part in CAPTION_PARTS:  # each part opens its own paragraph (a cut merge once glued one to a half word)
        at = next(i for i, line in enumerate(lines) if part in line)
        assert lines[at].startswith(part) and not lines[at - 1].strip(), f"{output_id}: {part} inside a paragraph"


def make(workdir: Path, target: str) -> subprocess.CompletedProcess:
    """Run a target of the repository's Makefile in ``workdir`` with this test's environment (no venv install)."""
    shutil.copy(ROOT / "Makefile", workdir / "Makefile")
    return subprocess.run(["make", target, f"BIN={Path(sys.executable).parent}", "STAMP=", "CORES=2"], cwd=workdir,
                          capture_output=True, text=True, timeout=600)


class _Sections(HTMLParser):
    """Collects, per output section of results/report.html, its images and claim badges."""

    def __init__(self):
        super().__init__()
        self.sections, self._current = {}, None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "section" and "output" in (attrs.get("class") or ""):
            self._current = self.sections.setdefault(attrs["id"], {"images": [], "badges": 0, "tables": 0})
        elif self._current is not None and tag == "img":
            self._current["images"].append(attrs.get("src", ""))
        elif self._current is not None and tag == "span" and "badge" in (attrs.get("class") or ""):
            self._current["badges"] += 1
        elif self._current is not None and tag == "table":
            self._current["tables"] += 1

    def handle_endtag(self, tag):
        if tag == "section":
            self._current = None


@pytest.mark.slow
def test_pipeline_report_renders_every_output_in_a_browser(tmp_path):
    """`results/report.html` (part of the default target) in headless chromium: a section per output of the run,
    each with its figure, its claims and its table; the run summary at the top; small; captions of this run."""
    workdir = copy_workflow(tmp_path / "repo")
    proc = snakemake(workdir, "--configfile", "tests/configs/tiny.yaml")
    assert proc.returncode == 0, proc.stderr[-5000:]
    page = workdir / "results" / "report.html"
    page.unlink()
    proc = make(workdir, "report")  # what the README says: rebuilds the report for the run's recorded config
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "build_output" not in proc.stderr  # nothing but the report reruns
    assert page.stat().st_size < 5e6

    dom = dump_dom(page)  # chromium parsed and laid out the page
    parser = _Sections()
    parser.feed(dom)
    outputs = tiny_config()["outputs"]
    assert sorted(parser.sections) == sorted(outputs)
    claims = pd.read_csv(workdir / "results" / "tables" / "claims.csv")
    for oid, found in parser.sections.items():
        assert len(found["images"]) == 1 and found["images"][0].startswith("data:image/png;base64,"), oid
        assert len(found["images"][0]) < 250_000, f"{oid}: thumbnail too large for a < 5 MB report"
        assert found["badges"] == (claims["output_id"] == oid).sum(), oid
        assert found["tables"] == 1, oid
    assert "Reproduction report" in dom and "Paper claims" in dom  # REPRODUCTION.md's summary, rendered
    n = tiny_config()["experiments"]["dwork-null"]["n"]
    assert f"n = {n} records" in dom  # the caption of this run, not of config.yaml

    shot = screenshot(page, tmp_path / "report.png")
    from PIL import Image

    with Image.open(shot) as image:  # something was drawn: not a blank page
        assert len(image.convert("L").getcolors(maxcolors=1 << 16) or range(1 << 16)) > 50

    # the claim filter, clicked in the browser: only failing claims stay visible, in the cards and the full table
    clicked = tmp_path / "clicked.html"
    clicked.write_text(page.read_text().replace(
        "</body>", '<script>document.querySelector("input[name=claim-filter][value=bad]").click();</script></body>'))
    after = dump_dom(clicked)
    shown = re.findall(r'<(?:div class="claim"|tr) data-group="(\w+)"( style="display: none;")?', after)
    assert shown and all((group == "bad") != bool(hidden) for group, hidden in shown), shown
    for width in (1400, 800):
        _check_reading_order_and_filter(page, tmp_path, width)


#: Run in the page after load: where the first figure is, whether the contents link shows, then a click on the
#: "does not hold" filter (the counts per section), then a click on a link to a claim the filter hides.
PROBE = """<script>
var r = {}; var img = document.querySelector('section.output img');
r.figureTop = img.getBoundingClientRect().top; r.viewport = window.innerHeight; r.alt = img.alt;
r.contentsLink = getComputedStyle(document.querySelector('a.to-contents')).display;
r.order = Array.from(document.querySelector('section.output').children).map(function (e) {
  return e.tagName.toLowerCase() + (e.className ? '.' + e.className : ''); });
document.querySelector('input[name=claim-filter][value=bad]').click();
r.sections = Array.from(document.querySelectorAll('section.output')).map(function (s) {
  var cards = Array.from(s.querySelectorAll('.claim'));
  return {id: s.id, count: s.querySelector('.claim-count').textContent,
          visible: cards.filter(function (c) { return c.style.display !== 'none'; }).length,
          total: cards.length, noneNote: !s.querySelector('.none-shown').hidden}; });
var hidden = Array.from(document.querySelectorAll('#all-claims-table tr[data-group=ok] a[id]'))[0];
if (hidden) { var link = document.createElement('a'); link.href = '#' + hidden.id; link.textContent = 'to claim';
  document.querySelector('main').appendChild(link); link.click();
  r.landed = hidden.closest('tr').style.display !== 'none' && document.getElementById('all-claims-table').open; }
document.body.setAttribute('data-probe', JSON.stringify(r));
</script></body>"""


def _check_reading_order_and_filter(page: Path, tmp_path: Path, width: int) -> None:
    """In chromium at ``width`` px: per output figure, then caption, then claim cards; the first figure within the
    first screen; alt text from the figure's verdict; the contents link where the contents scroll away; after a click
    on the filter, each section's count is the number of cards shown and an emptied section says so; a link to a
    hidden claim shows it."""
    import html as html_module
    import json

    probe_page = tmp_path / f"probe-{width}.html"
    probe_page.write_text(page.read_text().replace("</body>", PROBE))
    dom = dump_dom(probe_page, width=width, height=900)
    found = json.loads(html_module.unescape(re.search(r'data-probe="([^"]*)"', dom).group(1)))
    assert found["figureTop"] < found["viewport"], found  # the first figure starts on the first screen
    assert found["alt"].startswith("Figure: ") and len(found["alt"]) > 40, found["alt"]
    assert (found["contentsLink"] == "none") == (width > 1000), found  # fixed link only where the contents scroll
    order = [tag for tag in found["order"] if not tag.startswith("h3")]
    assert order[:3] == ["figure", "div.caption", "div.claims"], order
    for section in found["sections"]:
        assert int(section["count"]) == section["visible"], section
        assert section["noneNote"] == (section["total"] > 0 and section["visible"] == 0), section
    assert any(s["visible"] < s["total"] for s in found["sections"])  # the filter hid something
    assert found.get("landed", True), found
