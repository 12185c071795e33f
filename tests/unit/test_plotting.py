"""The one plotting module: every mechanism has words and a colour, nothing else sets the backend, ticks are plain."""

from __future__ import annotations

from pathlib import Path

import matplotlib.colors as mcolors

from adaptive_repro import plotting

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
    for path in sorted((SRC / "outputs").glob("*.py")):
        text = path.read_text()
        assert "matplotlib.use(" not in text, path.name
        assert "get_cmap(" not in text and "plt.cm." not in text and '"tab:' not in text, path.name


def test_plain_log_tick_labels():
    fig, ax = plotting.pyplot().subplots()
    ax.plot([1, 4, 1000], [1e-6, 3, 40])
    plotting.plain_log_axis(ax)
    fig.canvas.draw()
    labels = [t.get_text() for t in ax.get_xticklabels() + ax.get_yticklabels() if t.get_text()]
    assert labels and not any("times" in lab or "^" in lab or "×" in lab for lab in labels), labels
    assert "1000" in labels and "1e-6" in labels, labels
    plotting.pyplot().close(fig)


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
