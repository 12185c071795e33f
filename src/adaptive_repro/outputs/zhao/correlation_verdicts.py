"""zhao-correlation's verdicts in words, from the rows' own validity test (:mod:`.correlation_claims`): where
Algorithm 1 breaks per structure and how, what the thresholds for n/V do, where the script's Thresholdout overfits,
and what each calibration certifies; the figure's titles and legend (:mod:`.correlation_figure`) read them."""

from __future__ import annotations

import pandas as pd

from adaptive_repro import decisions
from adaptive_repro.outputs.zhao.common import BDP_ARM, DP_ARM
from adaptive_repro.outputs.zhao.correlation_claims import (
    ANSWERED_MIN,
    REMEDY_ARMS,
    SCRIPT_ARM,
    _assess,
    _standard_fails,
    _valid,
    protection_status,
)

#: How an arm fails at a point (the start of :func:`_valid`'s reason) -> words for a panel title.
BREAK_WORDS = {"budget": f"< {ANSWERED_MIN:.0%} answered", "overfits": "overfits", "infeasible": "infeasible"}
#: The same in a panel title, where the axis says what the fraction is.
PANEL_BREAK_WORDS = {"budget": f"< {ANSWERED_MIN:.0%}", "overfits": "overfits", "infeasible": "infeasible"}


def first_break(rows: pd.DataFrame) -> tuple[float, str] | None:
    """The smallest V at which an arm's rows (one per V) are not valid (:func:`_valid`, the claims' test) and how it
    fails there (:data:`BREAK_WORDS`' keys: "budget", "overfits", "infeasible"); None if valid at every V."""
    for r in rows.sort_values("V").itertuples():
        ok, why = _valid(r)
        if not ok:
            return float(r.V), next(m for m in BREAK_WORDS if why.startswith(m[:6]))
    return None


def remedy_state(sub: pd.DataFrame) -> tuple[str, float | None]:
    """One structure's arms with a threshold for n/V together, by the claims' own rule (:func:`protection_status`):
    ("fails", the first V where some row is not valid); ("holds", None) where every row is valid with power; else
    ("undecided", None): a pass without power, or an answered fraction within 3 SE of 90%."""
    remedy = sub[sub["mechanism"].isin(REMEDY_ARMS)]
    status, verdicts = protection_status(remedy, sub[sub["mechanism"] == "standard"])
    if status == "does not hold":
        return "fails", min(float(r.V) for r, state, _, _ in verdicts if state == "invalid")
    return ("holds" if status == "holds" else "undecided"), None


def structure_verdict(sub: pd.DataFrame) -> str:
    """One structure's verdict (its answered-fraction panel title when the structures differ): from which V
    Algorithm 1's DP and Bayesian-DP calibrations fail, and what the claims' test says of the arms with a threshold
    for n/V (:func:`remedy_state`); a line per part where they do not fit on one."""
    breaks = {arm: first_break(sub[sub["mechanism"] == arm]) for arm in (DP_ARM, BDP_ARM)
              if (sub["mechanism"] == arm).any()}

    def text(b) -> str:
        return "valid" if b is None else f"{PANEL_BREAK_WORDS[b[1]]} from V = {b[0]:.2g}"

    if breaks and len(set(breaks.values())) == 1:
        parts = [f"Alg. 1 {text(next(iter(breaks.values())))}"]
    else:
        short = {DP_ARM: "DP", BDP_ARM: "BDP"}
        parts = [f"{short[a]} {text(b)}" for a, b in breaks.items()]
    if sub["mechanism"].isin(REMEDY_ARMS).any():
        state, v = remedy_state(sub)
        parts.append(f"n/V fails from V = {v:.2g}" if state == "fails" else f"n/V {state}")
    joined = "; ".join(parts)
    return joined if len(joined) <= PANEL_TITLE_CHARS else "\n".join(parts)  # a quarter of the width: wrap


#: Characters of a bottom-panel verdict on one line (a quarter of the figure's width at the tick font size).
PANEL_TITLE_CHARS = 34


