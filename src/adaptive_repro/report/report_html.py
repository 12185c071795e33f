"""The HTML report of one run (``results/report.html``, ``make report``): one self-contained page.

At the top, the counts of the run summary of ``results/REPRODUCTION.md`` (the rest one click away); then one section
per output, grouped by paper, in reading order: its figure as a compressed thumbnail linked to the full PNG and PDF
(alt text: the figure's verdict), its caption (reStructuredText templates rendered with the run's config), the claims
about it (status, what was checked, what this run measured, the paper's words), its parameters and its table. The
complete REPRODUCTION.md (every claim in one table) closes the page. Everything comes from files of the run; nothing
is computed here.
"""

from __future__ import annotations

import base64
import dataclasses
import functools
import html
import io
import re
import warnings
from pathlib import Path
from types import SimpleNamespace

import pandas as pd

from adaptive_repro.foundation.io import FIGURE_DPI
from adaptive_repro.foundation.registry import CLAIM_TABLE_COLUMNS, claim_anchor
from adaptive_repro.pipeline import catalogue

#: The page's static files.
ASSETS = Path(__file__).parent / "report_assets"
#: Width of a figure thumbnail in pixels: readable on a laptop screen, small enough to keep the page < 5 MB.
THUMBNAIL_WIDTH = 1100
#: Table rows shown inline per output (the full table is one click away as CSV).
TABLE_ROWS = 60
#: Paper key -> the paper as a reader names it (section headings of the report).
PAPER_NAMES = {
    "dwork": "Dwork et al. 2015, “The reusable holdout” (Science)",
    "zhao": "Zhao 2017, adaptive statistical learning with Bayesian differential privacy",
    "he": "He, Wang and Tao, generalization and composition bounds for iterative DP algorithms",
    "lecture": "Lecture notes: exponential mechanism, transfer theorem, Monitor argument",
}
#: Claim kind -> how a card names it.
KIND_LABEL = {"paper": "paper's claim", "slip": "slip in the paper's text", "project": "project's question"}

#: Claim status -> CSS class of its badge (and the group the claim filter shows or hides).
STATUS_CLASS = {"reproduced": "ok", "holds": "ok", "differs": "bad", "does not hold": "bad",
                "not applicable": "na", "not checked": "na"}
#: The claim filter's choices: label -> the status groups shown.
FILTERS = {"all claims": ("ok", "bad", "na"), "does not hold / differs": ("bad",),
           "not applicable / not checked": ("na",)}


def caption_title(template: str, fallback: str) -> str:
    """The human title of an output: the first bold phrase of its caption template (``**...**``), without a final
    full stop; ``fallback`` if the caption has none."""
    text = "\n".join(line for line in template.splitlines() if not line.lstrip().startswith("{%"))
    match = re.search(r"\*\*(.+?)\*\*", text, flags=re.S)
    return " ".join(match.group(1).split()).rstrip(".:") if match else fallback


def output_status(claims: pd.DataFrame) -> str:
    """The status group of an output for the table of contents: "bad" if a claim fails, else "ok" if one holds,
    else "na"."""
    groups = {STATUS_CLASS.get(s, "na") for s in claims["status"]}
    return "bad" if "bad" in groups else "ok" if "ok" in groups else "na"


@dataclasses.dataclass
class OutputFiles:
    """The files of one output of the run, as paths on disk and as links relative to the report."""

    output_id: str
    caption_template: Path
    table: Path
    claims: Path
    png: Path
    links: dict[str, str]  # label -> path relative to the report's folder
    params: dict = dataclasses.field(default_factory=dict)  # the output's resolved config block (output_params)

    @functools.cached_property
    def caption(self) -> str:
        """The caption template's text (read once: the section and the table of contents both use it)."""
        return self.caption_template.read_text(encoding="utf-8")

    @functools.cached_property
    def claims_table(self) -> pd.DataFrame:
        """The output's claims (read once)."""
        return pd.read_csv(self.claims, dtype=str, keep_default_na=False)

    @property
    def title(self) -> str:
        """The output's human title (:func:`caption_title`)."""
        return caption_title(self.caption, self.output_id)


