"""Check that the ``quote`` cells of a claims table occur in the papers' text extractions.

Usage: python tools/check_quotes.py CLAIMS_CSV PAPER_TXT [PAPER_TXT ...] [--json REPORT]

A quote is split at omission marks ("…", "...", "[...]"); every fragment must occur in one of the papers.
A fragment is *exact* if it occurs after a strict normalisation (NFKC, straight quotes, '-' for dashes, no soft
hyphens or line-break hyphenation, single spaces, lower case); *loose* if it occurs only after also dropping
LaTeX markup and spaces and spelling Greek letters and symbols as LaTeX names (ε, \\epsilon, \\varepsilon ->
epsilon); *pieces* if not, but each of its prose and $formula$ pieces is found (an extraction may garble a formula
that another prints cleanly); else NOT FOUND, and the most similar passage of the papers is printed verbatim.
A quote's status is its worst fragment's. A loose match names the first paper (in command-line order) holding
it: list the best extraction first. Exit status 1 if any quote is NOT FOUND.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
import unicodedata
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass
from difflib import SequenceMatcher
from pathlib import Path

import pandas as pd

Mapped = tuple[str, list[int]]  # normalised text, and for each of its characters the offset in the original
Repl = str | Callable[[re.Match[str]], str]

# 000/003 (HTML-to-text) give each formula rendered, as MathML (math-alphanumeric letters) and as LaTeX, glued:
# "eεsuperscript𝑒𝜀e^{\\varepsilon}". The loose view keeps only the LaTeX, which quotes copy.
MATHML = r"(\S*[\U0001D400-\U0001D7FF])((?:absent|[′″‴])*)(\d*)(?=(\S?))"
OMISSION = re.compile(r"\[\s*(?:\.\.\.|…)\s*\]|…|\.\.\.")
MATH = re.compile(r"(\$\$.*?\$\$|\$.*?\$)")  # formula pieces of a quote, kept by the split
STRICT: list[tuple[str, Repl]] = [
    (r"\u00ad(?:[ \t]*\n\s*)?", ""),  # soft hyphens (and the line break after one)
    (r"[‘’‚‛]", "'"), (r"[“”„‟]", '"'), (r"[‐‑‒–—―−]", "-"),
    (r"(?<=[^\W\d_])-[ \t]*\n\s*(?=[^\W\d_])", ""),  # hyphenation at a line break
    (r"\s+", " "),
]
SYMBOLS = dict(zip("αβγδεζηθικλμνξπρστυφχψω", "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu "
                   "xi pi rho sigma tau upsilon phi chi psi omega".split())) | {
    "≤": "leq", "≥": "geq", "∈": "in", "∉": "notin", "⊥": "perp", "√": "sqrt", "·": "cdot", "⋅": "cdot",
    "×": "times", "∞": "infty", "→": "rightarrow", "⇒": "rightarrow", "≠": "neq", "≈": "approx", "∼": "sim",
    "∑": "sum", "∏": "prod", "∪": "cup", "∩": "cap", "∅": "emptyset", "∥": "|", "′": "'", "″": "''", "⋯": "...",
    "∂": "partial", "∇": "nabla", "⊂": "subset", "⊆": "subseteq", "∀": "forall", "∃": "exists", "±": "pm"}
ALIASES = {"varepsilon": "epsilon", "le": "leq", "ge": "geq", "leqslant": "leq", "geqslant": "geq", "vartheta": "theta",
           "varphi": "phi", "varrho": "rho", "varsigma": "sigma", "ldots": "...", "dots": "...", "cdots": "...",
           "prime": "'", "to": "rightarrow", "implies": "rightarrow", "ell": "l", "mid": "|", "vert": "|"}
FORMATTING = set("mathrm mathcal mathbb mathbf mathit mathsf boldsymbol bm text textit textbf textrm operatorname "
                 "left right big bigl bigr bigg biggl biggr displaystyle textstyle scriptstyle limits nolimits".split())
LOOSE: list[tuple[str, Repl]] = [
    (r"\\[,;:! ]", ""),  # spacing commands
    (r"\\([a-z]+)", lambda m: "" if m[1] in FORMATTING else ALIASES.get(m[1], m[1])),
    ("[" + "".join(SYMBOLS) + "]", lambda m: SYMBOLS[m[0]]),
    (r"[\s$\\{}^_*~&]", ""),
    (r"(?<=[^\W\d_])-(?=[^\W\d_])", ""),  # compound hyphens (and line-break hyphens kept as real ones)
]
RANK = {"exact": 0, "loose": 1, "pieces": 2, "NOT FOUND": 3}


def substitute(m: Mapped, pattern: str, repl: Repl) -> Mapped:
    """re.sub on a mapped text; a replacement maps to the start of what it replaces, its last character to the end."""
    text, idx = m
    out: list[str] = []
    new: list[int] = []
    pos = 0
    for mt in re.finditer(pattern, text):
        r = repl(mt) if callable(repl) else repl
        out += [text[pos:mt.start()], r]
        new += idx[pos:mt.start()] + [idx[mt.start()]] * min(len(r), 1) + [idx[mt.end() - 1]] * (len(r) - 1)
        pos = mt.end()
    return "".join(out) + text[pos:], new + idx[pos:]


def drop_mathml(m: re.Match[str]) -> str:
    """Replacement of a rendered+MathML run: the digits after it that start the LaTeX (iff the rendered formula
    starts like the LaTeX then does) and any opening bracket it leaves unclosed (it precedes the formula)."""
    head, digits, nxt = m[1], m[3], m[4]
    opened = "".join(o * (head.count(o) - head.count(c)) for o, c in ("()", "[]"))
    first = head[len(opened):len(opened) + 1]
    k = next((k for k in range(len(digits) + 1) if (digits[k:] + nxt)[:1] == first), len(digits))
    return opened + digits[k:]


def unicode_lower(m: Mapped) -> Mapped:
    """NFKC and lower case, one character (with its combining marks) at a time to keep the offset map."""
    chars: list[str] = []
    idx: list[int] = []
    for mt in re.finditer(r".[\u0300-\u036f\u20d0-\u20ff]*", m[0], re.S):
        s = unicodedata.normalize("NFKC", mt[0]).lower()
        chars.append(s)
        idx += [m[1][mt.start()]] * len(s)
    return "".join(chars), idx


def normalise(raw: str) -> tuple[Mapped, Mapped]:
    """The strict and the loose normalisation of ``raw``, each with its offset map into ``raw``."""
    ident: Mapped = (raw, list(range(len(raw))))
    strict, loose = unicode_lower(ident), unicode_lower(substitute(ident, MATHML, drop_mathml))
    for pattern, repl in STRICT:
        strict, loose = substitute(strict, pattern, repl), substitute(loose, pattern, repl)
    for pattern, repl in LOOSE:
        loose = substitute(loose, pattern, repl)
    return strict, loose


@dataclass
class Paper:
    """One paper's text and its two normalisations."""
    name: str
    raw: str
    strict: Mapped
    loose: Mapped

    def verbatim(self, a: int, b: int, view: str = "loose") -> str:
        """The original text behind positions [a, b) of a normalised view (widened over LaTeX markup), one line."""
        idx = getattr(self, view)[1]
        start, end = idx[a], idx[b - 1] + 1
        start -= len(re.search(r"(?:\\[A-Za-z]+\{?|[{$])*$", self.raw[max(0, start - 40):start])[0])
        end += len(re.match(r"[}$]*", self.raw[end:])[0])
        return " ".join(self.raw[start:end].split())


