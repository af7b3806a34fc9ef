#!/usr/bin/env python3
"""fair-memory side by side with the official tabular code itself
(praal/remembering-to-be-fair, ``ql.py`` + ``envs/donut.py``, pinned commit
below), run unmodified from a checkout under the target directory, on the
runner's headline setting.

Set-up, once (offline: any clone or archive of the pinned commit will do; the
official code is not copied into this repository):

    T=${CARGO_TARGET_DIR:-target}
    python3 -m venv $T/venv-fair-memory
    $T/venv-fair-memory/bin/pip install numpy==1.26.4 gym==0.26.2 matplotlib
    git clone https://github.com/praal/remembering-to-be-fair $T/peers/rtbf-git
    mkdir -p $T/peers/remembering-to-be-fair
    git -C $T/peers/rtbf-git archive 0fc2e3bdac0ef82f7c4f47212775b0506920fe9b \\
        | tar -x -C $T/peers/remembering-to-be-fair

One command:

    $T/venv-fair-memory/bin/python scripts/compare/fair_memory.py

Setting (the runner's ``fair-memory`` headline at the quick budget): Donut,
N = 3 people, each present with probability p = 0.8 at every step, T = 12,
α = 0.1, γ = 0.99, per-(s, m) ε from 1, ×0.95 per exploration while > 0.2;
FairQCM (official ``-cf True``: its window ∏ᵢ{mᵢ, mᵢ + 1}) and the Full
(``-sm compact``), Min (``-sm reset``) and Reset (``-sm equal-reset``)
memories without counterfactuals; 20 seeds × 4000 episodes.

How the official code is driven: ``ql.run_Q_learning`` is called as is, with
the module globals ``fair_env`` (the official ``Donut``, p = [0.8]·3) and an
``args`` namespace set as its ``__main__`` block would (typed booleans: the
official ``-cf`` is ``argparse type=bool``). Python's ``random`` (the
environment) and ``np.random`` (ε-greedy, tie-breaking; unseeded in the
official script) are seeded per run. ``ql.evaluate`` (one sampled greedy
rollout after every episode) is wrapped: it still runs, so the random streams
are the official ones, and every ``--eval-every`` episodes the wrapper also
computes the exact expected NSW sum (γ = 1) of the official greedy policy
π(mask, m) (uniform over actions within 1e-5 of the max, the official
``argmax_greedy``) by backward induction over (t, mask, counts, memory
offset). The optimum is computed here the same way with max over actions on
(t, mask, counts) and compared with the crate's DP. "Episodes to within 1%"
is the first checkpoint from which the greedy value stays ≥ 0.99·optimum,
runs that never get there counted as episodes + eval_every, as in the runner.

Ours: ``cargo run --release --example fair_memory_official`` (same setting,
JSON). Time: CPU time per training episode, p = 0.8, with and without the
counterfactual window, median of 5: the official loop by
``time.process_time()`` with ``ql.evaluate`` replaced by a no-op (training
only), ours by ``/usr/bin/time -f %U`` around the example's ``--time`` mode
(training only, the process start-up included).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import multiprocessing
import os
import random
import subprocess
import sys
import tempfile
import time
import types
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
OFFICIAL_COMMIT = "0fc2e3bdac0ef82f7c4f47212775b0506920fe9b"  # code identical to 637163c
N, T, P, LAM, TIE = 3, 12, 0.8, 1e-4, 1e-5
MODES = [  # label (as in the runner), official -sm, counterfactuals
    ("FairQCM (window w=2)", "compact", True),
    ("Full memory", "compact", False),
    ("Min memory", "reset", False),
    ("Reset memory", "equal-reset", False),
]


def target_dir() -> Path:
    env = os.environ.get("CARGO_TARGET_DIR")
    return Path(env) if env else ROOT / "target"


# ---------------------------------------------------------------- exact evaluation
R = T + 1
CODES = R**N
DIGITS = np.array([[(c // R**i) % R for i in range(N)] for c in range(CODES)])  # counts of each code
MASKS = 1 << N
BITS = np.array([[(mk >> i) & 1 for i in range(N)] for mk in range(MASKS)])
PMASK = np.prod(np.where(BITS == 1, P, 1.0 - P), axis=1)  # P(mask) per step
OFFS = T // N + 1  # memory offset c (m = counts − c·1), c ≤ T/N
NSW = np.sum(np.log(DIGITS + 1.0 + LAM), axis=1)  # NSW of each count vector (official λ)


def _next_code(a: int) -> np.ndarray:
    """Code of counts + e_a (kept in range; out-of-range codes are unreachable)."""
    return np.where(DIGITS[:, a] < T, np.arange(CODES) + R**a, np.arange(CODES))


NEXT = [_next_code(a) for a in range(N)]


def _offset_after(mode: str, code2: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Memory offset after the counts become code2: Full 0, Min min(u), Reset
    u₀ when all counts are equal (the official equal-reset zeroes m then)."""
    d = DIGITS[code2]
    if mode == "compact":
        return np.zeros_like(c)
    if mode == "reset":
        return np.minimum(d.min(axis=-1), OFFS - 1)
    equal = d.min(axis=-1) == d.max(axis=-1)
    return np.where(equal, np.minimum(d[..., 0], OFFS - 1), c)


