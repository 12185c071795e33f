"""report_html: the pieces of results/report.html on synthetic inputs (the browser test renders a real run)."""
import base64
import html
import io

import pandas as pd
import pytest
from PIL import Image

from adaptive_repro.foundation.registry import Claim, claims_frame, render_reproduction
from adaptive_repro.report import report_html


def _claims(output_id, statuses):
    return claims_frame([Claim(output_id=output_id, claim_id=f"c{i}", source="Paper, Thm 1",
                               claim="a <b>bold</b> reading", expected="x > 0", measured="x = 1",
                               status=status, counterexample="at k = 3" if status == "does not hold" else "",
                               kind="paper", quote="words & more")
                         for i, status in enumerate(statuses)])


def _png(path, width=3000, height=1000):
    Image.new("RGB", (width, height), "white").save(path)
    return path


def test_split_reproduction_puts_the_summary_first():
    claims = pd.concat([_claims("dwork-null", ["reproduced"]), _claims("he-kl", ["holds", "does not hold"])])
    text = render_reproduction(claims, {"dwork-null": [], "he-kl": []}, header="Run: seed = 1.")
    summary, rest = report_html.split_reproduction(text)
    assert summary.startswith("# Reproduction report") and "Run: seed = 1." in summary and "## " not in summary
    assert rest.startswith("## `dwork-null`") and "## `he-kl`" in rest
    assert summary + rest == text


