"""Markov quilts (Zhao 2017, section 2.4 and Fig. 1; Song et al. 2017).

For node X_i a Markov quilt X_Q is a node set such that every path from X_i to a node of the remote set X_R passes
through X_Q (in the moral graph); the nearby set X_N is the rest, so (Q, N, R) partition the other nodes. For a given
Q we take R maximal: R = the nodes that are not connected to i once Q is removed, N = the nodes still connected to i.
(A smaller R only enlarges N, which never helps Lemma 2.)
"""

from __future__ import annotations

import dataclasses
import itertools
from typing import TYPE_CHECKING, Iterator

from adaptive_repro.privacy.graphs import moralize

if TYPE_CHECKING:  # imported where used (the chain quilts of Lemma 2 need no graph library)
    import networkx as nx


@dataclasses.dataclass(frozen=True)
class Quilt:
    """A Markov quilt of ``node`` with its nearby and remote sets (frozensets of nodes)."""

    node: int
    quilt: frozenset
    nearby: frozenset
    remote: frozenset

    def roles(self, nodes) -> dict:
        """Role of every node: 'node', 'quilt', 'nearby' or 'remote'."""
        out = {}
        for v in nodes:
            if v == self.node:
                out[v] = "node"
            elif v in self.quilt:
                out[v] = "quilt"
            elif v in self.nearby:
                out[v] = "nearby"
            else:
                out[v] = "remote"
        return out


def _check_node(function: str, graph, node) -> None:
    if node not in graph:
        raise ValueError(f"{function}: node {node!r} is not a node of the graph (nodes: {sorted(graph.nodes)})")


def quilt_from_set(graph: nx.Graph | nx.DiGraph, node, quilt) -> Quilt:
    """The triple (Q, N, R) for quilt node set Q of ``node``: R = nodes separated from ``node`` by Q (maximal)."""
    import networkx as nx

    _check_node("quilt_from_set", graph, node)
    g = moralize(graph)
    quilt = frozenset(quilt)
    if node in quilt:
        raise ValueError("a node is not part of its own Markov quilt")
    h = g.subgraph(set(g.nodes) - quilt)
    nearby = frozenset(nx.node_connected_component(h, node) - {node})
    remote = frozenset(set(g.nodes) - quilt - nearby - {node})
    return Quilt(node=node, quilt=quilt, nearby=nearby, remote=remote)


def is_markov_quilt(graph, node, quilt, remote) -> bool:
    """Definition check: every path from ``node`` to a node of ``remote`` meets ``quilt`` (or there is none)."""
    import networkx as nx

    _check_node("is_markov_quilt", graph, node)
    g = moralize(graph)
    h = g.subgraph(set(g.nodes) - set(quilt))
    reach = nx.node_connected_component(h, node)
    return not (set(remote) & reach)


def enumerate_quilts(graph, node, max_size: int | None = None) -> list[Quilt]:
    """All distinct (Q, N, R) triples of ``node`` over all node sets Q (up to ``max_size`` nodes), small graphs only.

    Quilts whose removal leaves some quilt node with no neighbour on i's side are still quilts (the paper's definition
    only asks for separation); duplicates of the same triple are dropped.
    """
    _check_node("enumerate_quilts", graph, node)
    g = moralize(graph)
    others = [v for v in g.nodes if v != node]
    if len(others) > 16:
        raise ValueError("general quilt enumeration is exponential; use chain_quilts for chains")
    max_size = len(others) if max_size is None else max_size
    seen, out = set(), []
    for k in range(0, max_size + 1):
        for q in itertools.combinations(others, k):
            t = quilt_from_set(g, node, q)
            key = (t.quilt, t.nearby, t.remote)
            if key not in seen:
                seen.add(key)
                out.append(t)
    return out


@dataclasses.dataclass(frozen=True)
class ChainQuilt:
    """A Markov quilt of node i (0-based) of a chain of length n, by its distances to the quilt nodes.

    ``left`` = a means quilt node i-a (a >= 1); None means no quilt node on the left (all of X_0..X_{i-1} nearby).
    Same for ``right`` = b (quilt node i+b). Both None is the empty quilt (N = all other nodes, R empty).
    """

    n: int
    node: int
    left: int | None
    right: int | None

    @property
    def nearby_left(self) -> int:
        return self.node if self.left is None else self.left - 1

    @property
    def nearby_right(self) -> int:
        return self.n - 1 - self.node if self.right is None else self.right - 1

    @property
    def nearby_size(self) -> int:
        return self.nearby_left + self.nearby_right

    @property
    def kind(self) -> str:
        sides = (self.left is not None) + (self.right is not None)
        return {2: "two-sided", 1: "one-sided", 0: "empty"}[sides]

    def as_quilt(self) -> Quilt:
        i, n = self.node, self.n
        q = set()
        if self.left is not None:
            q.add(i - self.left)
        if self.right is not None:
            q.add(i + self.right)
        lo = 0 if self.left is None else i - self.left + 1
        hi = n - 1 if self.right is None else i + self.right - 1
        nearby = set(range(lo, hi + 1)) - {i}
        remote = set(range(n)) - q - nearby - {i}
        return Quilt(node=i, quilt=frozenset(q), nearby=frozenset(nearby), remote=frozenset(remote))

    def describe(self) -> str:
        parts = []
        if self.left is not None:
            parts.append(f"X_{{i-{self.left}}}")
        if self.right is not None:
            parts.append(f"X_{{i+{self.right}}}")
        return "{" + ", ".join(parts) + "}" + f" ({self.kind}, |N|={self.nearby_size})"


def chain_quilts(n: int, node: int) -> Iterator[ChainQuilt]:
    """All two-sided, one-sided and the empty Markov quilt of ``node`` in a chain of length n (Zhao Fig. 1).

    Quilts with more than one node on a side are dominated (same N, larger influence) and are not listed.
    """
    if not 0 <= node < n:
        raise ValueError(f"node {node} outside chain of length {n}")
    lefts = [None] + list(range(1, node + 1))
    rights = [None] + list(range(1, n - node))
    for a in lefts:
        for b in rights:
            yield ChainQuilt(n=n, node=node, left=a, right=b)