def exact_value(q: np.ndarray | None, mode: str) -> float:
    """E[Σₜ NSW(uₜ)·present] (γ = 1) of the official greedy policy on Q
    (q = None: the optimum, max over actions, policy on (t, mask, counts)).
    Backward induction over t = T − 1, …, 0 on (mask, counts code, memory
    offset c) arrays; unreachable entries are computed and never used.
    O(T·2ᴺ·(T + 1)ᴺ·(T/N)·N)."""
    codes = np.arange(CODES)[:, None] * np.ones(OFFS, dtype=int)[None, :]  # (CODES, OFFS)
    cs = np.ones(CODES, dtype=int)[:, None] * np.arange(OFFS)[None, :]
    mem = DIGITS[codes] - cs[..., None]  # memory counts, (CODES, OFFS, N)
    valid = (mem >= 0).all(axis=-1)
    memcode = np.where(valid, (np.clip(mem, 0, T) * (R ** np.arange(N))).sum(axis=-1), 0)
    nxt = [NEXT[a][codes] for a in range(N)]  # counts code after a present person gets the donut
    off = [_offset_after(mode, nxt[a], cs) for a in range(N)]
    present = BITS.astype(bool)[:, :, None, None]  # (MASKS, N, 1, 1)
    if q is not None:  # the greedy policy's action weights, (MASKS, N, CODES, OFFS)
        qrow = q[:, memcode]  # (MASKS, CODES, OFFS, N)
        tie = np.abs(qrow - qrow.max(axis=-1, keepdims=True)) < TIE
        weight = np.moveaxis(tie / tie.sum(axis=-1, keepdims=True), -1, 1)
    w_next = np.zeros((CODES, OFFS))  # E_mask V(t + 1, mask, code, c)
    for _t in range(T - 1, -1, -1):
        gain = np.stack([NSW[nxt[a]] + w_next[nxt[a], off[a]] for a in range(N)])  # (N, CODES, OFFS)
        vals = np.where(present, gain[None], w_next[None, None])  # dropped: reward 0, nothing changes
        v = vals.max(axis=1) if q is None else (vals * weight).sum(axis=1)
        w_next = np.tensordot(PMASK, v, axes=1)
    return float(w_next[0, 0])


# ---------------------------------------------------------------- the official code
def load_official(path: Path):
    sys.path.insert(0, str(path))
    import ql  # noqa: E402  (the official script; its __main__ block does not run)
    from envs.donut import Donut  # noqa: E402

    return ql, Donut


