"""The claims registry: every output records what the paper claims, what this run measured, and a status.

Each output ID writes its own ``results/claims/<ID>.csv`` (one row per checked claim) through
:func:`write_claims`; the report rule gathers them all into ``results/tables/claims.csv`` and
``results/REPRODUCTION.md`` with :func:`render_reproduction`. Statuses are computed by code, never typed.

A row is a ``paper`` claim (the paper asserts it; ``quote`` holds the paper's own words and ``source`` the theorem,
section or equation), a ``slip`` (a typo or slip in the paper's text: the printed formula or sentence checked against
the one the paper evidently means and uses; not a false theorem) or a ``project`` question (a limitation, a
precondition at the chosen settings, a comparison the paper does not make). Its ``strength`` says whether the check
could have failed (:data:`STRENGTHS`): an algebraic identity or a check true by construction is not evidence.
``code`` names the function that computes the measured value (:func:`code_name`). This module knows no paper:
whatever a report says about one comes from its caller.
"""

from __future__ import annotations

import dataclasses
import os
import re
from typing import Callable, Iterable, Iterator, Sequence

import numpy as np
import pandas as pd

from adaptive_repro.foundation.io import write_csv

#: Allowed statuses. Experiments that re-run a paper's figure are "reproduced" or "differs"; mathematical
#: statements checked on a grid "holds" or "does not hold" (with the first counter-example); "not applicable" when
#: the statement's hypotheses are not met where it was evaluated; "not checked" when no grid point was in range.
STATUSES = ("reproduced", "differs", "holds", "does not hold", "not applicable", "not checked")
KINDS = ("paper", "slip", "project")
#: Statuses that say a claim failed where it was checked.
FAILING_STATUSES = ("does not hold", "differs")
#: How much a row's check can tell: "tested" (numbers decided it: it could have come out the other way), "identity"
#: (algebra or the printed text decides it for every parameter value, e.g. 1 - e^-eps <= eps, or a factor 2 between
#: two printed formulas: the numeric check only guards against coding errors) or "by construction" (the set-up
#: decides it, e.g. a bound evaluated where it is attained, or a parameter solved from the very condition checked).
#: "never turned": the build's measurement (pipeline.strength) found no valid configuration where the verdict of a
#: row the code calls tested turns, and no algebra or set-up is named for it: not evidence either.
STRENGTHS = ("tested", "identity", "by construction", "never turned")
#: Statuses that decide a row (the others say it was not applicable or not checked).
DECIDED_STATUSES = ("reproduced", "differs", "holds", "does not hold")
#: What each status means, as REPRODUCTION.md's legend says it.
STATUS_LEGEND = ("*reproduced* / *differs*: an experiment re-run matches the paper's figure or not; *holds* / *does "
                 "not hold*: a statement checked on a grid or an exact instance (a failure comes with its first "
                 "counter-example); for a slip, *does not hold* confirms the slip; *not applicable*: the statement's "
                 "hypotheses are not met where it was evaluated; *not checked*: no point was in range.")

COLUMNS = ("output_id", "claim_id", "kind", "source", "quote", "claim", "expected", "measured", "status",
           "strength", "strength_evidence", "counterexample", "code")


