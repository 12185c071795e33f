"""Checks that a figure is drawn for the size it is seen and in the pipeline's one encoding (plotting.py's rules):
the build job logs each problem as a warning, tests/unit/outputs/test_figures.py renders every figure of the catalogue
and fails on any, tools/redraw.py prints them."""

from __future__ import annotations

import re

from adaptive_repro.report.plotting import (
    COLORS,
    DISPLAY_NAMES,
    MARKERS,
    MAX_WIDTH,
    MIN_FONT_PT,
    grid_tick_label,
    plain_tick_label,
    power_of_ten_label,
    style,
)

#: Fragments of a file path or code reference that never belong in a figure's title.
CODE_NAME_OR_PATH = ("docs/", "results/", ".py", ".csv", "§", "METHODS")


def encoding_of(key: str) -> tuple[str, str | None]:
    """(colour, marker) of an encoded key (a registered arm's name, a data set, a method) as plotting.style draws it."""
    from adaptive_repro.simulation.registries import ARMS

    s = style(ARMS.get(key) if key in ARMS.names() else key)
    return s["color"], s["marker"]


def _encoded_names() -> dict[str, str]:
    """Display name -> key of every arm and method with an encoding (a curve labelled so must be drawn in it)."""
    from adaptive_repro.simulation.registries import ARMS

    names = {arm.display_name: arm.name for arm in ARMS}
    names.update({DISPLAY_NAMES[key]: key for key in MARKERS if key in DISPLAY_NAMES})
    return names


def saved_problems(png_path) -> list[str]:
    """Problems of a figure as saved (bbox tight, at the save dpi): wider than :data:`MAX_WIDTH` (+0.1 in), so that
    the report would shrink it and its text below :data:`MIN_FONT_PT`."""
    from PIL import Image

    from adaptive_repro.foundation.io import FIGURE_DPI

    width = Image.open(png_path).size[0] / FIGURE_DPI
    return [f"saved {width:.2f} in wide (at most {MAX_WIDTH + 0.1:g})"] if width > MAX_WIDTH + 0.1 else []


def figure_problems(fig) -> list[str]:
    """What keeps ``fig`` from being drawn for the size it is seen and in the pipeline's one encoding, in words (empty:
    none): wider than :data:`MAX_WIDTH`; text smaller than :data:`MIN_FONT_PT`; an artist of an encoded key
    (:func:`style`'s gid) in another colour or marker; a log axis not labelled 10^k (:func:`log_axis`); a code name
    or file path in a title. Needs no drawing (the build job logs these as warnings; the figure tests fail on them)."""
    import matplotlib.colors as mcolors
    from matplotlib.collections import PathCollection
    from matplotlib.lines import Line2D
    from matplotlib.text import Text

    from adaptive_repro.simulation.registries import ARMS

    problems = []
    if fig.get_figwidth() > MAX_WIDTH + 1e-6:
        problems.append(f"figure is {fig.get_figwidth():.1f} in wide (at most {MAX_WIDTH:g})")
    for t in fig.findobj(Text):
        if t.get_visible() and t.get_text().strip() and t.get_fontsize() < MIN_FONT_PT - 1e-6:
            problems.append(f"text {t.get_text()[:30]!r} at {t.get_fontsize():g} pt (at least {MIN_FONT_PT:g})")
    for artist in fig.findobj(lambda a: str(a.get_gid() or "").startswith("encoding:")):
        key = artist.get_gid().split(":", 1)[1]
        if key == "violation" or (key not in COLORS and key not in ARMS.names()):  # a plug-in arm of a test
            continue
        want_colour, want_marker = encoding_of(key)
        if isinstance(artist, Line2D):
            colour, marker = artist.get_color(), artist.get_marker()
        elif isinstance(artist, PathCollection) and len(artist.get_facecolors()):
            colour, marker = artist.get_facecolors()[0], None
        else:
            continue
        if mcolors.to_hex(colour) != mcolors.to_hex(want_colour):
            problems.append(f"{key} drawn in {mcolors.to_hex(colour)}, its colour is {mcolors.to_hex(want_colour)}")
        if marker not in (None, "None", "", " ") and want_marker and marker != want_marker:
            problems.append(f"{key} drawn with marker {marker!r}, its marker is {want_marker!r}")
    legends = [*fig.legends, *(ax.get_legend() for ax in fig.axes if ax.get_legend() is not None)]
    in_legends = {id(a) for legend in legends for a in legend.findobj()}  # proxies copy the label, not the gid
    encoded_names = _encoded_names()
    for artist in fig.findobj(lambda a: isinstance(a, (Line2D, PathCollection)) and id(a) not in in_legends):
        key = encoded_names.get(artist.get_label())
        if key and artist.get_gid() != f"encoding:{key}":
            problems.append(f"{artist.get_label()!r} drawn without its encoding (plotting.style({key!r}))")
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            if axis.get_scale() == "log" and axis.get_visible() and ax.get_visible() and ax.axison:
                formatter = axis.get_major_formatter()
                if getattr(formatter, "func", None) not in (power_of_ten_label, plain_tick_label, grid_tick_label):
                    problems.append(f"log axis of panel {ax.get_title()[:30]!r} not labelled 10^k (log_axis)")
    titles = [fig.get_suptitle()]
    titles += [ax.get_title(loc) for ax in fig.axes for loc in ("left", "center", "right")]
    for title in titles:
        if any(code in title for code in CODE_NAME_OR_PATH) or re.search(r"\b[a-z]+_[a-z_]+\b", title):
            problems.append(f"code name or path in title {title[:50]!r}")
    return problems