def render_caption(template: str, config: dict) -> str:
    """A caption as HTML: Jinja with ``snakemake.config`` (as Snakemake's report renders it), then
    reStructuredText. Raises ValueError if docutils reports a problem, so a broken caption never ships silently."""
    from docutils.core import publish_parts
    from jinja2 import Environment

    # Snakemake's report defines these link targets (categories); captions may refer to them.
    targets = "\n\n" + "\n".join(f".. _{name}: #{name.lower()}"
                                 for name in ["Workflow", "Statistics", "Claims", *catalogue.PAPERS.values()])
    snakemake = SimpleNamespace(config=config, wildcards={}, params={}, input=[], output=[], log=[], rule="",
                                threads=1, resources={})
    text = Environment(trim_blocks=True, lstrip_blocks=True).from_string(template + targets).render(
        snakemake=snakemake, categories={}, files=[])
    messages = io.StringIO()
    with warnings.catch_warnings():  # docutils 0.22 deprecates writer_name; Snakemake's report uses it too
        warnings.simplefilter("ignore", PendingDeprecationWarning)
        body = publish_parts(text, writer_name="html", settings_overrides={"warning_stream": messages})["body"]
    if messages.getvalue():
        raise ValueError(f"caption does not render as reStructuredText:\n{messages.getvalue()}")
    return body


class DamagedFigure(ValueError):
    """A figure file that cannot be read (truncated or not a PNG): names the file and the fix."""


def _read_png(png: Path, read):
    """``read(image)`` of the PNG at ``png``; a damaged file raises :class:`DamagedFigure` naming it and the fix."""
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(png) as image:
            return read(image)
    except (OSError, UnidentifiedImageError) as err:
        if isinstance(err, FileNotFoundError):
            raise
        raise DamagedFigure(f"{png}: cannot be read ({err}); delete it and its PDF, then rerun snakemake (it redraws "
                            "the figure)") from err


def figure_alt(png: Path, output_title: str) -> str:
    """A figure's alt text: its verdict and setting (the PNG's Title metadata, written by io.save_figure), after the
    output's title."""
    verdict = _read_png(png, lambda image: image.text.get("Title", "") if hasattr(image, "text") else "")
    return f"Figure: {output_title}." + (f" {verdict}" if verdict else "")


def thumbnail(png: Path, width: int = THUMBNAIL_WIDTH) -> tuple[bytes, tuple[int, int]]:
    """The figure scaled to ``width`` pixels and quantized to 256 colours by octree (which keeps a rare curve's colour:
    median cut shifted the reddish purple of a small series by 25/255): PNG bytes, about a fifth of the full file,
    and the original (width, height). Saved with zlib's default level, not ``optimize``: 8% larger, and half the CPU
    of this job, which runs alone at the end of the pipeline."""
    from PIL import Image

    def scaled(image) -> tuple[bytes, tuple[int, int]]:
        size = image.size
        image = image.convert("RGB")
        if image.width > width:
            image = image.resize((width, round(image.height * width / image.width)), Image.Resampling.LANCZOS)
        image = image.quantize(colors=256, method=Image.Quantize.FASTOCTREE)
        buffer = io.BytesIO()
        image.save(buffer, format="PNG")
        return buffer.getvalue(), size

    return _read_png(png, scaled)


def figure_css_width(png_width: int, dpi: int = FIGURE_DPI) -> int:
    """The width at which the report shows a figure: its natural size, 96 CSS px per inch of the figure as drawn
    (``png_width`` pixels saved at ``dpi``), so that text drawn at n pt is seen at n pt (plotting.MAX_WIDTH inches
    fit the figure column at a 1,400 px window; a narrower window scales the figure down)."""
    return round(png_width / dpi * 96)


def data_uri(png_bytes: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png_bytes).decode("ascii")


def split_reproduction(markdown_text: str) -> tuple[str, str]:
    """REPRODUCTION.md -> (run summary, per-output claim tables): the summary is everything before the first
    ``## `` heading (see registry.render_reproduction)."""
    match = re.search(r"^## ", markdown_text, flags=re.M)
    if match is None:
        return markdown_text, ""
    return markdown_text[:match.start()], markdown_text[match.start():]


#: The run summary's paragraphs shown above the first figure (the counts per claim kind); the rest is one click away.
SHORT_SUMMARY = ("# ", "Paper claims", "Slips", "Project questions")


def short_summary(summary_md: str) -> tuple[str, str]:
    """The run summary split into (the heading and the counts per claim kind, everything else), paragraph by
    paragraph, so that the first figure is on the first screen."""
    paragraphs = [p for p in re.split(r"\n\s*\n", summary_md) if p.strip()]
    short = [p for p in paragraphs if p.lstrip().startswith(SHORT_SUMMARY)]
    rest = [p for p in paragraphs if p not in short]
    return "\n\n".join(short), "\n\n".join(rest)