def official_run(ql, donut_cls, mode: str, cf: bool, seed: int, episodes: int, every: int, opt: float):
    """One official training run; returns (episodes to within 1%, curve)."""
    random.seed(seed)
    np.random.seed(seed)
    ql.max_ep_len = T
    ql.fair_env = donut_cls(people=N, episode_length=T, seed=seed, state_mode=mode, p=[P] * N)
    args = types.SimpleNamespace(
        episodes=episodes, alpha=0.1, epsilon=1.0, gamma=0.99, dim_factor=0.95,
        state_mode=mode, preload=False, prev_episodes=0, counterfactual=cf,
    )
    orig = ql.evaluate
    curve: list[float] = []
    src = Path(ql.__file__).read_text().splitlines()
    # The per-episode call (run_Q_learning also calls evaluate before every
    # 1000th episode and once at the end): its line, and the episode index i.
    line = 1 + next(k for k, x in enumerate(src) if "cum_eval_reward, donuts_allocated = evaluate(" in x)

    def hooked(q, printable=False):
        out = orig(q, printable)
        caller = sys._getframe(1)
        if caller.f_lineno == line and caller.f_locals["i"] % every == 0:
            curve.append(exact_value(q, mode))
        return out

    ql.evaluate = hooked
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            ql.run_Q_learning(episodes=episodes, alpha=0.1, epsilon=1.0, gamma=0.99, dim_factor=0.95, args=args)
    finally:
        ql.evaluate = orig
    return first_within(curve, every, opt), curve


def evaluator_check(ql, donut_cls, mode: str, cf: bool, rollouts: int = 5000) -> tuple[float, float, float]:
    """The exact evaluator against the official ``evaluate`` (one sampled
    greedy rollout with random ties) on a Q table after 300 official
    episodes: (exact, Monte-Carlo mean, z)."""
    random.seed(1)
    np.random.seed(1)
    ql.fair_env = donut_cls(people=N, episode_length=T, seed=1, state_mode=mode, p=[P] * N)
    args = types.SimpleNamespace(
        episodes=300, alpha=0.1, epsilon=1.0, gamma=0.99, dim_factor=0.95,
        state_mode=mode, preload=False, prev_episodes=0, counterfactual=cf,
    )
    orig, got = ql.evaluate, {}

    def keep(q, printable=False):
        got["q"] = q
        return orig(q, printable)

    ql.evaluate = keep
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            ql.run_Q_learning(episodes=300, alpha=0.1, epsilon=1.0, gamma=0.99, dim_factor=0.95, args=args)
    finally:
        ql.evaluate = orig
    q = got["q"].copy()
    exact = exact_value(q, mode)
    xs = np.array([ql.evaluate(q)[0] for _ in range(rollouts)])
    se = xs.std(ddof=1) / np.sqrt(rollouts)
    return exact, float(xs.mean()), float((xs.mean() - exact) / se)


_OFFICIAL = {}


def _official_job(job):
    """One official run in a worker: (episodes to within 1%, final value)."""
    (label, mode, cf, seed), (episodes, every, opt) = job
    ql, donut_cls = _OFFICIAL["ql"], _OFFICIAL["donut"]
    os.chdir(tempfile.mkdtemp(prefix="rtbf-", dir=_OFFICIAL["work"]))
    os.makedirs("datasets/Q")
    os.makedirs("datasets/visited")
    first, curve = official_run(ql, donut_cls, mode, cf, 2024 + seed, episodes, every, opt)
    return first, curve[-1]


def first_within(curve: list[float], every: int, opt: float) -> int | None:
    first = None
    for k, v in enumerate(curve, start=1):
        first = (first or k * every) if v >= 0.99 * opt else None
    return first


