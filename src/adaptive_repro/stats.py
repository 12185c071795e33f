"""Aggregation of per-replicate records into tidy tables (mean, population SD, replicates), paired gaps, normal
quantiles."""

from __future__ import annotations

import numpy as np
import pandas as pd

GROUP_COLUMNS = ["experiment", "mechanism", "engine", "k", "dataset"]


def normal_quantile(confidence: float) -> float:
    """z of a two-sided normal interval at ``confidence`` (0.95 -> 1.96): the standard normal quantile at
    1/2 + confidence/2, scipy.special.ndtri (what scipy.stats.norm.ppf computes, without importing scipy.stats)."""
    from scipy import special

    return float(special.ndtri(0.5 + confidence / 2))


#: z of the 95% band of a mean (± Z95 SE) drawn on the experiment figures: normal_quantile(0.95) to the last bit
#: (a test checks it), written out so that importing this module does not import scipy.
Z95 = 1.959963984540054

def ci95_half_width(se, replicates):
    """Half-width of the 95% confidence interval of a mean from its standard error over ``replicates`` runs: Student's
    t quantile with replicates − 1 degrees of freedom times the SE (nan below 2 runs). The uncertainty every experiment
    figure draws (with few replicates, ± 1.96 SE would be too narrow: t = 2.57 at 6 runs, 2.36 at 8)."""
    from scipy import stats as scipy_stats

    runs = np.asarray(replicates, dtype=float)
    quantile = np.where(runs >= 2, scipy_stats.t.ppf(0.975, np.maximum(runs - 1.0, 1.0)), np.nan)
    return quantile * np.asarray(se, dtype=float)


def summarize(records: pd.DataFrame) -> pd.DataFrame:
    """Mean, SD (population SD, ddof = 0, as the Dwork2015 plot), standard error and count per group.

    Also the mean number of attributes the classifiers used (``n_selected_mean``). Missing accuracies (a ``zhao_alg1``
    answer of "bottom") are excluded from mean/sd and counted in ``missing``.
    """
    grouped = records.groupby(GROUP_COLUMNS, sort=True)
    table = grouped["accuracy"].agg(
        mean="mean",
        sd=lambda a: float(np.std(a.dropna(), ddof=0)) if a.notna().any() else np.nan,
        replicates="count",
        missing=lambda a: int(a.isna().sum()),
    ).reset_index()
    table["se"] = table["sd"] / np.sqrt(table["replicates"].clip(lower=1))
    table["n_selected_mean"] = grouped["n_selected"].mean().to_numpy()
    return table


def paired_gap(records: pd.DataFrame, mechanism: str, k: int, a: str = "holdout", b: str = "fresh"):
    """Mean and standard error over replicates of accuracy[a] - accuracy[b] at one (mechanism, k)."""
    sub = records[(records["mechanism"] == mechanism) & (records["k"] == k)]
    wide = sub.pivot(index="replicate", columns="dataset", values="accuracy")  # keeps all-NaN ("bottom") columns
    diff = (wide[a] - wide[b]).dropna()
    if len(diff) < 2:
        return float(diff.mean()) if len(diff) else np.nan, np.nan, len(diff)
    return float(diff.mean()), float(diff.std(ddof=1) / np.sqrt(len(diff))), len(diff)


def paired_gap_table(records: pd.DataFrame, a: str = "holdout", b: str = "fresh", k_min: int = 1) -> pd.DataFrame:
    """(mechanism, k, mean, se, replicates) of :func:`paired_gap` for every mechanism and k >= ``k_min``: the quantity
    the experiments' claims test (k > 0), and the figures' gap row (from k = 0, where nothing is selected yet)."""
    rows = [(mech, int(k), *paired_gap(records, mech, int(k), a, b)) for mech in dict.fromkeys(records["mechanism"])
            for k in sorted(set(records.loc[records["k"] >= k_min, "k"]))]
    return pd.DataFrame(rows, columns=["mechanism", "k", "mean", "se", "replicates"])


def mean_and_se(records: pd.DataFrame, mechanism: str, k: int, dataset: str):
    """Mean and standard error over replicates of one data set's accuracy at one (mechanism, k)."""
    acc = records.loc[(records["mechanism"] == mechanism) & (records["k"] == k) & (records["dataset"] == dataset),
                      "accuracy"].dropna()
    se = float(acc.std(ddof=1) / np.sqrt(len(acc))) if len(acc) > 1 else np.nan
    return float(acc.mean()) if len(acc) else np.nan, se, len(acc)


def concat_checked_chunks(paths, frames, expected_digests: dict[str, str],
                          expected_replicates: dict[str, int] | None = None):
    """Concatenate record chunks (``frames``, read from ``paths``, in order) after checking that every row was
    simulated from the spec the config asks for now (column ``spec_digest``) and, for records, that every replicate of
    every experiment is there exactly once. The digest column is dropped. A mismatch raises ValueError saying what to
    rerun."""
    frame = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=["experiment", "spec_digest"])
    for path, chunk in zip(paths, frames):
        got = set(chunk["spec_digest"].astype(str)) if "spec_digest" in chunk else {"(none)"}
        names = set(chunk["experiment"].astype(str)) if "experiment" in chunk else set()
        wanted = {str(expected_digests.get(name)) for name in names}
        if len(chunk) and got != wanted:
            raise ValueError(f"{path} was simulated from spec digest {sorted(got)}, but the config now asks for "
                             f"{sorted(wanted)}: delete it (or run with --forcerun simulate_chunk) and rerun")
    if expected_replicates is not None:
        for name, replicates in expected_replicates.items():
            values = pd.to_numeric(frame.loc[frame["experiment"] == name, "replicate"], errors="coerce")
            whole = values.dropna()
            got = sorted({int(v) for v in whole if float(v).is_integer()})
            if got != list(range(replicates)) or len(whole) != len(values) or not (whole % 1 == 0).all():
                raise ValueError(f"records of {name}: replicates {got[:5]}... ({len(got)}) but the config asks for "
                                 f"0..{replicates - 1}: rerun its simulate_chunk jobs")
    return frame.drop(columns=["spec_digest"], errors="ignore")


def clopper_pearson(k, n, confidence: float):
    """Two-sided Clopper-Pearson (exact binomial) interval for k successes in n trials, vectorized:
    (Beta(a/2; k, n-k+1), Beta(1-a/2; k+1, n-k)) quantiles with a = 1 - confidence; 0 at k = 0, 1 at k = n. The
    quantiles are scipy.special.betaincinv, the same values as scipy.stats.beta.ppf (a test checks it) without importing
    scipy.stats."""
    from scipy import special

    k = np.asarray(k, dtype=float)
    n = np.asarray(n, dtype=float)
    a = 1.0 - confidence
    with np.errstate(invalid="ignore"):
        low = np.where(k > 0, special.betaincinv(k, n - k + 1, a / 2), 0.0)
        high = np.where(k < n, special.betaincinv(k + 1, n - k, 1 - a / 2), 1.0)
    return low, high


def weighted_slope(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> tuple[float, float]:
    """Weighted least-squares slope of y on x and its standard error (weights = inverse variances of y)."""
    xm = np.sum(w * x) / np.sum(w)
    sxx = np.sum(w * (x - xm) ** 2)
    slope = float(np.sum(w * (x - xm) * y) / sxx)
    return slope, float(np.sqrt(1.0 / sxx))