@dataclasses.dataclass(frozen=True, kw_only=True)
class Claim:
    """One checkable statement (of a paper, or a question of this project) and this run's verdict on it."""

    output_id: str  # catalogue ID of the output
    claim_id: str  # stable short name, unique within the output, e.g. "standard-overfits"
    source: str  # where the paper says it: "<paper>, <theorem, section or equation>"
    claim: str  # the statement in words (for a paper claim: which reading is checked)
    expected: str  # the paper's value or direction
    measured: str  # what this run measured
    status: str  # one of STATUSES
    counterexample: str = ""  # first grid point where it fails, if it does
    kind: str = ""  # "paper", "slip" or "project" (KINDS): required (the default only keeps the positional order)
    strength: str = "tested"  # STRENGTHS: "identity" / "by construction" for checks that cannot fail
    quote: str = ""  # the paper's own words, verbatim (every "paper" row)
    code: str = ""  # the function that computes the measured value, "package.module.function" (code_name)
    strength_evidence: str = ""  # how the strength was measured (pipeline.strength), filled in by the build

    def __post_init__(self):
        if self.status not in STATUSES:
            raise ValueError(f"claim {self.output_id}/{self.claim_id}: status {self.status!r} not in {STATUSES}")
        if self.kind not in KINDS:
            raise ValueError(f"claim {self.output_id}/{self.claim_id}: kind {self.kind!r} not in {KINDS} (every "
                             "claim says whether the paper asserts it or this project asks it)")
        if self.strength not in STRENGTHS:
            raise ValueError(f"claim {self.output_id}/{self.claim_id}: strength {self.strength!r} not in {STRENGTHS}")
        if self.strength in ("identity", "by construction") and not _NAMED_REASON.search(f"{self.claim} "
                                                                                         f"{self.measured}"):
            raise ValueError(f"claim {self.output_id}/{self.claim_id}: a '{self.strength}' row names what makes it so "
                             f"in its claim or measured text ('{self.strength}: <the inequality or set-up>')")
        if self.kind in ("paper", "slip") and not self.quote:
            raise ValueError(f"claim {self.output_id}/{self.claim_id}: a {self.kind} row quotes the paper's words")
        if self.status in ("holds", "does not hold") and _NON_FINITE.search(f"{self.measured} {self.counterexample}"):
            # a numerical failure decides nothing: the row is not checked, and says why
            object.__setattr__(self, "measured", f"{self.measured} [not checked: a measured value is inf or nan, a "
                                                 f"numerical failure at these parameters, not a '{self.status}']")
            object.__setattr__(self, "status", "not checked")
            object.__setattr__(self, "counterexample", "")


#: "identity: <why>" or "by construction (...): <why>": how an untested row names the algebra or set-up that decides it.
_NAMED_REASON = re.compile(r"\b(identity|by construction)\b[^.;:]{0,40}: \S", re.IGNORECASE)
#: A non-finite number as Python or numpy print it, standing alone in a claim's measured text.
_NON_FINITE = re.compile(r"(?<![\w.])[-+]?(?:nan|inf)(?![\w])")


class Verdicts:
    """An output's claims as its figure reads them (rings, titles): by the ID constant or function the builder made
    each claim with (one place per ID), strictly. Asking for an ID the builder did not make is a KeyError naming it
    and the IDs it made, so renaming an ID fails the figure's build, and its tests, instead of silently dropping a
    ring or a title. ``in`` asks whether a claim was made where that depends on the run (e.g. an arm not run)."""

    def __init__(self, claims: Iterable[Claim]):
        self._by_id = {c.claim_id: c for c in claims}

    def __getitem__(self, claim_id: str) -> Claim:
        try:
            return self._by_id[claim_id]
        except KeyError:
            raise KeyError(f"no claim {claim_id!r} among this output's claims {sorted(self._by_id)}") from None

    def __contains__(self, claim_id: object) -> bool:
        return claim_id in self._by_id

    def __iter__(self) -> Iterator[Claim]:
        return iter(self._by_id.values())

    def __len__(self) -> int:
        return len(self._by_id)


def code_name(func: Callable) -> str:
    """The ``code`` column's name of a function: ``package.module.function`` (where it is defined)."""
    return f"{func.__module__}.{func.__qualname__}"


def verdict(ok: bool, kind: str = "experiment") -> str:
    """Map a boolean check to a status word: experiments reproduce/differ, statements hold/do not hold."""
    if kind == "experiment":
        return "reproduced" if ok else "differs"
    if kind == "statement":
        return "holds" if ok else "does not hold"
    raise ValueError(f"unknown claim kind {kind!r}")


@dataclasses.dataclass(frozen=True)
class GridCheck:
    """The verdict of a statement evaluated point by point on a grid."""

    status: str  # "holds", "does not hold" or "not checked" (no point in range)
    n_points: int
    n_fail: int
    counterexample: str  # the first failing point, formatted

    @property
    def measured(self) -> str:
        if self.n_points == 0:
            return "no grid point in range"
        return f"holds at {self.n_points - self.n_fail}/{self.n_points} grid points"


def format_point(row, keys: Sequence[str]) -> str:
    """``k1=v1, k2=v2`` of a table row, floats with 6 significant digits."""
    return ", ".join(f"{k}={row[k]:.6g}" if isinstance(row[k], (float, np.floating)) else f"{k}={row[k]}"
                     for k in keys)


