"""The one plotting module of the pipeline: the Agg backend, one style, display names and colours, and helpers.

Every figure of every output is drawn through :func:`pyplot` (matplotlib on the Agg backend, with this module's
style applied), so that

* a figure is drawn at the size it is seen: the report shows it at its natural size (1 inch = 96 CSS px), so a
  figure at most :data:`MAX_WIDTH` inches wide fits the report's column at 1,400 px and its text, at least
  :data:`MIN_FONT_PT` pt as drawn, is that size on screen;
* one encoding across the pipeline: colours are the colour-blind-safe Okabe-Ito palette (Okabe & Ito, "Color
  Universal Design", 2008); every arm, data set and method has one colour and marker in every figure
  (:func:`style`: an arm by its registered object's ``color`` and ``marker``, a data set or method by
  :data:`COLORS` and :data:`MARKERS`);
  ordinal parameters (n, p, sigma, ...) get sequential colours (:func:`ordinal_colors`);
* one verdict per figure, in words, as its title (:func:`verdict_title`); points where a claim fails are ringed on
  the data (:func:`ring`);
* names are words (:data:`DISPLAY_NAMES`), not code names;
* legends sit below the panels, outside the data (:func:`legend_below`);
* log axes are labelled 10^k (:func:`log_axis`), and an empty or absent curve is explained on its panel
  (:func:`note`).

The Dwork-style accuracy panels of the classifier experiments are in :mod:`adaptive_repro.outputs.accuracy_figures`.
"""

from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

#: Okabe-Ito colour-blind-safe palette.
OKABE_ITO = {"black": "#000000", "orange": "#E69F00", "sky blue": "#56B4E9", "bluish green": "#009E73",
             "yellow": "#F0E442", "blue": "#0072B2", "vermillion": "#D55E00", "reddish purple": "#CC79A7",
             "grey": "#999999"}
PALETTE = [OKABE_ITO[c] for c in ("blue", "orange", "bluish green", "vermillion", "reddish purple", "sky blue",
                                  "yellow", "black")]

#: Widest figure in inches: shown at its natural size (96 CSS px per inch) it is 960 px wide, the report's figure
#: column at a 1,400 px window (report_html.figure_css_width), so text drawn at n pt is seen at n pt.
MAX_WIDTH = 10.0
#: Smallest text in points, as drawn and therefore as seen in the report (tests render every figure and check).
MIN_FONT_PT = 9.0
#: Text sizes in points.
SIZES = {"text": 10.5, "title": 11, "suptitle": 12, "verdict": 12.5, "tick": 9.5, "legend": 10, "note": 10}

STYLE = {
    "font.size": SIZES["text"], "axes.titlesize": SIZES["title"], "axes.labelsize": SIZES["text"],
    "xtick.labelsize": SIZES["tick"], "ytick.labelsize": SIZES["tick"], "legend.fontsize": SIZES["legend"],
    "figure.titlesize": SIZES["suptitle"], "axes.prop_cycle": matplotlib.cycler(color=PALETTE),
    "axes.grid": True, "grid.alpha": 0.3, "lines.linewidth": 1.8, "legend.frameon": False,
    "figure.dpi": 100, "savefig.dpi": 150, "axes.formatter.use_mathtext": True,
}
matplotlib.rcParams.update(STYLE)

