"""Shared set-up of the side-by-side scripts in this folder.

Importing this module pins every BLAS to one thread (before numpy is
imported) and re-executes the script once with glibc's malloc tuned to reuse
freed memory, on both sides (``--no-malloc-tuning`` keeps the defaults). It
also provides the criterion reader and the machine/BLAS report lines that go
into docs/perf.md.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from pathlib import Path

for _var in (
    "OPENBLAS_NUM_THREADS",
    "OMP_NUM_THREADS",
    "MKL_NUM_THREADS",
    "BLIS_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS",
):
    os.environ[_var] = "1"

# glibc malloc: reuse freed memory instead of fresh (faulting) pages, on both
# sides. glibc reads these at process start, so re-execute once with them set.
MALLOC_TUNING = {"MALLOC_MMAP_THRESHOLD_": "33554432", "MALLOC_TRIM_THRESHOLD_": "4294967296"}
if "--no-malloc-tuning" in sys.argv:
    for _var in MALLOC_TUNING:
        os.environ.pop(_var, None)
elif any(os.environ.get(k) != v for k, v in MALLOC_TUNING.items()):
    os.environ.update(MALLOC_TUNING)
    os.execv(sys.executable, [sys.executable, *sys.argv])

ROOT = Path(__file__).resolve().parents[2]


def target_dir() -> Path:
    """Cargo's target directory (CARGO_TARGET_DIR, else ./target)."""
    env = os.environ.get("CARGO_TARGET_DIR")
    return Path(env) if env else ROOT / "target"


def criterion_median_ns(group: str, ident: str) -> float | None:
    """Criterion's median point estimate (ns per iteration) of ``group/ident``, or None if absent."""
    path = target_dir() / "criterion" / group / ident / "new" / "estimates.json"
    try:
        with path.open() as f:
            return float(json.load(f)["median"]["point_estimate"])
    except FileNotFoundError:
        return None


def load_average() -> str:
    """The 1-minute load average (other jobs on a 2-core machine skew the timings)."""
    try:
        return Path("/proc/loadavg").read_text().split()[0]
    except OSError:
        return "?"


def fmt_ms(ns: float | None) -> str:
    """Nanoseconds as milliseconds with 3–4 significant digits, or an em dash."""
    if ns is None:
        return "—"
    ms = ns / 1e6
    return f"{ms:.3f}" if ms < 1 else f"{ms:.2f}" if ms < 100 else f"{ms:.1f}"


def blas_report() -> tuple[list[str], object]:
    """Lines describing numpy's BLAS, and a context manager pinning it to one thread."""
    import numpy as np

    lines = [f"numpy {np.__version__}, Python {sys.version.split()[0]}"]
    try:
        from threadpoolctl import threadpool_info, threadpool_limits
    except ImportError:
        lines.append("threadpoolctl not installed: BLAS pinned through *_NUM_THREADS=1 only, kernel unknown")
        return lines, contextlib.nullcontext()
    limiter = threadpool_limits(limits=1)
    for info in threadpool_info():
        lines.append(
            f"{info.get('user_api')}: {info.get('internal_api')} {info.get('version')}, "
            f"kernel (architecture) {info.get('architecture', 'n/a')}, threads {info.get('num_threads')}, "
            f"{Path(info.get('filepath', '?')).name}"
        )
    return lines, limiter


def machine_report(script: str) -> list[str]:
    """CPU model, cores, load, the malloc setting, and a warning for OPENBLAS_CORETYPE/L2_SIZE."""
    model = "unknown CPU"
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    lines = [f"{model}, {os.cpu_count()} logical cores, load average {load_average()}"]
    if all(os.environ.get(k) == v for k, v in MALLOC_TUNING.items()):
        lines.append(
            "glibc malloc on both sides: MALLOC_MMAP_THRESHOLD_=32 MiB, MALLOC_TRIM_THRESHOLD_=4 GiB "
            "(freed memory reused, no fresh-page faults per call)"
        )
    else:
        lines.append("glibc malloc defaults (--no-malloc-tuning): large arrays may be fresh, faulting pages per call")
    forced = {v: os.environ[v] for v in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE") if v in os.environ}
    if forced:
        lines.append(
            f"WARNING: {forced} set; OpenBLAS runs a forced kernel and numpy is slower than it should be. "
            f"For a fair comparison run: env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE "
            f"target/compare-venv/bin/python scripts/compare/{script}"
        )
    return lines


def build_bench(name: str) -> str:
    """Builds ``benches/<name>.rs`` (``cargo bench --bench <name> --no-run``) and returns its executable."""
    import subprocess

    cmd = ["cargo", "bench", "--bench", name, "--no-run", "--message-format=json-render-diagnostics"]
    print(f"$ {' '.join(cmd)}", file=sys.stderr, flush=True)
    proc = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        sys.exit(f"cargo bench failed (exit {proc.returncode}): the root package and benches/{name}.rs must compile")
    for line in proc.stdout.splitlines():
        msg = json.loads(line)
        target = msg.get("target", {})
        if msg.get("reason") == "compiler-artifact" and target.get("name") == name and "bench" in target.get("kind", []):
            if msg.get("executable"):
                return msg["executable"]
    sys.exit(f"cargo bench --no-run reported no executable for the {name} benchmark")


def run_bench(exe: str, filt: str | None, env: dict[str, str] | None = None) -> None:
    """Runs a built criterion benchmark as ``cargo bench`` would (from the
    package root, with ``--bench``); criterion's report goes to stderr. Running
    the binary built once keeps every run on the same code while others edit
    the tree."""
    import subprocess

    cmd = [exe, "--bench"] + ([filt] if filt else [])
    print(f"$ {' '.join(cmd)}", file=sys.stderr, flush=True)
    subprocess.run(cmd, cwd=ROOT, check=True, stdout=sys.stderr, env={**os.environ, **(env or {})})