def markdown_to_html(text: str) -> str:
    import markdown

    return markdown.markdown(text, extensions=["tables"])


def _format_cell(value) -> str:
    if isinstance(value, float):
        return f"{value:.6g}"
    return "" if value is None else str(value)


def table_html(table: pd.DataFrame, rows: int = TABLE_ROWS) -> str:
    """The first ``rows`` rows of an output's table as HTML (numbers with 6 significant digits)."""
    shown = table.head(rows).map(_format_cell)
    return shown.to_html(index=False, border=0, classes="data", escape=True)


def claims_html(claims: pd.DataFrame) -> str:
    """One card per claim: status badge, claim ID and kind, the checked reading, what this run measured and the
    counter-example; the paper's words, source and expectation one click away."""
    if claims.empty:
        return '<p class="muted">No claim of the papers is checked on this output.</p>'
    cards = []
    for c in claims.itertuples():
        esc = {k: html.escape(str(getattr(c, k))) for k in
               ("claim_id", "kind", "source", "claim", "expected", "measured", "status", "counterexample", "quote")}
        kind = KIND_LABEL[c.kind] + ("" if c.strength == "tested" else "; never turned at any valid point tried"
                                     if c.strength == "never turned" else f"; {c.strength}: cannot fail")
        quote = f'<blockquote>“{esc["quote"]}”</blockquote>' if c.quote else ""
        counter = f'<p><b>Counter-example:</b> {esc["counterexample"]}</p>' if c.counterexample else ""
        group = STATUS_CLASS.get(c.status, "na")
        cards.append(
            f'<div class="claim" data-group="{group}"><span class="badge {group}">{esc["status"]}</span> '
            f'<code>{esc["claim_id"]}</code> <span class="muted">({kind})</span>'
            f'<p>{esc["claim"]}</p><p><b>This run:</b> {esc["measured"]}</p>{counter}'
            f'<details><summary>source, paper\'s words, expected</summary><p>{esc["source"]}</p>{quote}'
            f'<p><b>Expected:</b> {esc["expected"]}</p></details></div>')
    return "\n".join(cards)


def params_html(files: OutputFiles) -> str:
    """The output's parameters in this run, as YAML (the config block it is built from, plus the seed): the caption's
    text is general, these are the values behind this run's figure, table and claims."""
    import yaml

    if not files.params:
        return ""
    block = ".".join(catalogue.get(files.output_id).config_block)
    text = yaml.safe_dump(files.params, sort_keys=False, default_flow_style=None, width=110, allow_unicode=True)
    return (f'<details class="params"><summary>Parameters of this run (config <code>{html.escape(block)}</code> '
            f'and the seed)</summary><pre>{html.escape(text)}</pre></details>')


def output_section(files: OutputFiles, config: dict, figure: tuple[bytes, tuple[int, int]] | None = None) -> str:
    """The section of one output: figure, caption, claim cards, parameters, table. ``figure``: the figure's
    :func:`thumbnail`, if already made."""
    oid = html.escape(files.output_id)
    caption = render_caption(files.caption, config)
    claims = files.claims_table
    table = pd.read_csv(files.table)
    links = " · ".join(f'<a href="{html.escape(path)}">{html.escape(label)}</a>'
                       for label, path in files.links.items())
    shown = min(len(table), TABLE_ROWS)
    image, (width, _) = thumbnail(files.png) if figure is None else figure
    title = html.escape(files.title)
    alt = html.escape(figure_alt(files.png, files.title))
    return f"""
<section class="output" id="{oid}">
  <h3>{title} <code class="muted">{oid}</code></h3>
  <figure><a href="{html.escape(files.links.get('figure (PNG)', ''))}"><img alt="{alt}"
    style="width:{figure_css_width(width)}px" src="{data_uri(image)}"></a>
    <figcaption>Files: {links}</figcaption></figure>
  <div class="caption">{caption}</div>
  <div class="claims"><h4>Claims checked on this figure's numbers (<span class="claim-count">{len(claims)}</span>
    <span class="claim-total" data-total="{len(claims)}"></span>)</h4>
    <p class="muted none-shown" hidden>No claim of this output has the status the filter shows.</p>
    {claims_html(claims)}</div>
  {params_html(files)}
  <details><summary>Table: {len(table)} rows × {table.shape[1]} columns (first {shown} shown; the CSV has all)</summary>
    <div class="scroll">{table_html(table)}</div></details>
</section>"""