#: Code names -> words, for titles, tick labels and legends.
DISPLAY_NAMES = {
    # (holdout mechanism arms are named and coloured by their registered objects: simulation/registries.py)
    # data sets
    "train": "training", "holdout": "holdout (as reported)", "fresh": "fresh data", "population": "population (exact)",
    # composition methods (He et al. outputs)
    "naive": "naive Tε", "drv": "Dwork–Rothblum–Vadhan", "kairouz": "Kairouz et al. (as He quotes)",
    "he": "He Thm 4 / Cor 2", "he_cor3": "He Cor 3 (as printed)",
    "he_cor3_derived": "He Cor 3, δ'' from its derivation",
    "exact_optimal": "exact optimal ε' (Kairouz–Oh–Viswanath Thm 3.3)", "laplace_pld": "Laplace, PLD accountant",
    # Markov-quilt roles (Zhao Fig. 1)
    "node": "the node X_i", "quilt": "quilt X_Q", "nearby": "nearby X_N", "remote": "remote X_R",
    # generalization and KL bounds He compares with (he-generalization, he-kl)
    "nissim_stemmer": "Nissim–Stemmer", "oneto": "Oneto et al.", "dwork_bound": "Dwork et al., STOC 2015",
    "dwork_rothblum": "Dwork–Rothblum",
}


#: One colour per data set / method / role, the same in every figure (arms are coloured by their objects).
COLORS = {
    # data sets: colours no arm drawn beside them uses (the standard holdout is vermillion, Thresholdout teal; the
    # Bayesian-DP calibration's blue and the Theorem 2 calibration's green never share a figure with accuracy curves)
    "train": "#555555", "holdout": "#7B52AE", "fresh": OKABE_ITO["sky blue"],
    "population": OKABE_ITO["black"],
    "naive": OKABE_ITO["grey"], "drv": OKABE_ITO["orange"], "kairouz": OKABE_ITO["bluish green"],
    "he": OKABE_ITO["blue"], "he_cor3": OKABE_ITO["reddish purple"], "he_cor3_derived": OKABE_ITO["sky blue"],
    "exact_optimal": OKABE_ITO["black"], "laplace_pld": OKABE_ITO["vermillion"], "floor": "#777777",
    "node": OKABE_ITO["vermillion"], "quilt": OKABE_ITO["blue"], "nearby": OKABE_ITO["yellow"],
    "remote": "#dddddd",
    # bounds of the He generalization and KL figures: colours no He figure uses for another method (the Laplace PLD,
    # Corollary 3 rows are table-only); the KL bound of Dwork et al. [20] is Dwork-Rothblum-Vadhan 2010 ("drv")
    "nissim_stemmer": OKABE_ITO["vermillion"], "oneto": OKABE_ITO["reddish purple"], "dwork_bound": "#8B5A2B",
    "dwork_rothblum": "#999933",  # he-kl only: Paul Tol's olive, a hue no other He figure draws
    # roles that recur: reference lines and "does not hold" rings. Quantities of an arm (its budget used, its
    # answered fraction) are drawn in the arm's colour with their own line style, never in a colour of their own.
    "reference": OKABE_ITO["grey"], "violation": OKABE_ITO["black"],
    # zhao-estimated-v's thresholds from estimated V (Paul Tol's teal, purple, pear and green; each row is named on
    # the axis, so colour only repeats the row)
    "v_hat": "#44AA99", "v_hat_max": "#AA4499", "v_hat_order_unknown": "#BBCC33", "v_hat_clusters": "#117733",
}
#: Marker of each data set / method (with :data:`COLORS`: its encoding).
MARKERS = {
    "train": "o", "holdout": "s", "fresh": "^", "population": "",
    "naive": "x", "drv": "v", "kairouz": "D", "he": "o", "he_cor3": "P", "he_cor3_derived": "X",
    "exact_optimal": "*", "laplace_pld": "s", "floor": "",
    "nissim_stemmer": "s", "oneto": "", "dwork_bound": "^", "dwork_rothblum": "h",
    "v_hat": "D", "v_hat_max": "s", "v_hat_order_unknown": "X", "v_hat_clusters": "P",
}
#: Background shading of a region where a bound is vacuous or its hypothesis fails.
SHADE = {"color": OKABE_ITO["vermillion"], "alpha": 0.08, "lw": 0}
#: Where each sequential colour map starts and ends (viridis without its faint yellow end, readable on white).
ORDINAL_RANGE = (0.0, 0.76)