def check_grid(ok, points: pd.DataFrame | None = None, keys: Sequence[str] = (),
               describe: Callable[[int], str] | None = None) -> GridCheck:
    """Evaluate a boolean per grid point: every point true -> "holds"; a false one -> "does not hold" with the
    first false point as counter-example (``describe(i)`` or the ``keys`` of row ``i`` of ``points``); no point at
    all -> "not checked" (a statement checked nowhere is never reported as holding)."""
    ok = np.asarray(ok, dtype=bool).ravel()
    bad = np.flatnonzero(~ok)
    if len(ok) == 0:
        return GridCheck("not checked", 0, 0, "")
    ce = ""
    if len(bad):
        i = int(bad[0])
        ce = describe(i) if describe is not None else (format_point(points.iloc[i], keys) if points is not None
                                                        else f"point {i}")
    return GridCheck(verdict(len(bad) == 0, "statement"), len(ok), len(bad), ce)


def claims_frame(claims: Iterable[Claim]) -> pd.DataFrame:
    """Claims as a tidy table with the registry's columns."""
    rows = [dataclasses.asdict(c) for c in claims]
    frame = pd.DataFrame(rows, columns=list(COLUMNS))
    dup = frame.duplicated(["output_id", "claim_id"])
    if dup.any():
        raise ValueError(f"duplicate claim ids: {frame.loc[dup, ['output_id', 'claim_id']].values.tolist()}")
    return frame


def write_claims(claims: Sequence[Claim], path: str | os.PathLike) -> None:
    """Write one output's claims atomically to ``path`` (``results/claims/<ID>.csv``)."""
    write_csv(claims_frame(claims), path)


def read_claims(paths: Iterable[str | os.PathLike]) -> pd.DataFrame:
    """Concatenate claim files, keeping the registry's column order."""
    frames = [pd.read_csv(p, dtype=str, keep_default_na=False) for p in paths]
    if not frames:
        return pd.DataFrame(columns=list(COLUMNS))
    return pd.concat(frames, ignore_index=True).reindex(columns=list(COLUMNS), fill_value="")


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _plain(text: str) -> str:
    """A cell of this project's plain text (claims, measurements, counter-examples): its ``*`` and ``_`` (eps*,
    b_i, n_*) are characters, not Markdown emphasis. The paper's words are left as extracted (their italics and
    LaTeX)."""
    return _cell(re.sub(r"([*_])", r"\\\1", str(text)))


def _counts(values: pd.Series, order: Sequence[str] = STATUSES) -> str:
    counts = values.value_counts().reindex(list(order), fill_value=0)
    return ", ".join(f"{n} {s}" for s, n in counts.items() if n) or "none"


def run_header(cfg: dict, outputs: list[str], notes: Sequence[str] = (), changed: Sequence[str] = ()) -> str:
    """The lines of REPRODUCTION.md that describe the run: seed, engine, each experiment's size, from the run's own
    recorded config, and the theory settings the run changed from their defaults (``changed``,
    :func:`adaptive_repro.pipeline.catalogue.changed_from_defaults`); then ``notes`` (the caller's remarks on the
    run, e.g. on a data model), one paragraph each."""
    experiments = cfg.get("experiments") or {}
    sizes = []
    for name in outputs:
        block = experiments.get(name)
        if block is None:
            continue
        n = block["n"] if "n" in block else block.get("n_grid")
        d = block.get("d", "—")
        sizes.append(f"`{name}`: n = {n}, d = {d}, {block.get('replicates')} replicates")
    text = (f"Run: seed = {cfg['seed']}, engine = {cfg['engine']}. Outputs of this run: {', '.join(outputs)}. "
            "Files of other outputs in results/ come from earlier runs with other configs (each consistent with its "
            f"own run). Experiments: {'; '.join(sizes) or 'none'}. Theory settings changed from their defaults: "
            f"{'; '.join(f'`{c}`' for c in changed) or 'none'}.")
    return "\n\n".join([text, *notes])


#: The columns of a claims table as REPRODUCTION.md and the report show it: (heading, column of the claims CSV).
CLAIM_TABLE_COLUMNS = (("claim", "claim_id"), ("kind", "kind"), ("source", "source"), ("the paper's words", "quote"),
                       ("checked reading", "claim"), ("expected", "expected"), ("this run", "measured"),
                       ("status", "status"), ("strength", "strength"), ("counter-example", "counterexample"))