#: The page's stylesheet and claim-filter script (package data, inlined into the self-contained page).
STYLE = (ASSETS / "report.css").read_text(encoding="utf-8")



def toc_html(by_paper: dict[str, list[OutputFiles]]) -> str:
    """The sticky table of contents: per paper, each output's human title with a dot coloured by its claims
    (failing / holding / neither), and the claim filter."""
    parts = ['<p class="toc-head"><a href="#summary">Summary</a> · <a href="#all-claims">All claims</a></p>',
             '<p class="muted">Dots: <span class="dot bad"></span>a claim does not hold or differs · '
             '<span class="dot ok"></span>all decided claims hold · <span class="dot na"></span>none decided</p>',
             '<fieldset class="filter"><legend>Show claims</legend>']
    for i, (label, groups) in enumerate(FILTERS.items()):
        checked = " checked" if i == 0 else ""
        parts.append(f'<label><input type="radio" name="claim-filter" value="{" ".join(groups)}"{checked}> '
                     f'{html.escape(label)}</label>')
    parts.append("</fieldset>")
    for paper, members in by_paper.items():
        parts.append(f'<p class="toc-paper"><a href="#paper-{paper}">{html.escape(PAPER_NAMES[paper])}</a></p><ul>')
        for f in members:
            parts.append(f'<li><span class="dot {output_status(f.claims_table)}"></span><a '
                         f'href="#{html.escape(f.output_id)}">{html.escape(f.title)}</a></li>')
        parts.append("</ul>")
    return "\n".join(parts)


def colour_statuses(summary_html: str) -> str:
    """Status words in the summary's cells ("3 holds, 1 does not hold") as coloured badges."""
    words = "|".join(sorted(map(re.escape, STATUS_CLASS), key=len, reverse=True))
    return re.sub(rf"(\d+) ({words})\b(?=[^<]*</td>)",
                  lambda m: f'<span class="badge {STATUS_CLASS[m.group(2)]}">{m.group(1)} {m.group(2)}</span>',
                  summary_html)


SCRIPT = (ASSETS / "claim_filter.js").read_text(encoding="utf-8")



def all_claims_html(sections: list[OutputFiles]) -> str:
    """Every claim of the run, a table per output: the rows of REPRODUCTION.md, built from the claims tables and
    shown exactly as written (the papers' LaTeX and this project's ``eps*`` are text here, not Markdown); each row
    carries its status group for the claim filter and the anchor the summary's links point to."""
    head = "".join(f"<th>{html.escape(label)}</th>" for label, _ in CLAIM_TABLE_COLUMNS)
    parts = []
    for files in sections:
        claims = files.claims_table
        if claims.empty:
            continue
        rows = []
        for claim in claims.to_dict("records"):
            cells = {key: html.escape(str(claim.get(key, ""))) for _, key in CLAIM_TABLE_COLUMNS}
            cells["claim_id"] = (f'<a id="{claim_anchor(files.output_id, claim["claim_id"])}"></a>'
                                 f'<code>{cells["claim_id"]}</code>')
            cells["quote"] = f"“{cells['quote']}”" if cells["quote"] else ""
            cells["status"] = f"<strong>{cells['status']}</strong>"
            group = STATUS_CLASS.get(claim["status"], "na")
            rows.append(f'<tr data-group="{group}">' + "".join(f"<td>{cells[key]}</td>" for _, key in
                                                               CLAIM_TABLE_COLUMNS) + "</tr>")
        parts.append(f'<h2><code>{html.escape(files.output_id)}</code></h2>\n<table><thead><tr>{head}</tr></thead>'
                     f'<tbody>\n' + "\n".join(rows) + "\n</tbody></table>")
    return "\n".join(parts)


#: The conventions every figure follows, said once above the first figure (each caption repeats its own).
CONVENTIONS = ("In every figure, bars and shaded bands around a mean are its 95% confidence interval (Student t over "
               "the replicates) unless the label says otherwise; a black ring marks a point where a claim does not "
               "hold "
               "(it fails or differs from the paper), the claim named in the legend, the title or beside the ring.")