def style(key) -> dict:
    """The encoding of an arm (its registered object, or an Algorithm 1 calibration drawn as its arm), a data set or a
    method (its key in :data:`COLORS`) as plot keywords: colour, marker and a ``gid`` naming the key, by which the
    figure checks (:mod:`adaptive_repro.report.figure_checks`) see that every figure draws it the same way. Arms come as
    objects, never by name: looking a name up would make this module, and so every builder's code, depend on the
    simulation registry (an edit of the sign engine would rerun every figure)."""
    if not isinstance(key, str):
        return {"color": key.color, "marker": key.marker, "gid": f"encoding:{getattr(key, 'arm_name', key.name)}"}
    return {"color": COLORS[key], "marker": MARKERS.get(key, "") or None, "gid": f"encoding:{key}"}


def ordinal_colors(n: int) -> list[str]:
    """``n`` colours of a sequential map (viridis) for an ordinal parameter (n, p, sigma, T, ...): dark for the
    first value, light for the last, so order reads as order."""
    import matplotlib.colors as mcolors

    lo, hi = ORDINAL_RANGE
    cmap = matplotlib.colormaps["viridis"]
    return [mcolors.to_hex(cmap(lo + (hi - lo) * (i / (n - 1) if n > 1 else 0.0))) for i in range(n)]


def verdict_title(fig, verdict: str, subject: str = ""):
    """The figure's one message as its title: ``verdict`` (a sentence in words computed from the claim's numbers, e.g.
    "Lemma 1 fails for p ≥ 0.95") on the first line, ``subject`` (what is plotted, on which data) on the second."""
    return fig.suptitle(verdict if not subject else f"{verdict}\n{subject}", fontsize=SIZES["verdict"])


def ring(ax, x, y, label: str | None = "claim does not hold here", size: float = 170):
    """Ring the points (``x``, ``y``) where a claim fails, on the data: a black ring with a white halo (no curve is
    drawn so, whatever its colour), above every curve, with ``label`` in the legend (None: no legend entry)."""
    import numpy as np

    x, y = np.atleast_1d(np.asarray(x, dtype=float)), np.atleast_1d(np.asarray(y, dtype=float))
    if not len(x):
        return None
    import matplotlib.patheffects as effects

    rings = ax.scatter(x, y, s=size, facecolors="none", edgecolors=COLORS["violation"], linewidths=1.8, zorder=20,
                       label=label or "_ring", gid="encoding:violation", clip_on=False)
    rings.set_path_effects([effects.Stroke(linewidth=3.6, foreground="white"), effects.Normal()])
    return rings


def pyplot():
    """matplotlib.pyplot on the Agg backend, with this module's style applied."""
    return plt


def name(code: str) -> str:
    """The display name of a code name (the code name itself if it has none)."""
    return DISPLAY_NAMES.get(code, code)


def panel_width(n_panels: int, preferred: float = 3.4) -> float:
    """Width of one panel so that ``n_panels`` side by side fit in :data:`MAX_WIDTH`."""
    return min(preferred, MAX_WIDTH / max(1, n_panels))


def panel_grid(n_panels: int, max_cols: int = 3, size=(3.4, 3.0), **kwargs):
    """``n_panels`` panels in rows of at most ``max_cols``, at most :data:`MAX_WIDTH` wide; unused cells hidden.
    Returns (figure, flat list of the ``n_panels`` axes)."""
    ncols = min(max_cols, n_panels)
    nrows = math.ceil(n_panels / ncols)
    w = panel_width(ncols, size[0])
    fig, axes = plt.subplots(nrows, ncols, figsize=(w * ncols, size[1] * nrows), squeeze=False, **kwargs)
    flat = list(axes.flat)
    for ax in flat[n_panels:]:
        ax.set_axis_off()
    return fig, flat[:n_panels]