def claim_anchor(output_id: str, claim_id: str) -> str:
    """The HTML id of a claim's row in REPRODUCTION.md and the report."""
    return "claim-" + re.sub(r"[^A-Za-z0-9_-]+", "-", f"{output_id}-{claim_id}")


def _shortened(text: str, limit: int = 170) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit - 1].rstrip() + "…"


def _tested_counts(claims: pd.DataFrame) -> str:
    """Of the decided rows, how many numbers decided ("tested") and their statuses; identities and checks true by
    construction are counted apart, since they are not evidence."""
    decided = claims[claims["status"].isin(DECIDED_STATUSES)]
    tested = decided[decided["strength"] == "tested"]
    untested = decided[decided["strength"] != "tested"]
    return (f"Of the {len(decided)} decided rows, {len(tested)} are tested checks that could have come out the other "
            f"way ({_counts(tested['status'])}) and {len(untested)} are not evidence of that kind: decided by algebra "
            f"or by construction, or never turned at any valid configuration tried "
            f"({_counts(untested['strength'], STRENGTHS)}).")


def _strength_cell(row) -> str:
    """The strength column of REPRODUCTION.md: the label and how it was measured."""
    evidence = getattr(row, "strength_evidence", "")
    return f"{row.strength} ({_plain(evidence)})" if evidence else row.strength


def render_reproduction(claims: pd.DataFrame, outputs: dict[str, list[str]], header: str = "") -> str:
    """Render ``results/REPRODUCTION.md``: a summary per output and one row per claim, the paper's words beside
    the verdict; paper claims and project questions are counted separately.

    ``outputs`` maps each output ID that exists in this run to its files (relative to ``results/``).
    """
    lines = ["# Reproduction report", "", "Generated by the pipeline; every status below is computed by code. "
             + STATUS_LEGEND, ""]
    if header:
        lines += [header, ""]
    paper = claims[claims["kind"] == "paper"]
    slips = claims[claims["kind"] == "slip"]
    project = claims[claims["kind"] == "project"]
    lines += [f"Paper claims ({len(paper)}): {_counts(paper['status'])}. {_tested_counts(paper)}", "",
              f"Slips in the papers' text ({len(slips)}; typos and slips where the paper evidently means another "
              f"formula, checked as printed, not false theorems): {_counts(slips['status'])}.", "",
              f"Project questions ({len(project)}; limitations, preconditions at the chosen settings, comparisons "
              f"the papers do not make): {_counts(project['status'])}. {_tested_counts(project)}", ""]
    failing = paper[paper["status"].isin(FAILING_STATUSES)]
    if len(failing):
        lines += [f"**Paper claims that do not hold or differ ({len(failing)})**, one line each (the row has the "
                  "paper's words, the reading checked and the counter-example):", ""]
        lines += [f"- [`{r.output_id}` / `{r.claim_id}`](#{claim_anchor(r.output_id, r.claim_id)}) "
                  f"**{r.status}**: {_plain(_shortened(r.claim))}" for r in failing.itertuples()]
        lines.append("")
    lines += ["| output | files | claims | status |", "|---|---|---|---|"]
    for oid in outputs:
        sub = claims[claims["output_id"] == oid]
        stat = " · ".join(f"{kind}: {_counts(sub.loc[sub['kind'] == kind, 'status'])}" for kind in KINDS
                          if (sub["kind"] == kind).any()) or "no claims"
        files = ", ".join(f"[{f}]({f})" for f in outputs[oid])
        lines.append(f"| `{oid}` | {files} | {len(sub)} | {stat} |")
    lines.append("")
    for oid in outputs:
        sub = claims[claims["output_id"] == oid]
        if sub.empty:
            continue
        lines += [f"## `{oid}`", "", "| " + " | ".join(head for head, _ in CLAIM_TABLE_COLUMNS) + " |",
                  "|" + "---|" * len(CLAIM_TABLE_COLUMNS)]
        for r in sub.itertuples():
            quote = f"“{r.quote}”" if r.quote else ""
            lines.append("| " + " | ".join((
                f'<a id="{claim_anchor(oid, r.claim_id)}"></a>`{r.claim_id}`', r.kind, _plain(r.source),
                _cell(quote), _plain(r.claim), _plain(r.expected), _plain(r.measured), f"**{r.status}**",
                _strength_cell(r), _plain(r.counterexample))) + " |")
        lines.append("")
    return "\n".join(lines)