def official_cpu_per_episode(ql, donut_cls, cf: bool, episodes: int, seed: int) -> float:
    random.seed(seed)
    np.random.seed(seed)
    ql.fair_env = donut_cls(people=N, episode_length=T, seed=seed, state_mode="compact", p=[P] * N)
    args = types.SimpleNamespace(
        episodes=episodes, alpha=0.1, epsilon=1.0, gamma=0.99, dim_factor=0.95,
        state_mode="compact", preload=False, prev_episodes=0, counterfactual=cf,
    )
    orig = ql.evaluate
    ql.evaluate = lambda q, printable=False: (0.0, 0)
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            t0 = time.process_time()
            ql.run_Q_learning(episodes=episodes, alpha=0.1, epsilon=1.0, gamma=0.99, dim_factor=0.95, args=args)
            return (time.process_time() - t0) / episodes
    finally:
        ql.evaluate = orig


# ---------------------------------------------------------------- ours
def build_ours() -> str:
    cmd = ["cargo", "build", "--release", "--example", "fair_memory_official", "--message-format=json"]
    out = subprocess.run(cmd, cwd=ROOT, check=True, stdout=subprocess.PIPE, text=True).stdout
    for line in out.splitlines():
        msg = json.loads(line)
        if msg.get("reason") == "compiler-artifact" and msg.get("executable") and "fair_memory_official" in msg["executable"]:
            return msg["executable"]
    raise RuntimeError("fair_memory_official example not built")


def ours_cpu_per_episode(exe: str, cf: bool, episodes: int, seed: int) -> float:
    cmd = ["/usr/bin/time", "-f", "%U", exe, "--time", "window" if cf else "none", "--episodes", str(episodes),
           "--seed", str(seed)]
    err = subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True).stderr
    return float(err.strip().splitlines()[-1]) / episodes