def legend_below(fig, axes=None, handles=None, labels=None, ncol: int | None = None, rect_top: float = 1.0,
                 **options):
    """One figure legend below all panels, outside the data; entries of ``axes`` merged by label (first wins);
    ``options`` go to matplotlib's ``Figure.legend`` (e.g. a ``handler_map``).

    Lays the figure out (tight_layout) and places the legend under the lowest axes, so it never covers a curve.
    """
    if handles is None:
        found: dict = {}
        axs = axes if axes is not None else fig.axes
        for ax in (axs.flat if hasattr(axs, "flat") else axs):
            for h, lab in zip(*ax.get_legend_handles_labels()):
                if not lab.startswith("_"):
                    found.setdefault(lab, h)
        labels, handles = list(found), list(found.values())
    if not handles:
        fig.tight_layout(rect=(0, 0, 1, rect_top))
        return None
    if ncol is None:
        longest = max(len(str(lab).split("\n")[0]) for lab in labels)
        ncol = max(1, min(len(labels), int(fig.get_figwidth() * 72 / (SIZES["legend"] * 0.55 * longest + 40))))
    fig.tight_layout(rect=(0, 0, 1, rect_top))
    return fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=ncol,
                      bbox_transform=fig.transFigure, frameon=False, **options)


def _plain(x: float, _pos=None) -> str:
    """A number in plain words for titles, legends and notes: 0.001, 0.5, 4, 1000, 1e+06 (not for tick labels)."""
    if x <= 0 or not math.isfinite(x):
        return ""
    e = math.log10(x)
    if -3 <= e < 5:
        return f"{x:g}" if abs(x - float(f"{x:.3g}")) < 1e-12 * max(1.0, x) else f"{x:.3g}"
    mant = x / 10 ** math.floor(e + 1e-9)
    return f"1e{math.floor(e + 1e-9)}" if abs(mant - 1) < 1e-6 else f"{mant:.2g}e{math.floor(e + 1e-9)}"


_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


def power_text(n: float) -> str:
    """A grid n in titles and claim text as a log axis writes it: 10⁵, 3×10⁷ (unicode superscripts)."""
    k = math.floor(math.log10(n) + 1e-9)
    mant = n / 10.0**k
    power = "10" + str(k).translate(_SUPERSCRIPT)
    return power if abs(mant - 1) < 1e-9 else f"{mant:g}×{power}"


def power_of_ten_label(x: float, _pos=None) -> str:
    """A log-axis tick label: 10^k at powers of ten, m×10^k between them (mathtext)."""
    if x <= 0 or not math.isfinite(x):
        return ""
    k = math.floor(math.log10(x) + 1e-9)
    mant = x / 10.0 ** k
    if abs(mant - round(mant)) < 1e-6 and round(mant) == 1:
        return f"$10^{{{k}}}$"
    return f"${mant:.2g}\\times10^{{{k}}}$"


def plain_tick_label(x: float, _pos=None) -> str:
    """A log-axis tick label in plain numbers (0.05, 2, 20, 500) for an axis within [0.01, 10^4) (:func:`log_axis`)."""
    return f"{x:g}" if x > 0 and math.isfinite(x) else ""


def grid_tick_label(x: float, _pos=None) -> str:
    """A log-axis tick label at a grid value: a whole number with thousands separators (16,000) (:func:`grid_axis`)."""
    return f"{x:,.0f}" if x > 0 and math.isfinite(x) else ""


def grid_axis(ax, which: str, values) -> None:
    """A log axis (``which``: "x" or "y") labelled at the grid ``values`` the points lie on, for a grid that does not
    fall on 1, 2, 5 × 10^k (e.g. m doubling from 250): each point is read off its own tick."""
    from matplotlib.ticker import FixedLocator, NullLocator

    axis = ax.xaxis if which == "x" else ax.yaxis
    (ax.set_xscale if which == "x" else ax.set_yscale)("log")
    axis.set_major_locator(FixedLocator(sorted(values)))
    axis.set_major_formatter(FuncFormatter(grid_tick_label))
    axis.set_minor_locator(NullLocator())


