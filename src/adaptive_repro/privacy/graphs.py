"""Dependency graphs of records (Zhao 2017, section 2.4, "Representing dependency structure ...").

Records are nodes; a Bayesian network (networkx.DiGraph) is moralized into a Markov network with
``networkx.moral_graph`` (directed edges made undirected, co-parents married); a Markov network
(networkx.Graph) is used as is. Nodes are 0-based integers here; the paper's X_i is node i-1.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported where used: a job that only reads the chain lemmas does not load networkx
    import networkx as nx


def markov_chain_graph(n: int) -> nx.DiGraph:
    """The Bayesian network X_1 -> X_2 -> ... -> X_n (Zhao Fig. 1), nodes 0..n-1."""
    if n < 1:
        raise ValueError(f"chain length must be >= 1, got {n}")
    import networkx as nx

    g = nx.DiGraph()
    g.add_nodes_from(range(n))
    g.add_edges_from((i, i + 1) for i in range(n - 1))
    return g


def moralize(graph: nx.Graph | nx.DiGraph) -> nx.Graph:
    """The Markov network of a dependency graph: moral graph of a Bayesian network, or the Markov network itself.

    Zhao 2017, section 2.4 (Markov quilt): "for a Bayesian network, we moralize it into a Markov network; for a
    Markov network, no action is taken".
    """
    import networkx as nx

    if graph.is_directed():
        if not nx.is_directed_acyclic_graph(graph):
            raise ValueError("a Bayesian network must be a directed acyclic graph")
        return nx.moral_graph(graph)
    return nx.Graph(graph)


def markov_blanket(graph: nx.Graph | nx.DiGraph, node) -> set:
    """Markov blanket of ``node``: its neighbours in the moral graph (parents, children, children's other parents).

    Zhao 2017, section 2.4 ("Markov blanket"). For a chain the blanket of X_i is {X_{i-1}, X_{i+1}}
    (only {X_2} for X_1).
    """
    if node not in graph:
        raise ValueError(f"markov_blanket: node {node!r} is not a node of the graph (nodes: {sorted(graph.nodes)})")
    return set(moralize(graph).neighbors(node))
