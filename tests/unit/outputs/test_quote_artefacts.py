"""No quote takes an extraction artefact for the paper's words. The cleanest text extraction of Zhao 2017 prints
Theorem 2's order as ln(m/B) and Lemma 3's implication as an equivalence ("\\iff"), where the paper's LaTeX source
(the HTML extraction) has ln(m/beta) and "\\Leftarrow" (eps'-DP implies eps-Bayesian DP, not the converse)."""
import importlib
import pkgutil

import adaptive_repro.outputs

ARTEFACTS = (r"\frac{m}{B}", "ln(m/B)", "ln m/B", r"\iff", "⟺")


def quotes():
    """(module.name, text) of every quote constant of the output builders (``Q_*`` strings and ``QUOTES`` dicts)."""
    for info in pkgutil.walk_packages(adaptive_repro.outputs.__path__, prefix="adaptive_repro.outputs."):
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if name.startswith("Q_") and isinstance(value, str):
                yield f"{info.name}.{name}", value
            elif name == "QUOTES" and isinstance(value, dict):
                yield from ((f"{info.name}.QUOTES[{k!r}]", v) for k, v in value.items() if isinstance(v, str))


def test_no_quote_copies_an_extraction_artefact():
    found = list(quotes())
    assert len(found) > 50, "the quote constants were not found"
    bad = [(name, a) for name, text in found for a in ARTEFACTS if a in text]
    assert not bad, f"quotes holding an extraction artefact instead of the paper's words: {bad}"