def render_report(reproduction_md: str, sections: list[OutputFiles], config: dict, threads: int = 1) -> str:
    """The whole report page (see the module docstring). ``sections`` are the outputs of this run. The figures'
    thumbnails are made on ``threads`` threads (Pillow releases the GIL while it decodes, scales and encodes; this job
    runs alone at the end of the pipeline); the page does not depend on their number."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=max(1, threads)) as pool:
        figures = dict(zip((f.output_id for f in sections), pool.map(thumbnail, [f.png for f in sections])))
    summary, _ = split_reproduction(reproduction_md)
    by_paper: dict[str, list[OutputFiles]] = {}
    for files in sections:
        by_paper.setdefault(catalogue.get(files.output_id).paper, []).append(files)
    body = []
    for paper, members in by_paper.items():
        toc = ", ".join(f'<a href="#{html.escape(f.output_id)}"><code>{html.escape(f.output_id)}</code></a>'
                        for f in members)
        body.append(f'<h2 id="paper-{paper}">{html.escape(PAPER_NAMES[paper])}</h2><p>Outputs: {toc}</p>')
        body += [output_section(f, config, figures[f.output_id]) for f in members]
    # the summary table's output IDs link to their sections; its statuses are coloured
    short, rest = short_summary(summary)
    summary_html = markdown_to_html(short) + ("<details><summary>How to read the statuses, this run's settings and "
                                              "the claims per output</summary>"
                                              + colour_statuses(re.sub(
                                                  r"<td><code>([a-z0-9-]+)</code></td>",
                                                  lambda m: f'<td><a href="#{m.group(1)}"><code>{m.group(1)}</code>'
                                                            '</a></td>', markdown_to_html(rest))) + "</details>")
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Reproduction report: adaptive data analysis under (Bayesian) differential privacy</title>
<style>{STYLE}</style></head><body><div class="layout">
<nav class="toc" id="contents">{toc_html(by_paper)}</nav>
<a class="to-contents" href="#contents">Contents and claim filter</a>
<main>
<div id="summary">{summary_html}<p class="muted">{CONVENTIONS}</p></div>
{''.join(body)}
<h2 id="all-claims">All claims of this run (REPRODUCTION.md)</h2>
<details id="all-claims-table"><summary>Every claim in one table, as in <a href="REPRODUCTION.md">REPRODUCTION.md</a>
and
<a href="tables/claims.csv">tables/claims.csv</a></summary>
<div class="scroll">{all_claims_html(sections)}</div>
</details>
</main></div>
<script>{SCRIPT}</script>
</body></html>
"""


def write_thumbnail(png: Path, dest: Path, width: int = 1000) -> None:
    """Write the compressed thumbnail of a figure to ``dest`` (the README's gallery, ``make gallery``)."""
    data, _ = thumbnail(png, width)
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_bytes(data)


def default_run_differences(run_config: Path) -> list[str]:
    """What the run recorded in ``run_config`` (results/run-config.yaml) changed from the default config (config.yaml
    resolved), as dotted keys; ["no recorded run"] if there is none. The README's gallery shows the default run."""
    import yaml

    from adaptive_repro.pipeline import validation

    if not run_config.is_file():
        return ["no recorded run"]
    ran = yaml.safe_load(run_config.read_text(encoding="utf-8"))
    default = validation.validated(validation.load_config_file(validation.default_config_path()))

    def walk(a, b, prefix: str) -> list[str]:
        if isinstance(a, dict) and isinstance(b, dict):
            return [k for key in sorted(set(a) | set(b)) for k in walk(a.get(key), b.get(key), f"{prefix}{key}.")]
        return [] if a == b else [prefix.rstrip(".")]

    return walk(ran, default, "")


if __name__ == "__main__":  # python -m adaptive_repro.report.report_html FIGURES_DIR DEST_DIR ID [ID ...]
    import sys

    figures, dest, *ids = sys.argv[1:]
    if not ids:
        sys.exit("usage: python -m adaptive_repro.report.report_html FIGURES_DIR DEST_DIR ID [ID ...]")
    changed = default_run_differences(Path(figures).parent / "run-config.yaml")
    if changed:
        sys.exit(f"the gallery shows the default run, but {Path(figures).parent} holds a run that differs from "
                 f"config.yaml ({', '.join(changed[:3])}{', ...' if len(changed) > 3 else ''}): run "
                 "'make reproduce' (no CONFIG) first")
    for oid in ids:
        catalogue.get(oid)  # an unknown ID is an error, not a silently missing image
        write_thumbnail(Path(figures) / f"{oid}.png", Path(dest) / f"{oid}.png")
        print(f"{dest}/{oid}.png")