def log_axis(ax, which: str = "both", subs=None):
    """Log scale on ``which`` ("x", "y", "both") with tick labels 10^k at every power of ten; an axis that spans less
    than two decades (call after plotting) is also labelled at 2 and 5 times the powers of ten, or at ``subs`` times
    them if given, as plain numbers (1, 2, 5, 10, 20) if it lies within [0.01, 10^4), else as 2×10^k."""
    for axis_name in ("x", "y") if which == "both" else (which,):
        axis = ax.xaxis if axis_name == "x" else ax.yaxis
        if axis.get_scale() != "log":
            (ax.set_xscale if axis_name == "x" else ax.set_yscale)("log")
        lo, hi = sorted(ax.get_xlim() if axis_name == "x" else ax.get_ylim())
        narrow = lo > 0 and math.log10(hi) - math.log10(lo) < 2  # no overflow of hi / lo on a wide axis
        chosen = subs if subs is not None else ((1, 2, 5) if narrow else (1.0,))
        axis.set_major_locator(LogLocator(base=10, subs=chosen, numticks=12))
        plain = narrow and lo >= 0.01 and hi < 1e4
        axis.set_major_formatter(FuncFormatter(plain_tick_label if plain else power_of_ten_label))
        axis.set_minor_formatter(NullFormatter())


def floor_band(axes, floor: float, top: float, text: str, decades: float = 1.2, max_ticks: int = 6) -> float:
    """A broken log y axis for values below ``floor`` (or absent), on panels ``axes`` sharing their y axis: the axis
    runs from ``top`` down to ``floor``, and a grey strip beneath it, cut off by a dashed break line, holds such values
    as markers (never a line diving to a floor); ``text`` names the strip as a tick label.
    Ticks are 10^k from ``floor`` up, every decade or every few so that at most ``max_ticks`` show (call after
    :func:`log_axis`). Returns the y at which to draw in the strip (e.g. zhao-lemma1's tiny exact probabilities,
    zhao-bdp-conversion's infeasible Lemma 3)."""
    import numpy as np
    from matplotlib.ticker import FixedFormatter, FixedLocator

    lo, cut = floor / 10**decades, floor / 10**0.25
    for ax in axes:
        ax.axhspan(lo, cut, color="#ececec", lw=0, zorder=0)
        ax.axhline(cut, color=COLORS["reference"], lw=1.0, ls=(0, (4, 2)), zorder=1)
    k_lo, k_hi = int(np.ceil(np.log10(floor) - 1e-9)), int(np.floor(np.log10(top) + 1e-9))
    step = max(1, int(np.ceil((k_hi - k_lo + 1) / max_ticks)))
    axes[0].set_yticks([10.0**k for k in range(k_hi, k_lo - 1, -step)])
    axes[0].set_ylim(lo, top)
    y = float(np.sqrt(lo * cut))
    axes[0].yaxis.set_minor_locator(FixedLocator([y]))  # the strip's name as a (minor) tick label
    axes[0].yaxis.set_minor_formatter(FixedFormatter([text]))
    axes[0].tick_params(axis="y", which="minor", length=0, labelsize=SIZES["tick"])
    return y


def ceiling_band(axes, top: float, span: float, text: str = "off scale") -> float:
    """A strip above ``top`` on linear y axes ``axes`` (sharing y) for values off the scale: grey, cut off by a
    dashed break line, named ``text`` as a tick label, ``span`` (the axis's data range) setting its height, so that
    off-scale markers sit in it and never read as values at the top (the counterpart of :func:`floor_band`). Returns
    the y at which to draw them."""
    from matplotlib.ticker import FixedFormatter, FixedLocator

    cut, hi = top + 0.04 * span, top + 0.16 * span
    for ax in axes:
        ax.axhspan(cut, hi, color="#ececec", lw=0, zorder=0)
        ax.axhline(cut, color=COLORS["reference"], lw=1.0, ls=(0, (4, 2)), zorder=1)
        ax.set_ylim(top=hi)
    y = (cut + hi) / 2
    axes[0].yaxis.set_minor_locator(FixedLocator([y]))
    axes[0].yaxis.set_minor_formatter(FixedFormatter([text]))
    axes[0].tick_params(axis="y", which="minor", length=0, labelsize=SIZES["tick"])
    return y