@dataclass
class Fragment:
    """The check of one quote fragment."""
    fragment: str
    status: str
    file: str = ""
    similarity: float = 1.0
    passage: str = ""


def best_window(frag: str, text: str, k: int = 8) -> tuple[float, int, int]:
    """The window of ``text`` most similar to ``frag`` (both loose-normalised) as (ratio, start, end).

    Candidate starts are voted for by the fragment's rarer k-grams; without any, by a quick_ratio sliding window."""
    n, k = len(frag), min(k, len(frag))
    votes: Counter[int] = Counter()
    for o in range(0, n - k + 1, max(1, (n - k) // 60)):
        hits = [mt.start() for mt in re.finditer(re.escape(frag[o:o + k]), text)]
        for h in hits if len(hits) <= 50 else []:
            votes[(h - o) // 16] += 1
    starts = [b * 16 for b, _ in votes.most_common(25)]
    if not starts:
        step = max(1, n // 4)
        ranked = sorted(range(0, max(1, len(text) - n + 1), step),
                        key=lambda s: -SequenceMatcher(None, frag, text[s:s + n], autojunk=False).quick_ratio())
        starts = ranked[:25]
    best = (0.0, 0, 0)
    for s in starts:
        lo, hi = max(0, s - n // 4 - 16), min(len(text), s + n + n // 4 + 16)
        blocks = [b for b in SequenceMatcher(None, frag, text[lo:hi], autojunk=False).get_matching_blocks()
                  if b.size >= 3]
        if blocks:
            a, b = lo + blocks[0].b, lo + blocks[-1].b + blocks[-1].size
            r = SequenceMatcher(None, frag, text[a:b], autojunk=False).ratio()
            best = max(best, (r, a, b), key=lambda t: t[0])
    return best


def check_fragment(frag: str, papers: list[Paper]) -> Fragment:
    """Find one fragment: exactly, loosely, or else its closest passage."""
    (strict, _), (loose, _) = normalise(frag)
    strict = strict.strip()
    for p in papers:
        if (pos := p.strict[0].find(strict)) >= 0:
            return Fragment(frag, "exact", p.name, 1.0, p.verbatim(pos, pos + len(strict), "strict"))
    for p in papers:
        if (pos := p.loose[0].find(loose)) >= 0:
            return Fragment(frag, "loose", p.name, 1.0, p.verbatim(pos, pos + len(loose)))
    pieces = [x for x in MATH.split(frag) if normalise(x)[1][0].strip()]
    if len(pieces) > 1 and all(check_fragment(x, papers).status != "NOT FOUND" for x in pieces):
        return Fragment(frag, "pieces", "several", 1.0, "every prose and formula piece found (in different "
                        "extractions: each prints prose or formulas cleanly, not both)")
    best = Fragment(frag, "NOT FOUND", similarity=0.0)
    for p in papers:
        r, a, b = best_window(loose, p.loose[0])
        if r > best.similarity:
            best = Fragment(frag, "NOT FOUND", p.name, round(r, 3), p.verbatim(a, b))
    return best


def main(argv: list[str] | None = None) -> int:
    """Check every quote of the claims table against the papers; print and optionally write a report."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("claims", type=Path, help="claims CSV (e.g. results/tables/claims.csv)")
    ap.add_argument("papers", type=Path, nargs="+", help="paper text extractions, best extraction first")
    ap.add_argument("--json", type=Path, metavar="REPORT", help="also write a machine-readable report here")
    args = ap.parse_args(argv)
    claims = pd.read_csv(args.claims, dtype=str, keep_default_na=False)
    if not {"output_id", "claim_id", "quote"} <= set(claims.columns):
        ap.error(f"{args.claims}: needs the columns output_id, claim_id and quote")
    papers = [Paper(f.name, raw, *normalise(raw)) for f in args.papers
              for raw in [f.read_text(encoding="utf-8", errors="replace")]]
    cache: dict[str, list[Fragment]] = {}
    rows = []
    for row in claims.itertuples(index=False):
        if not row.quote.strip():
            continue
        if row.quote not in cache:
            frags = [f.strip() for f in OMISSION.split(row.quote)]
            cache[row.quote] = [check_fragment(f, papers) for f in frags if normalise(f)[1][0]]
        frags = cache[row.quote]
        status = max((f.status for f in frags), key=RANK.__getitem__, default="exact")
        rows.append({"output_id": row.output_id, "claim_id": row.claim_id, "quote": row.quote, "status": status,
                     "fragments": [asdict(f) for f in frags]})
    counts = Counter(r["status"] for r in rows)
    summary = (f"{len(rows)} quotes: {counts['exact']} exact, {counts['loose']} loose, {counts['pieces']} in pieces, "
               f"{counts['NOT FOUND']} not found")
    print(summary)
    for r in rows:
        if r["status"] != "exact":
            bad = [f for f in r["fragments"] if f["status"] != "exact"]
            detail = " | ".join(f"[{f['file']} sim={f['similarity']:.2f}] {f['fragment']!r} -> {f['passage']!r}"
                                for f in bad)
            print(f"{r['status']:9}  {r['output_id']}/{r['claim_id']}: {detail}")
    if args.json:
        args.json.write_text(json.dumps({"summary": summary, "quotes": rows}, indent=1, ensure_ascii=False) + "\n",
                             encoding="utf-8")
    return 1 if counts["NOT FOUND"] else 0


if __name__ == "__main__":
    sys.exit(main())
