"""Side by side: vint-pose against open3d 0.20 (ICP) and a NumPy brute force (ADD-S).

    python -m venv target/venv-vint && target/venv-vint/bin/pip install open3d numpy
    target/venv-vint/bin/python scripts/compare/vint_pose.py

1. ICP agreement: the 500-point asymmetric shape (seeded random directions on a
   tri-axial ellipsoid, semi-axes 8/4/2 cm, with a bump), source = shape moved
   by Rz-ish 12° and 1.5 cm; both libraries run point-to-point and
   point-to-plane (normals from 10 nearest neighbours) with correspondence
   distance 5 cm, ≤ 50 iterations, from the identity. Poses must agree to 1e-6.
2. ICP time on 2.5k / 5k / 10k points (one thread: OMP_NUM_THREADS=1 for open3d).
3. ADD-S of 1,000 pose pairs for 500 / 1k / 2k model points: ours (k-d tree)
   against a NumPy brute force (pairwise distances in chunks); values must agree
   to 1e-12 and the ratio is recorded.
The Rust side is `cargo run --release --example vint_pose_compare -- <dir>`.
"""
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
import numpy as np  # noqa: E402
import open3d as o3d  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]
rng = np.random.default_rng(2024)


def shape(n):
    u = rng.normal(size=(n, 3))
    u /= np.linalg.norm(u, axis=1, keepdims=True)
    a = np.array([1.0, 0.5, 0.3]) / np.linalg.norm([1.0, 0.5, 0.3])
    bump = 1.0 + 0.6 * np.maximum(u @ a, 0.0) ** 3
    return u * np.array([0.08, 0.04, 0.02]) * bump[:, None]


def rot(axis, deg):
    axis = np.asarray(axis, float) / np.linalg.norm(axis)
    k = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    t = np.radians(deg)
    return np.eye(3) + np.sin(t) * k + (1 - np.cos(t)) * k @ k


def pose(r, t):
    m = np.eye(4)
    m[:3, :3], m[:3, 3] = r, t
    return m


def moved(x, m):
    return x @ m[:3, :3].T + m[:3, 3]


def pcd(x, normals=False):
    p = o3d.geometry.PointCloud(o3d.utility.Vector3dVector(x))
    if normals:
        p.estimate_normals(o3d.geometry.KDTreeSearchParamKNN(10))
    return p


def o3d_icp(src, dst, p2pl):
    est = o3d.pipelines.registration.TransformationEstimationPointToPlane() if p2pl else o3d.pipelines.registration.TransformationEstimationPointToPoint()
    crit = o3d.pipelines.registration.ICPConvergenceCriteria(relative_fitness=1e-12, relative_rmse=1e-12, max_iteration=50)
    return o3d.pipelines.registration.registration_icp(pcd(src), pcd(dst, p2pl), 0.05, np.eye(4), est, crit)


def adds_numpy(model, gts, ests):
    out = []
    for g, e in zip(gts, ests):
        a = moved(model, e)
        b = moved(model, g)
        best = np.full(len(a), np.inf)
        for s in range(0, len(b), 500):
            d = np.linalg.norm(a[:, None, :] - b[None, s:s + 500, :], axis=2)
            best = np.minimum(best, d.min(axis=1))
        out.append(best.mean())
    return np.array(out)


def best_of(reps, f):
    best, out = np.inf, None
    for _ in range(reps):
        t = time.perf_counter()
        out = f()
        best = min(best, time.perf_counter() - t)
    return out, best


with tempfile.TemporaryDirectory() as d:
    d = pathlib.Path(d)
    truth = pose(rot([0.3, -0.5, 1.0], 12.0), [0.012, -0.008, 0.005])
    dst = shape(500)
    src = moved(dst, np.linalg.inv(truth))
    np.save(d / "src500.npy", src)
    np.save(d / "dst500.npy", dst)
    for n in (2_500, 5_000, 10_000):
        x = shape(n)
        np.save(d / f"dst{n}.npy", x)
        np.save(d / f"src{n}.npy", moved(x, np.linalg.inv(truth)))
    gts, ests = [], []
    for k in range(1000):
        g = pose(rot(rng.normal(size=3), rng.uniform(0, 180)), rng.normal(size=3) * 0.1)
        gts.append(g)
        ests.append(pose(rot(rng.normal(size=3), rng.uniform(0, 30)), rng.normal(size=3) * 0.02) @ g)
    np.save(d / "gt_poses.npy", np.array(gts))
    np.save(d / "est_poses.npy", np.array(ests))
    for m in (500, 1_000, 2_000):
        np.save(d / f"model{m}.npy", shape(m))
    ours = json.loads(subprocess.run(["cargo", "run", "--quiet", "--release", "--example", "vint_pose_compare", "--", str(d)], cwd=ROOT, check=True, capture_output=True, text=True).stdout)

    print(f"open3d {o3d.__version__}, numpy {np.__version__}")
    for name, p2pl in (("icp500_p2p", False), ("icp500_p2pl", True)):
        r = o3d_icp(src, dst, p2pl)
        diff = np.abs(np.array(ours[name]["pose"]).reshape(4, 4) - r.transformation).max()
        err = np.abs(r.transformation - truth).max()
        print(f"{name}: max |ours − open3d| = {diff:.2e} (open3d vs truth {err:.2e}, ours rmse {ours[name]['rmse']:.2e}, {ours[name]['iterations']} iterations)")
    for n in (2_500, 5_000, 10_000):
        s, t = np.load(d / f"src{n}.npy"), np.load(d / f"dst{n}.npy")
        r, secs = best_of(3, lambda: o3d_icp(s, t, False))
        ratio = ours[f"icp{n}_p2p"]["seconds"] / secs
        diff = np.abs(np.array(ours[f"icp{n}_p2p"]["pose"]).reshape(4, 4) - r.transformation).max()
        print(f"ICP p2p n={n}: ours {ours[f'icp{n}_p2p']['seconds'] * 1e3:.1f} ms, open3d {secs * 1e3:.1f} ms, ratio ours/open3d {ratio:.2f}, pose diff {diff:.1e}")
    for m in (500, 1_000, 2_000):
        model = np.load(d / f"model{m}.npy")
        vals, secs = best_of(1, lambda: adds_numpy(model, gts, ests))
        mine = np.array(ours[f"adds{m}"]["values"])
        ratio = ours[f"adds{m}"]["seconds"] / secs
        print(f"ADD-S m={m} × 1000 poses: ours {ours[f'adds{m}']['seconds'] * 1e3:.1f} ms, numpy brute force {secs * 1e3:.0f} ms, ratio ours/numpy {ratio:.4f} ({1 / ratio:.0f}× faster), max |diff| {np.abs(mine - vals).max():.1e}")
    sys.stdout.flush()
