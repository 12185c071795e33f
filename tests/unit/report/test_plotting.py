"""The one plotting module: every mechanism has words and a colour, nothing else sets the backend, ticks are plain."""

from __future__ import annotations

from pathlib import Path

import matplotlib.colors as mcolors

from adaptive_repro.report import figure_checks, plotting

SRC = Path(plotting.__file__).resolve().parent


def test_every_arm_has_words_and_its_own_colour():
    """Arms are named and coloured by their registered objects (simulation/registries.py), the one place."""
    from adaptive_repro.simulation.registries import ARMS

    assert "zhao_alg1_bdp" in ARMS
    for arm in ARMS:
        assert arm.display_name and "_" not in arm.display_name, arm.name
        assert mcolors.is_color_like(arm.color), arm.name
    colours = [mcolors.to_hex(arm.color) for arm in ARMS]
    assert len(set(colours)) == len(colours), "two arms share a colour"
    assert ARMS.get("standard").display_name == "Standard holdout"
    assert ARMS.get("zhao_alg1_theorem2").display_name == "Algorithm 1, Theorem 2 calibration"
    assert not set(ARMS.names()) & set(plotting.COLORS), "arm colours belong to the arms, not to plotting"


def test_no_output_module_sets_the_backend_or_its_own_colormap():
    for path in sorted((SRC / "outputs").rglob("*.py")):
        text = path.read_text()
        assert "matplotlib.use(" not in text, path.name
        assert "get_cmap(" not in text and "plt.cm." not in text and '"tab:' not in text, path.name


def test_log_axes_are_labelled_in_powers_of_ten():
    fig, ax = plotting.pyplot().subplots()
    ax.plot([1, 4, 1000], [1e-6, 3, 40])
    plotting.log_axis(ax)
    fig.canvas.draw()
    labels = [t.get_text() for t in ax.get_xticklabels() + ax.get_yticklabels() if t.get_text()]
    assert "$10^{3}$" in labels and "$10^{-6}$" in labels, labels
    assert not any("e-" in lab or "e+" in lab for lab in labels), labels
    assert figure_checks.figure_problems(fig) == []
    ax.set_xscale("linear")
    ax.set_yscale("log")  # matplotlib's own labels: the figure check names the axis
    assert any("not labelled 10^k" in p for p in figure_checks.figure_problems(fig))
    plotting.pyplot().close(fig)


def test_a_narrow_log_axis_is_labelled_between_powers_of_ten():
    fig, ax = plotting.pyplot().subplots()
    ax.plot([100, 900], [1, 2])
    plotting.log_axis(ax, "x")
    fig.canvas.draw()
    labels = [t.get_text() for t in ax.get_xticklabels() if t.get_text()]
    assert "200" in labels and "100" in labels and "500" in labels, labels  # plain: the axis is within [0.01, 1e4)
    fig2, ax2 = plotting.pyplot().subplots()
    ax2.plot([1e5, 9e5], [1, 2])
    plotting.log_axis(ax2, "x")
    fig2.canvas.draw()
    labels = [t.get_text() for t in ax2.get_xticklabels() if t.get_text()]
    assert "$2\\times10^{5}$" in labels and "$10^{5}$" in labels, labels
    plotting.pyplot().close(fig)
    plotting.pyplot().close(fig2)


def test_figure_problems_names_small_text_wide_figures_wrong_encodings_and_code_in_titles():
    plt = plotting.pyplot()
    fig, ax = plt.subplots(figsize=(plotting.MAX_WIDTH + 2, 3))
    ax.plot([0, 1], [0, 1], **(plotting.style("he") | {"color": "#123456"}))
    ax.text(0.5, 0.5, "tiny", fontsize=plotting.MIN_FONT_PT - 2)
    ax.set_title("see docs/METHODS.md for zhao_alg1_dp")
    problems = " | ".join(figure_checks.figure_problems(fig))
    assert "in wide" in problems and "tiny" in problems and "he drawn in #123456" in problems, problems
    assert "code name or path in title" in problems, problems
    plt.close(fig)
    fig, ax = plt.subplots(figsize=(plotting.MAX_WIDTH, 3))
    ax.plot([0, 1], [0, 1], color="#123456", label="Standard holdout")  # an arm's name, not its encoding
    assert figure_checks.figure_problems(fig) == [
        "'Standard holdout' drawn without its encoding (plotting.style('standard'))"]
    plt.close(fig)
    fig, ax = plt.subplots(figsize=(plotting.MAX_WIDTH, 3))
    from adaptive_repro.simulation.registries import ARMS

    ax.plot([0, 1], [0, 1], **plotting.style(ARMS.get("zhao_alg1_bdp")), label="Algorithm 1, Bayesian-DP calibration")
    ax.plot([0, 1], [1, 0], **plotting.style("he"), label=plotting.name("he"))
    plotting.legend_below(fig)  # its proxies copy the labels, not the gids: not a problem
    plotting.ring(ax, [0.5], [0.5])
    plotting.verdict_title(fig, "Lemma 1 fails for p ≥ 0.95", "exact tail probabilities")
    assert figure_checks.figure_problems(fig) == []
    plt.close(fig)


def test_ordinal_colours_are_sequential_and_arms_have_one_marker_each():
    import numpy as np

    colours = plotting.ordinal_colors(5)
    lightness = [np.mean(mcolors.to_rgb(c)) for c in colours]
    assert lightness == sorted(lightness), "dark to light in the order of the parameter"
    from adaptive_repro.simulation.registries import ARMS

    markers = [arm.marker for arm in ARMS]
    assert len(set(markers)) == len(markers), "two arms share a marker"
    assert plotting.style(ARMS.get("standard"))["color"] == ARMS.get("standard").color
    from adaptive_repro.simulation.registries import CALIBRATIONS

    assert plotting.style(CALIBRATIONS.get("dp"))["gid"] == "encoding:zhao_alg1_dp"  # a calibration as its arm


def test_legend_below_sits_under_the_panels():
    fig, axes = plotting.pyplot().subplots(1, 2)
    for ax in axes:
        ax.plot([0, 1], [0, 1], label="a line")
    leg = plotting.legend_below(fig, axes)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    top_of_legend = leg.get_window_extent(renderer).y1
    assert all(top_of_legend <= ax.get_tightbbox(renderer).y0 + 1 for ax in axes)  # below tick labels too
    assert len(leg.get_texts()) == 1  # merged by label
    plotting.pyplot().close(fig)


def test_plotting_depends_on_no_simulation_code():
    """Every builder draws through plotting: if it imported the simulation registry (even inside a function), an edit
    of any engine would rerun every figure (tests/workflow/test_provenance.py runs the workflow to show it does not)."""
    from adaptive_repro.pipeline.sources import module_sources

    for module in ("adaptive_repro.report.plotting", "adaptive_repro.outputs.accuracy_figures"):
        assert not [p for p in module_sources(module) if "/simulation/" in p.replace("\\", "/")], module


def test_a_figure_saved_wider_than_the_report_column_is_a_problem(tmp_path):
    from adaptive_repro.foundation.io import save_figure
    from adaptive_repro.report import figure_checks, plotting

    plt = plotting.pyplot()
    for width, problems in ((9.0, 0), (15.0, 1)):  # (bbox tight crops the margins: 15 in saves about 12)
        fig, ax = plt.subplots(figsize=(width, 2))
        ax.plot([0, 1], [0, 1])
        save_figure(fig, tmp_path / f"f{width}.pdf", tmp_path / f"f{width}.png")
        plt.close(fig)
        assert len(figure_checks.saved_problems(tmp_path / f"f{width}.png")) == problems