# ---------------------------------------------------------------- report
def q(v, x):
    return float(np.quantile(np.asarray(v, dtype=float), x))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--official", type=Path, default=target_dir() / "peers" / "remembering-to-be-fair")
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--episodes", type=int, default=4000)
    ap.add_argument("--eval-every", type=int, default=100)
    ap.add_argument("--time-episodes", type=int, default=1000)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--jobs", type=int, default=2, help="official runs in parallel processes")
    ap.add_argument("--json", type=Path, default=None, help="write all figures here")
    a = ap.parse_args()

    ql, donut_cls = load_official(a.official.resolve())
    work = tempfile.mkdtemp(prefix="rtbf-")
    _OFFICIAL.update(ql=ql, donut=donut_cls, work=work)  # run_Q_learning saves Q under ./datasets/
    os.makedirs(f"{work}/datasets/Q")
    os.makedirs(f"{work}/datasets/visited")
    os.chdir(work)

    opt = exact_value(None, "compact")
    censor = a.episodes + a.eval_every
    res = {"optimum_python": opt, "methods": {}, "evaluator": {}}
    for _label, mode, cf in MODES[:1] + MODES[2:]:
        res["evaluator"][mode] = evaluator_check(ql, donut_cls, mode, cf)
        print(f"exact evaluator vs official evaluate() ({mode}): {res['evaluator'][mode]}", file=sys.stderr)
    jobs = [(label, mode, cf, seed) for label, mode, cf in MODES for seed in range(a.seeds)]
    work_args = (a.episodes, a.eval_every, opt)
    t0 = time.time()
    if a.jobs > 1:  # each run seeds its own generators: same results as serial
        with multiprocessing.get_context("fork").Pool(a.jobs) as pool:
            done = pool.map(_official_job, [(j, work_args) for j in jobs], chunksize=1)
    else:
        done = [_official_job((j, work_args)) for j in jobs]
    for label, _mode, _cf in MODES:
        runs = [(first, final) for (lab, _m, _c, _s), (first, final) in zip(jobs, done) if lab == label]
        eps = [censor if first is None else first for first, _ in runs]
        res["methods"][label] = {"official": eps, "official_final_value": [f for _, f in runs]}
        print(f"{label}: official {eps}", file=sys.stderr, flush=True)
    print(f"official runs: {time.time() - t0:.0f} s wall", file=sys.stderr)
    exe = build_ours()
    ours = json.loads(
        subprocess.run([exe, "--seeds", str(a.seeds), "--episodes", str(a.episodes), "--eval-every",
                        str(a.eval_every)], check=True, stdout=subprocess.PIPE, text=True).stdout
    )
    res["optimum_ours"] = ours["optimum"]
    print(f"optimum E[sum NSW]: official-semantics backward induction {opt:.12f}, "
          f"crate DP {ours['optimum']:.12f}, |diff| {abs(opt - ours['optimum']):.2e}", file=sys.stderr)
    for label, row in res["methods"].items():
        row["ours"] = [censor if x is None else x for x in ours["methods"][label]["episodes_to_1pct"]]
        row["ours_final_value"] = ours["methods"][label]["final_value"]
        print(f"{label}: ours {row['ours']}", file=sys.stderr)
    if a.json:
        a.json.write_text(json.dumps(res, indent=1))

    timing = {}
    for cf in (False, True):
        off, me = [], []
        for rep in range(a.reps):
            off.append(official_cpu_per_episode(ql, donut_cls, cf, a.time_episodes, 7 + rep))
            me.append(ours_cpu_per_episode(exe, cf, 100 * a.time_episodes, 7 + rep))
        timing["window" if cf else "none"] = {"official_s": off, "ours_s": me}
    res["timing"] = timing
    if a.json:
        a.json.write_text(json.dumps(res, indent=1))

    lines = [
        f"official code {OFFICIAL_COMMIT[:7]}, numpy {np.__version__}, Python {sys.version.split()[0]}, "
        f"load average {os.getloadavg()[0]:.1f}",
        "",
        f"Episodes until the greedy policy's expected NSW sum stays within 1% of the optimum ({opt:.4f}); "
        f"Donut N = {N}, p = {P}, T = {T}; {a.seeds} seeds × {a.episodes} episodes, exact evaluation every "
        f"{a.eval_every}; never = {censor}:",
        "",
        "| method | official median [IQR] | never | ours median [IQR] | never | medians inside the other's IQR |",
        "|---|---:|---:|---:|---:|---|",
    ]
    for label, row in res["methods"].items():
        o, m = row["official"], row["ours"]
        inside = (q(m, 0.25) <= q(o, 0.5) <= q(m, 0.75)) and (q(o, 0.25) <= q(m, 0.5) <= q(o, 0.75))
        lines.append(
            f"| {label} | {q(o, .5):.0f} [{q(o, .25):.0f}, {q(o, .75):.0f}] | {sum(x == censor for x in o)} | "
            f"{q(m, .5):.0f} [{q(m, .25):.0f}, {q(m, .75):.0f}] | {sum(x == censor for x in m)} | "
            f"{'yes' if inside else 'no'} |"
        )
    lines += [
        "",
        "Exact evaluator vs the mean of 5000 official `evaluate()` rollouts (Q after 300 official episodes): "
        + "; ".join(f"{k}: {e:.4f} vs {m:.4f} (z = {z:+.2f})" for k, (e, m, z) in res["evaluator"].items()),
        f"Optimum: here {opt:.10f}, crate DP {ours['optimum']:.10f}.",
    ]
    lines += [
        "",
        f"Final greedy value (median over seeds): "
        + "; ".join(
            f"{k}: official {np.median(r['official_final_value']):.4f}, ours {np.median(r['ours_final_value']):.4f}"
            for k, r in res["methods"].items()
        ),
        "",
        f"CPU time per training episode (µs), median of {a.reps}:",
        "",
        "| | official ql.py | ours | official / ours |",
        "|---|---:|---:|---:|",
    ]
    for k, name in (("none", "Full memory, no counterfactuals"), ("window", "FairQCM window")):
        o, m = np.median(timing[k]["official_s"]) * 1e6, np.median(timing[k]["ours_s"]) * 1e6
        lines.append(f"| {name} | {o:.1f} | {m:.2f} | {o / m:.0f}× |")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
