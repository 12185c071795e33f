"""zhao-fig1: Zhao 2017's Fig. 1, a Markov quilt {X_{i-a}, X_{i+b}} of node X_i on a Markov chain with its nearby
and remote sets, drawn with networkx from the project's own quilt code (:mod:`adaptive_repro.privacy.quilts`), and
the rows that check the caption's statements. Parameter: the config block ``theory.zhao.fig1``
(src/adaptive_repro/schemas/theory_zhao.schema.yaml), complete, plus ``seed`` (the output contract of catalogue.py).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from adaptive_repro.foundation.registry import Claim, code_name, verdict
from adaptive_repro.privacy import (
    chain_quilts,
    graphs,
    is_markov_quilt,
    markov_blanket,
    markov_chain_graph,
    quilt_from_set,
    quilts,
)
from adaptive_repro.report.plotting import COLORS, MAX_WIDTH, pyplot, verdict_title

SOURCE = "Zhao 2017"


def fig1_table(params) -> pd.DataFrame:
    """Nodes of Zhao Fig. 1's chain with their role for node X_i's quilt {X_{i-a}, X_{i+b}} (1-based labels);
    ``params`` = the ``theory.zhao.fig1`` block."""
    n, i, a, b = params["n_nodes"], params["node"] - 1, params["a"], params["b"]
    if not (0 <= i - a and i + b <= n - 1):
        raise ValueError(f"theory.zhao.fig1: quilt nodes X_{i - a + 1}, X_{i + b + 1} outside the chain 1..{n}")
    q = quilt_from_set(markov_chain_graph(n), i, {i - a, i + b})
    roles = q.roles(range(n))
    return pd.DataFrame({"node": np.arange(1, n + 1), "label": [f"X_{k + 1}" for k in range(n)],
                         "role": [roles[k] for k in range(n)], "focal_node": i + 1, "a": a, "b": b})




def fig1_verdict(claims: list[Claim]) -> str:
    """The figure's verdict from the claim rows on Zhao's Fig. 1 sets (the paper's rows; the quilt count is a
    project row and not about the figure)."""
    paper = [c for c in claims if c.kind == "paper"]
    if all(c.status == "holds" for c in paper):
        return "Zhao's Fig. 1 reproduced: the quilt separates $X_i$ from its remote set"
    return f"Zhao's Fig. 1 not reproduced: {sum(c.status != 'holds' for c in paper)} of its statements fail"


def fig1_figure(table: pd.DataFrame, verdict: str):
    import networkx as nx

    n = len(table)
    g = markov_chain_graph(n)
    pos = {k: (k, 0.0) for k in range(n)}
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(min(MAX_WIDTH, max(7.0, 0.75 * n)), 2.0))  # at most 10 in: seen at full size
    colors = [COLORS[r] for r in table["role"]]
    nx.draw_networkx_edges(g, pos, ax=ax, arrows=True, arrowstyle="-|>", arrowsize=14, node_size=900)
    nx.draw_networkx_nodes(g, pos, ax=ax, node_color=colors, node_size=900, edgecolors="black")
    from matplotlib.colors import to_rgb

    for k, c in enumerate(colors):  # white on a dark node, black on a light one (relative luminance)
        dark = float(np.dot(to_rgb(c), (0.2126, 0.7152, 0.0722))) < 0.45
        nx.draw_networkx_labels(g, pos, labels={k: f"$X_{{{k + 1}}}$"}, ax=ax, font_size=12,
                                font_color="white" if dark else "black")
    i, a, b = int(table["focal_node"][0]) - 1, int(table["a"][0]), int(table["b"][0])
    handles = [plt.Line2D([], [], marker="o", ls="", ms=10, mfc=COLORS[r], mec="black", label=lab)
               for r, lab in (("node", f"$X_i$ ($i={i + 1}$)"),
                              ("quilt", "Markov quilt $X_{Q_i} = \\{X_{i-a}, X_{i+b}\\}$" + f" ($a={a}$, $b={b}$)"),
                              ("nearby", "nearby set $X_{N_i}$"), ("remote", "remote set $X_{R_i}$"))]
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, 0.36), ncol=2, frameon=False)
    verdict_title(fig, verdict, "a Markov quilt of $X_i$ on a Markov chain")
    ax.set_xlim(-0.6, n - 0.4)
    ax.set_ylim(-0.5, 0.3)
    ax.axis("off")
    return fig


Q_FIG1_SETS = (r"A Markov quilt for node X_i is $X_{Q_i} = \{X_{i-a}, X_{i+b}\}$. The corresponding nearby set X_{N_i} "
               r"and remote set X_{R_i} are $X_{N_i} = \{X_{i-a+1}, \dots, X_{i-1}\} \cup \{X_{i+1}, \dots, "
               r"X_{i+b-1}\}$ and $X_{R_i} = \{X_1, \dots, X_{i-a-1}\} \cup \{X_{i+b+1}, \dots, X_n\}$. To check the "
               r"definition of a Markov quilt, it is straightforward to see that here any path between X_i and a node "
               r"in X_{R_i} has to include at least one node in X_{Q_i} .")
Q_FIG1_BLANKET = (r"If a = 1 and b = 1, the Markov quilt becomes the Markov blanket $X_{M_i} = \{X_{i-1}, X_{i+1}\}$ "
                  r"with the corresponding X_{N_i} being \emptyset .")
Q_FIG1_END = (r"the Markov blanket X_{M_1} of node X_1 is actually $\{X_2\}$ rather than $\{X_0, X_2\}$ since there is "
              r"no node X_0 .")


def fig1_claims(params, table: pd.DataFrame) -> list[Claim]:
    oid = "zhao-fig1"
    n, i, a, b = len(table), int(table["focal_node"][0]) - 1, int(table["a"][0]), int(table["b"][0])
    g = markov_chain_graph(n)
    roles = dict(zip(table["node"] - 1, table["role"]))
    exp_n = set(range(i - a + 1, i)) | set(range(i + 1, i + b))
    exp_r = set(range(0, i - a)) | set(range(i + b + 1, n))
    got_n = {k for k, r in roles.items() if r == "nearby"}
    got_r = {k for k, r in roles.items() if r == "remote"}
    ok1 = got_n == exp_n and got_r == exp_r and is_markov_quilt(g, i, {i - a, i + b}, got_r)
    bl = quilt_from_set(g, i, {i - 1, i + 1})
    ok2 = not bl.nearby and set(bl.quilt) == markov_blanket(g, i)
    ok3 = markov_blanket(g, 0) == {1}
    nq = sum(1 for _ in chain_quilts(n, i))
    src = f"{SOURCE}, Fig. 1 caption"
    return [
        Claim(output_id=oid, claim_id="fig1-sets", source=src,
              claim="for quilt {X_{i-a}, X_{i+b}}: N = X_{i-a+1..i-1} u X_{i+1..i+b-1}, "
                    "R = X_{1..i-a-1} u X_{i+b+1..n}, and every path from X_i to R meets the quilt",
              expected="N and R as in the caption",
              measured=f"N = {sorted(k + 1 for k in got_n)}, R = {sorted(k + 1 for k in got_r)} "
                       f"(n={n}, i={i + 1}, a={a}, b={b}) from networkx separation; identity: on a chain the "
                       "separation sets are these intervals for every n, i, a, b",
              status=verdict(ok1, "statement"), counterexample="" if ok1 else "sets differ", kind="paper",
              quote=Q_FIG1_SETS, code=code_name(quilts.quilt_from_set), strength="identity"),
        Claim(output_id=oid, claim_id="fig1-blanket", source=src,
              claim="a = b = 1 gives the Markov blanket {X_{i-1}, X_{i+1}} with empty nearby set",
              expected="N = {}", measured=f"N = {sorted(bl.nearby)}, quilt = blanket: {ok2}; identity: a chain "
                                          "node's two neighbours separate it from every other node",
              status=verdict(ok2, "statement"), kind="paper", quote=Q_FIG1_BLANKET,
              code=code_name(quilts.quilt_from_set), strength="identity"),
        Claim(output_id=oid, claim_id="fig1-end-blanket", source=src, claim="the Markov blanket of X_1 is {X_2}",
              expected="{X_2}", measured=f"{{X_{', X_'.join(str(k + 1) for k in sorted(markov_blanket(g, 0)))}}}"
                                         "; identity: X_1's only neighbour in a chain is X_2, for every n",
              status=verdict(ok3, "statement"), kind="paper", quote=Q_FIG1_END,
              code=code_name(graphs.markov_blanket), strength="identity"),
        Claim(output_id=oid, claim_id="fig1-many-quilts",
              source="this project (enumeration of the quilts of a chain node)",
              claim="node X_i of a chain of n nodes has i(n-i+1) Markov quilts (two-sided, one-sided, empty), so "
                    "Lemma 2's max over quilts has many candidates",
              expected="i(n-i+1)",
              measured=f"{nq} quilts of X_{i + 1} in a chain of {n} (i(n-i+1) = {(i + 1) * (n - i)}); identity: a "
                       "quilt is a choice of a left end (i ways, none included) and a right end (n-i+1 ways), and "
                       "the schema keeps n >= 3, so there are at least two",
              status=verdict(nq == (i + 1) * (n - i) and nq > 1, "statement"), kind="project",
              code=code_name(quilts.chain_quilts), strength="identity"),
    ]


def build(output_id: str, params: dict, inputs: dict):
    """(table, figure, claims) of zhao-fig1 (the output contract of catalogue.py)."""
    if output_id != "zhao-fig1":
        raise ValueError(f"{__name__} does not build {output_id!r}")
    table = fig1_table(params)
    claims = fig1_claims(params, table)
    return table, fig1_figure(table, fig1_verdict(claims)), claims