def note(ax, text: str, x: float = 0.5, y: float = 0.5, ha: str = "center", va: str = "center", colour=None):
    """Write ``text`` on a panel (axes coordinates), boxed: why a curve is absent ("all answers ⊥", "below 1e-40")."""
    c = colour or OKABE_ITO["black"]
    return ax.text(x, y, text, transform=ax.transAxes, ha=ha, va=va, fontsize=SIZES["note"], color=c, zorder=10,
                   bbox={"facecolor": "white", "edgecolor": c, "alpha": 0.9, "boxstyle": "round,pad=0.3"})


def _drawn_points(ax, per_segment: int = 12):
    """Display coordinates of what is drawn on ``ax``: its lines (densified along each segment) and the vertices of
    its filled bands, so that a note can be put where nothing is drawn."""
    import numpy as np

    pts = []
    for line in ax.lines:
        xy = np.asarray(line.get_xydata(), dtype=float)
        xy = xy[np.isfinite(xy).all(axis=1)] if len(xy) else xy
        if not len(xy):
            continue
        try:
            d = line.get_transform().transform(xy)
        except ValueError:
            continue
        if len(d) > 1:
            t = np.linspace(0, 1, per_segment)[None, :, None]
            d = (d[:-1, None, :] * (1 - t) + d[1:, None, :] * t).reshape(-1, 2)
        pts.append(d)
    for coll in ax.collections:
        for path in coll.get_paths():
            v = np.asarray(path.vertices, dtype=float)
            v = v[np.isfinite(v).all(axis=1)]
            if len(v):
                pts.append(coll.get_transform().transform(v))
    return np.concatenate(pts) if pts else np.zeros((0, 2))


#: Where :func:`note_in_empty` tries to put a note (axes coordinates, alignment), in order of preference.
NOTE_SPOTS = ((0.97, 0.96, "right", "top"), (0.03, 0.96, "left", "top"), (0.97, 0.04, "right", "bottom"),
              (0.03, 0.04, "left", "bottom"), (0.5, 0.5, "center", "center"), (0.97, 0.5, "right", "center"),
              (0.03, 0.5, "left", "center"), (0.5, 0.96, "center", "top"), (0.5, 0.04, "center", "bottom"))


def note_in_empty(ax, text: str, colour=None, spots=NOTE_SPOTS, fontsize=None, candidates=None):
    """:func:`note` at the spot of ``spots`` that covers the fewest drawn points (lines, bands) of ``ax`` (or of the
    first of the axes ``candidates`` where some spot covers none); call it after the figure's layout is final (e.g.
    after :func:`legend_below`). Returns the text artist."""
    renderer = ax.figure.canvas.get_renderer()
    best, best_count = None, None
    for cand in candidates or [ax]:
        pts = _drawn_points(cand)
        for x, y, ha, va in spots:
            t = note(cand, text, x=x, y=y, ha=ha, va=va, colour=colour)
            if fontsize:
                t.set_fontsize(fontsize)
            box = t.get_window_extent(renderer).padded(0.45 * t.get_fontsize() * cand.figure.dpi / 72)  # + frame
            count = int(((pts[:, 0] >= box.x0) & (pts[:, 0] <= box.x1) & (pts[:, 1] >= box.y0)
                         & (pts[:, 1] <= box.y1)).sum()) if len(pts) else 0
            t.remove()
            if best_count is None or count < best_count:
                best, best_count = (cand, x, y, ha, va), count
            if count == 0:
                break
        if best_count == 0:
            break
    cand, x, y, ha, va = best
    t = note(cand, text, x=x, y=y, ha=ha, va=va, colour=colour)
    if fontsize:
        t.set_fontsize(fontsize)
    return t