def _dp_breaks(table: pd.DataFrame) -> tuple[dict, dict]:
    """Per structure, where the DP calibration first fails (:func:`first_break`; None: valid at every V), and the
    structures where it fails."""
    structures = dict.fromkeys(table["structure"])
    dp_rows = {s: table[(table["structure"] == s) & (table["mechanism"] == DP_ARM)] for s in structures}
    breaks = {s: first_break(r) for s, r in dp_rows.items() if len(r)}
    return breaks, {s: b for s, b in breaks.items() if b is not None}


def _past_break(table: pd.DataFrame) -> pd.DataFrame:
    """The rows at and beyond the V where the DP calibration first fails, per structure (every row if it never
    fails): where the title and legend report what the calibrations certify and answer."""
    _, broken = _dp_breaks(table)
    if not broken:
        return table
    return pd.concat([table[(table["structure"] == s) & (table["V"] >= v - 1e-9)] for s, (v, _) in broken.items()])


def n_over_v_powered(table: pd.DataFrame) -> bool:
    """Whether the standard holdout fails the validity test of some n/V arm at its point (:func:`_standard_fails`):
    only then can an n/V arm passing it show anything."""
    std = {r.point: r for r in table[table["mechanism"] == "standard"].itertuples()} if "point" in table else {}
    return any(_standard_fails(std.get(getattr(r, "point", None)), r.threshold)
               for r in table[table["mechanism"].isin(REMEDY_ARMS)].itertuples())


def headline(table: pd.DataFrame) -> str:
    """The figure's verdict, the measured answer to the question: from which V correlation breaks DP-calibrated
    Algorithm 1 and how (per structure, :func:`first_break`), in how many structures the arms with a threshold for
    n/V hold, fail or are undecided by the claims' test (:func:`remedy_state`), and where the script's Thresholdout
    overfits; on lines of at most :data:`TITLE_CHARS` characters."""
    n, parts = len(dict.fromkeys(table["structure"])), []
    breaks, broken = _dp_breaks(table)
    if not broken:
        text = (f"Correlation up to V = {table['V'].max():.0f} does not break Algorithm 1 with the DP calibration in "
                f"{len(breaks)} of {n} structures")
    else:
        vs = sorted(v for v, _ in broken.values())
        at = f"V = {vs[0]:.2g}" + ("" if f"{vs[0]:.2g}" == f"{vs[-1]:.2g}" else f"–{vs[-1]:.2g}")
        modes = [m for _, m in broken.values()]
        how = (f"answers < {ANSWERED_MIN:.0%}" if set(modes) == {"budget"} else
               "fails (" + ", ".join(f"{BREAK_WORDS[m]} in {modes.count(m)}" for m in dict.fromkeys(modes)) + ")")
        count = f"all {n}" if len(broken) == n else f"{len(broken)} of {n}"
        text = f"From {at}, DP-calibrated Algorithm 1 (i.i.d. T) {how} in {count} structures"
        if _bdp_breaks_no_later(table, broken):  # the Bayesian-DP calibration fails there too, as soon, same way
            text = f"From {at}, Algorithm 1 (either calibration, i.i.d. T) {how} in {count} structures"
    if table["mechanism"].isin(REMEDY_ARMS).any():
        if n_over_v_powered(table):
            states = [remedy_state(table[table["structure"] == s])[0] for s in dict.fromkeys(table["structure"])]
            counts = [f"{state} in {states.count(state)}" for state in ("holds", "fails", "undecided")
                      if states.count(state)]
            parts.append(f"n/V thresholds (V known): {', '.join(counts)} of {n}")
        else:  # the standard holdout passes the same test everywhere: passing it says nothing
            parts.append("n/V arms untested (no power)")
    parts.append(_script_overfits(table))
    lines = [text]
    naive = _naive_overfits(table)
    if naive:
        lines.insert(0, naive)
    for part in filter(None, parts):  # "; " within a line of at most TITLE_CHARS, else a line of its own
        if len(lines[-1]) + 2 + len(part) <= TITLE_CHARS:
            lines[-1] += f"; {part}"
        else:
            lines.append(part if part.startswith("n/V") else part[0].upper() + part[1:])
    return "\n".join(lines)


