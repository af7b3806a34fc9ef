"""Side-by-side peer for wl-transformer: networkx's 1-WL hash on the graph atlas.

Runs networkx (pip) on the same vendored file as the Rust crate and prints
the number of non-isomorphic atlas pairs that 1-WL leaves undistinguished
(the runner's check (ii) expects 26), plus a plain-Python 2-FWL timing on
CFI(K4) and networkx's 1-WL time on G(10^4, 5*10^4), 5 rounds, for the
ratios in docs/perf.md.

    python3 scripts/compare/wl_transformer.py
"""
import collections
import gzip
import itertools
import pathlib
import random
import time
import warnings

import networkx as nx

ROOT = pathlib.Path(__file__).resolve().parents[2]


def read_atlas(path):
    graphs, g = [], None
    for line in gzip.open(path, "rt"):
        parts = line.split()
        if not parts:
            continue
        if parts[0] == "GRAPH":
            g = nx.Graph()
            graphs.append(g)
        elif parts[0] == "NODES":
            g.add_nodes_from(range(int(parts[1])))
        else:
            g.add_edge(int(parts[0]), int(parts[1]))
    return graphs


def atlas_pairs():
    warnings.simplefilter("ignore")
    graphs = read_atlas(ROOT / "data/graph-atlas/atlas.dat.gz")
    classes = collections.Counter(
        (g.number_of_nodes(), nx.weisfeiler_lehman_graph_hash(g, iterations=max(1, g.number_of_nodes())))
        for g in graphs
    )
    return len(graphs), sum(c * (c - 1) // 2 for c in classes.values())


def cfi(h, twisted):
    """CFI(H) with the same node order as wl_transformer::named::cfi."""
    edges = sorted(tuple(sorted(e)) for e in h.edges())
    inc = {v: [i for i, e in enumerate(edges) if v in e] for v in sorted(h.nodes())}
    g, nxt, ends = nx.Graph(), 0, {}
    for v in sorted(h.nodes()):
        d = len(inc[v])
        middles = [s for s in range(1 << d) if bin(s).count("1") % 2 == 0]
        first = nxt + len(middles)
        g.add_nodes_from(range(nxt, first + 2 * d))
        for mi, s in enumerate(middles):
            for pos in range(d):
                g.add_edge(nxt + mi, first + 2 * pos + ((s >> pos) & 1))
        for pos, e in enumerate(inc[v]):
            ends[(v, e)] = first + 2 * pos
        nxt = first + 2 * d
    for i, (u, v) in enumerate(edges):
        a, b = ends[(u, i)], ends[(v, i)]
        if twisted and i == 0:
            g.add_edges_from([(a, b + 1), (a + 1, b)])
        else:
            g.add_edges_from([(a, b), (a + 1, b + 1)])
    return g


def fwl2(g):
    """Plain-Python 2-FWL to the stable colouring; returns the number of classes."""
    n = g.number_of_nodes()
    col = {(u, v): (u == v, g.has_edge(u, v)) for u in range(n) for v in range(n)}
    classes = len(set(col.values()))
    while True:
        sig = {
            (u, v): (col[(u, v)], tuple(sorted((col[(w, v)], col[(u, w)]) for w in range(n))))
            for u in range(n)
            for v in range(n)
        }
        ranks = {s: i for i, s in enumerate(sorted(set(sig.values()), key=repr))}
        col = {t: ranks[s] for t, s in sig.items()}
        if len(ranks) == classes:
            return classes
        classes = len(ranks)


def main():
    n, pairs = atlas_pairs()
    print(f"atlas graphs: {n}; 1-WL undistinguished non-isomorphic pairs (networkx {nx.__version__}): {pairs}")
    k4 = nx.complete_graph(4)
    g = cfi(k4, False)
    print(f"CFI(K4): n = {g.number_of_nodes()}, m = {g.number_of_edges()}")
    t = time.perf_counter()
    c = fwl2(g)
    print(f"plain-Python 2-FWL on CFI(K4): {c} classes, {time.perf_counter() - t:.3f} s")
    random.seed(0)
    big = nx.gnm_random_graph(10_000, 50_000, seed=0)
    t = time.perf_counter()
    nx.weisfeiler_lehman_graph_hash(big, iterations=5)
    print(f"networkx 1-WL hash on G(1e4, 5e4), 5 rounds: {time.perf_counter() - t:.3f} s")


if __name__ == "__main__":
    main()