def test_thumbnail_is_narrow_and_small(tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    fig, ax = plt.subplots(figsize=(20, 10))
    x = np.linspace(0, 10, 500)
    for shift in range(8):
        ax.plot(x, np.sin(x + shift), label=f"curve {shift}")
        ax.fill_between(x, np.sin(x + shift) - 0.1, np.sin(x + shift) + 0.1, alpha=0.2)
    ax.legend()
    png = tmp_path / "fig.png"
    fig.savefig(png, dpi=150)  # 3000 x 1500 px, like the pipeline's widest figures
    uri = report_html.data_uri(report_html.thumbnail(png, width=1100)[0])
    assert uri.startswith("data:image/png;base64,")
    data = base64.b64decode(uri.split(",", 1)[1])
    with Image.open(io.BytesIO(data)) as thumb:
        assert thumb.size == (1100, 550)
    assert len(data) < png.stat().st_size / 2


def test_caption_shows_the_config_and_refuses_broken_markup():
    html = report_html.render_caption('n = {{ snakemake.config["n"] }} records, *emphasis*', {"n": 123})
    assert "n = 123 records" in html and "<em>emphasis</em>" in html
    with pytest.raises(ValueError, match="reStructuredText"):
        report_html.render_caption("`unclosed literal", {})


def test_claim_cards_escape_text_and_colour_by_status():
    cards = report_html.claims_html(_claims("he-kl", ["holds", "does not hold", "not applicable"]))
    assert "<b>bold</b>" not in cards and "&lt;b&gt;bold&lt;/b&gt;" in cards
    assert cards.count('class="badge ok"') == 1 and cards.count('class="badge bad"') == 1
    assert cards.count('class="badge na"') == 1 and "at k = 3" in cards and "words &amp; more" in cards
    assert "No claim" in report_html.claims_html(_claims("he-kl", []))


def test_report_has_a_section_per_output_grouped_by_paper(tmp_path):
    sections = []
    for oid in ("he-kl", "dwork-null"):
        claims = _claims(oid, ["holds"])
        claims.to_csv(tmp_path / f"{oid}.claims.csv", index=False)
        pd.DataFrame({"x": range(100), "y": [0.123456789] * 100}).to_csv(tmp_path / f"{oid}.csv", index=False)
        caption = tmp_path / f"{oid}.rst"
        caption.write_text(f"**Caption of {oid}** with seed {{{{ snakemake.config['seed'] }}}}.")
        sections.append(report_html.OutputFiles(oid, caption, tmp_path / f"{oid}.csv", tmp_path / f"{oid}.claims.csv",
                                                _png(tmp_path / f"{oid}.png"), {"figure (PNG)": f"figures/{oid}.png"}))
    claims = pd.concat([_claims("he-kl", ["holds"]), _claims("dwork-null", ["holds"])])
    md = render_reproduction(claims, {"he-kl": [], "dwork-null": []})
    page = report_html.render_report(md, sections, {"seed": 77})
    for oid in ("he-kl", "dwork-null"):
        assert f'<section class="output" id="{oid}">' in page and f"Caption of {oid}" in page
        assert f'<a href="#{oid}"><code>{oid}</code></a>' in page  # summary table links to the section
    assert "with seed 77" in page and page.count("<img") == 2
    assert page.index('id="paper-he"') < page.index('id="he-kl"') < page.index('id="paper-dwork"')  # run order
    assert "0.123457" in page and "first 60 shown" in page  # tables inline, 6 significant digits, first rows
    assert page.index("Paper claims") < page.index('id="he-kl"')  # REPRODUCTION.md's summary at the top
    assert page.index('id="all-claims"') > page.index('id="dwork-null"')
    toc = page[page.index("<nav class=\"toc\""):page.index("</nav>")]
    assert '<span class="dot ok"></span><a href="#he-kl">Caption of he-kl</a>' in toc  # human titles, status dots
    assert toc.count('name="claim-filter"') == len(report_html.FILTERS)
    section = page[page.index('id="he-kl"'):page.index('id="paper-dwork"')]
    assert section.index("<img") < section.index("Caption of he-kl</strong> with seed")  # the figure comes first
    assert 'data-group="ok"' in section and '<tr data-group="ok">' in page  # cards and table rows for the filter


def test_titles_statuses_and_colours_for_navigation():
    template = '{% set e = 1 %}\n**Zhao 2017, Figure 3: Algorithm 1\non correlated records.** More text.'
    assert report_html.caption_title(template, "x") == "Zhao 2017, Figure 3: Algorithm 1 on correlated records"
    assert report_html.caption_title("no bold here", "zhao-fig3") == "zhao-fig3"
    frame = pd.DataFrame({"status": ["holds", "not applicable", "does not hold"]})
    assert report_html.output_status(frame) == "bad"
    assert report_html.output_status(frame.iloc[:2]) == "ok" and report_html.output_status(frame.iloc[1:2]) == "na"
    cell = "<td>3 holds, 1 does not hold</td><td>3 holds in the text</td>"
    coloured = report_html.colour_statuses(cell)
    assert '<span class="badge ok">3 holds</span>, <span class="badge bad">1 does not hold</span></td>' in coloured


@pytest.mark.slow
def test_thumbnail_keeps_every_palette_colour(tmp_path):
    """Each Okabe-Ito colour survives the 256-colour quantization, also that of a small, rare series."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    from adaptive_repro.report.plotting import OKABE_ITO

    fig, ax = plt.subplots(figsize=(20, 10))
    x = np.linspace(0, 10, 400)
    for i, colour in enumerate(OKABE_ITO.values()):
        rare = i == 6  # reddish purple: a short thin series among many blended bands, as the budget curve of Fig. 3
        for j in range(6):  # overlapping translucent bands: many blended colours compete for the 256 entries
            ax.fill_between(x, np.sin(x + i + j) + 2 * i - 2, np.sin(x + i + j) + 2 * i + 2, color=colour, alpha=0.12)
        ax.plot(x[:60] if rare else x, (np.sin(x + i) + 2 * i)[:60] if rare else np.sin(x + i) + 2 * i, color=colour,
                lw=3 if rare else 6)
    png = tmp_path / "fig.png"
    fig.savefig(png, dpi=150)
    with Image.open(png) as im:
        ref = np.asarray(im.convert("RGB").resize((1100, 550), Image.Resampling.LANCZOS)).astype(float)
    data = base64.b64decode(report_html.data_uri(report_html.thumbnail(png, width=1100)[0]).split(",", 1)[1])
    with Image.open(io.BytesIO(data)) as thumb:
        got = np.asarray(thumb.convert("RGB")).astype(float)
    for name, hexcode in OKABE_ITO.items():
        colour = np.array([int(hexcode[i:i + 2], 16) for i in (1, 3, 5)], dtype=float)
        mask = np.abs(ref - colour).sum(axis=2) < 20  # pixels of that colour in the resized figure
        assert mask.sum() > 20, name
        assert np.abs(got[mask] - colour).mean() < 8, f"{name} shifted by quantization"


def test_claim_text_and_latex_quotes_are_shown_as_written(tmp_path):
    """The project's `eps*`, `b_i`, `n_*` are characters, not Markdown emphasis, in REPRODUCTION.md rendered to HTML;
    the report's table of all claims shows every cell exactly as written (LaTeX with or without dollar signs, a
    lone dollar, display math), each row marked for the claim filter."""
    from adaptive_repro.foundation.registry import write_claims

    claims = [Claim(output_id="zhao-bdp-conversion", claim_id="c", source="Zhao 2017 §3 (ε*)",
                    claim="an eps*-DP Algorithm 1 is eps-BDP for eps = (eps* - 4 b_i)",
                    expected="n_* finite and >= n_#",
                    measured="a fee of $5 for b_i = 0.4", status="holds", counterexample="at $n = 10$", kind="paper",
                    quote=r"$$x = 1$$ and then $\{a*b*c\}$; \mathbb{E}_{x}[p_\alpha] \\ *Bassily et al.*")]
    _, table = report_html.split_reproduction(render_reproduction(claims_frame(claims), {"zhao-bdp-conversion": []}))
    page = report_html.markdown_to_html(table)
    for text in ("an eps*-DP Algorithm 1 is eps-BDP for eps = (eps* - 4 b_i)", "n_* finite and &gt;= n_#",
                 "Zhao 2017 §3 (ε*)"):
        assert text in page, text
    write_claims(claims, tmp_path / "claims.csv")
    files = report_html.OutputFiles("zhao-bdp-conversion", caption_template=tmp_path / "c.rst", table=tmp_path / "t",
                                    claims=tmp_path / "claims.csv", png=tmp_path / "p.png", links={}, params={})
    page = report_html.all_claims_html([files])
    for c in claims:
        for text in (c.claim, c.expected, c.measured, c.source, c.counterexample, f"“{c.quote}”"):
            assert html.escape(text) in page, text
    assert "<em>" not in page and '<tr data-group="ok">' in page and "<strong>holds</strong>" in page
    assert 'id="claim-zhao-bdp-conversion-c"' in page


def test_the_gallery_refuses_a_run_that_is_not_the_default(tmp_path):
    """make gallery copies figures into the tracked README gallery: only from a run of the default config."""
    import yaml

    from adaptive_repro.pipeline import validation
    from adaptive_repro.report.report_html import default_run_differences

    default = validation.validated(validation.load_config_file(validation.default_config_path()))
    run = tmp_path / "run-config.yaml"
    assert default_run_differences(run) == ["no recorded run"]
    run.write_text(yaml.safe_dump(default), encoding="utf-8")
    assert default_run_differences(run) == []
    run.write_text(yaml.safe_dump(default | {"seed": default["seed"] + 1}), encoding="utf-8")
    assert default_run_differences(run) == ["seed"]


def test_the_short_summary_keeps_the_counts_and_moves_the_rest_one_click_away():
    claims = pd.concat([_claims("dwork-null", ["reproduced"]), _claims("he-kl", ["holds", "does not hold"])])
    summary, _ = report_html.split_reproduction(render_reproduction(claims, {"dwork-null": [], "he-kl": []},
                                                                    header="Run: seed = 1."))
    short, rest = report_html.short_summary(summary)
    assert short.startswith("# Reproduction report") and "Paper claims" in short and "Run: seed = 1." not in short
    assert "Run: seed = 1." in rest and "he-kl" in rest


def test_alt_text_is_the_figures_verdict(tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from adaptive_repro.foundation.io import save_figure

    fig, _ = plt.subplots()
    fig.suptitle("The holdout overfits\nn = 10, 3 replicates")
    save_figure(fig, tmp_path / "f.pdf", tmp_path / "f.png")
    assert report_html.figure_alt(tmp_path / "f.png", "Dwork Fig. 1") == (
        "Figure: Dwork Fig. 1. The holdout overfits n = 10, 3 replicates")
    assert report_html.figure_alt(_png(tmp_path / "plain.png"), "X") == "Figure: X."


@pytest.mark.slow
def test_a_figure_saved_twice_gives_the_same_bytes(tmp_path):
    """Same figure, same files: the PDF carries no creation date (a rerun of the same config is byte-identical)."""
    import time

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from adaptive_repro.foundation.io import save_figure

    fig, ax = plt.subplots()
    ax.plot([0, 1], [1, 0])
    fig.suptitle("A verdict")
    save_figure(fig, tmp_path / "a.pdf", tmp_path / "a.png")
    time.sleep(1.1)  # a creation date would differ by now
    save_figure(fig, tmp_path / "b.pdf", tmp_path / "b.png")
    assert (tmp_path / "a.pdf").read_bytes() == (tmp_path / "b.pdf").read_bytes()
    assert (tmp_path / "a.png").read_bytes() == (tmp_path / "b.png").read_bytes()


def test_a_truncated_figure_is_named_with_its_fix(tmp_path):
    """A PNG cut short (a full disk, a killed copy): the error names the file and says how to redraw it."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from adaptive_repro.foundation.io import save_figure

    fig, ax = plt.subplots()
    ax.plot([0, 1], [1, 0])
    save_figure(fig, tmp_path / "f.pdf", tmp_path / "f.png")
    data = (tmp_path / "f.png").read_bytes()
    (tmp_path / "f.png").write_bytes(data[: len(data) // 2])
    with pytest.raises(report_html.DamagedFigure, match=r"f\.png: cannot be read .*delete it and its PDF"):
        report_html.thumbnail(tmp_path / "f.png")


def test_the_failed_line_names_the_innermost_os_error_and_its_fix():
    """A full disk surfaces as an unrelated error in the code that was writing (Snakemake's 'Stream' object has no
    attribute 'pos'); the FAILED line names the OSError underneath, its file and the fix."""
    import errno

    from adaptive_repro.pipeline.joblog import root_cause

    try:
        try:
            raise OSError(errno.ENOSPC, "No space left on device", "results/tables/he-kl.csv")
        except OSError:
            raise AttributeError("'Stream' object has no attribute 'pos'")  # as the library does: a new error
    except AttributeError as err:
        line = root_cause(err)
    assert line.startswith("OSError: No space left on device (results/tables/he-kl.csv); the disk is full")
    assert root_cause(ValueError("bad value")) == "ValueError: bad value"