def _naive_overfits(table: pd.DataFrame) -> str:
    """The title's line on naive reuse: at how many points the standard holdout's gap is decided above 0
    (:func:`decisions.mean_above`, the rows' rule) and its range in i.i.d. SEs; empty without a standard arm."""
    std = table[table["mechanism"] == "standard"]
    if std.empty or "gap_iid_se_units" not in std:
        return ""
    over = [decisions.mean_above(r.gap_mean, r.gap_se, int(r.replicates), 0.0).state == decisions.HOLDS
            for r in std.itertuples()]
    units = std["gap_iid_se_units"]
    where = "at every V in every structure" if all(over) else f"at {sum(over)} of {len(over)} points"
    return f"The reused holdout overfits {where} ({units.min():.0f}–{units.max():.0f} i.i.d. SE at the largest k)"


def _bdp_breaks_no_later(table: pd.DataFrame, dp_broken: dict) -> bool:
    """Whether, in every structure where the DP calibration fails (``dp_broken``: structure -> (V, how)), the
    Bayesian-DP calibration fails too, the same way, at the same V or before: then the title's verdict is both's."""
    for structure, (v, how) in dp_broken.items():
        rows = table[(table["structure"] == structure) & (table["mechanism"] == BDP_ARM)]
        bdp = first_break(rows) if len(rows) else None
        if bdp is None or bdp[0] > v + 1e-9 or bdp[1] != how:
            return False
    return bool(dp_broken)


#: Characters of one line of the verdict title (the figure's width at the title's font size).
TITLE_CHARS = 112


def _script_overfits(table: pd.DataFrame) -> str:
    """The title's verdict on the Dwork et al. script's Thresholdout (its threshold ignores correlation) where it
    overfits beyond its T (the claims' gap test), each structure with the first V where it does, e.g. "the script's
    Thresholdout overfits beyond its T from V = 8 in attribute chains; from V = 20 in regimes" (the legend names the
    script: Dwork et al.'s); empty where it does not."""
    bad = [(r.structure, r.V) for r in table[table["mechanism"] == SCRIPT_ARM].itertuples()
           if _assess(r)[1].startswith("overfitting")]
    if not bad:
        return ""
    first: dict[str, float] = {}
    for structure, v in bad:
        first[structure] = min(v, first.get(structure, v))
    by_v: dict[str, list[str]] = {}
    for structure, v in sorted(first.items(), key=lambda item: item[1]):
        by_v.setdefault(f"{v:.2g}", []).append(structure.replace("_", " "))
    where = "; ".join(f"from V = {v} in {', '.join(names)}" for v, names in by_v.items())
    return f"the script's Thresholdout overfits beyond its T {where}"


def certified_label(table: pd.DataFrame, arm) -> str:
    """An Algorithm 1 arm's legend entry with the Bayesian-DP level Lemma 2 certifies for it where the DP
    calibration has failed (the range over those points, in words), e.g. "..., DP calibration: certifies only
    ε = 21–355"; the plain display name without certified levels."""
    past = _past_break(table).query("mechanism == @arm.name").dropna(subset=["certified_bdp"])
    levels = past["certified_bdp"]
    if not len(levels):
        return arm.display_name
    lo, hi = levels.min(), levels.max()
    sessions = table["eps_session"].dropna()
    only = "only " if len(sessions) and lo > sessions.max() * (1 + 1e-6) else ""

    def eps(v: float) -> str:  # 1,830 rather than 1.83e+03
        return f"{v:,.0f}" if v >= 100 else f"{v:.3g}"

    where = f" at V ≥ {past['V'].min():.2g}" if only else ""  # below its first failure it certifies the session ε
    return (f"{arm.display_name}: certifies {only}ε = {eps(lo)}" + ("" if eps(lo) == eps(hi) else f"–{eps(hi)}")
            + where)
