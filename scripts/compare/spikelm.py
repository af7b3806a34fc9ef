"""SpikeLM side by side: the spec's oracle of the elastic bi-spiking neuron
in plain Python with every operation rounded to f32 (struct packing), so its
outputs are bit-comparable with the crate's f32 neuron. Python's round()
rounds ties to even, like torch.round.

Prints the known-value table in the three reset modes (compare with
`cargo run --release --example spikelm_spike_table`) and times the neuron at
T = 4 on 128×768 inputs.

With torch importable (`target/torch-venv/bin/python scripts/compare/spikelm.py`),
it also runs the spec's PyTorch oracle (f32, CPU, one thread): the known-value
table; bitwise agreement with the crate's candle neuron on the seeded random
inputs that `cargo run --release --example spikelm_oracle_io` writes (T = 1..8,
three reset modes, ternary and unipolar levels); and CPU times (median of 5,
`time.process_time`) of the oracle neuron, the oracle `SpikeLinear` (T = 4,
128×768 → 768) and a dense f32 layer, next to the crate's, which the example
measures in the same run on one thread (`RAYON_NUM_THREADS=1`).
"""
import json
import os
import random
import struct
import subprocess
import tempfile
import time


def f32(x):
    return struct.unpack("f", struct.pack("f", x))[0]


def neuron(xs, alphas, reset="official", decay=0.25):
    """xs: T lists of n floats (f32 values); returns T lists of spikes."""
    out, u_prev, r_prev = [], None, None
    for t, x in enumerate(xs):
        a = max(alphas[t], f32(1e-5))
        if t == 0:
            u = list(x)
        else:
            u = [f32(f32(f32(up * decay) * rp) + xi) for up, rp, xi in zip(u_prev, r_prev, x)]
        q = [float(round(min(max(f32(ui / a), -1.0), 1.0))) + 0.0 for ui in u]
        s = [f32(qi * a) for qi in q]
        if reset == "official":
            r = [f32(a - si) for si in s]
        elif reset == "normalized":
            r = [1.0 - qi for qi in q]
        else:
            r = [1.0 - abs(qi) for qi in q]
        out.append(s)
        u_prev, r_prev = u, r
    return out


def main():
    print("x       official              normalized            symmetric")
    for x in [0.30, -1.20, 2.00, 0.45, -0.45, 0.50]:
        xf = f32(x)
        rows = [[s[0] for s in neuron([[xf]] * 4, [1.0] * 4, m)] for m in ("official", "normalized", "symmetric")]
        print(f"{x:6}  " + "  ".join(f"{str(r):22}" for r in rows))
    rng = random.Random(26)
    xs = [[f32(rng.uniform(-2, 2)) for _ in range(128 * 768)] for _ in range(4)]
    start = time.perf_counter()
    neuron(xs, [1.0] * 4)
    print(f"neuron T=4, 128x768, pure-Python f32 oracle: {time.perf_counter() - start:.3f} s")


def torch_oracle(torch, x, alphas, reset="official", decay=0.25, levels="ternary"):
    """The spec's PyTorch oracle: x [T, ...] f32, alphas [T]; returns spikes [T, ...]."""
    lo = -1.0 if levels == "ternary" else 0.0
    out, u, r = [], None, None
    for t in range(x.shape[0]):
        a = torch.clamp(alphas[t], min=1e-5)
        u = x[t] if t == 0 else (u * decay) * r + x[t]
        q = torch.round(torch.clamp(u / a, lo, 1.0)) + 0.0
        s = q * a
        if reset == "official":
            r = a - s
        elif reset == "normalized":
            r = 1.0 - q
        else:
            r = 1.0 - q.abs()
        out.append(s)
    return torch.stack(out)


def median_cpu(f):
    f()
    times = []
    for _ in range(5):
        start = time.process_time()
        f()
        times.append(time.process_time() - start)
    return sorted(times)[2]


def with_torch(torch):
    import numpy as np

    torch.set_num_threads(1)
    print("\nPyTorch oracle (f32, CPU, 1 thread), known-value table:")
    for x in [0.30, -1.20, 2.00, 0.45, -0.45, 0.50]:
        xt = torch.full((4, 1), x, dtype=torch.float32)
        a = torch.ones(4, dtype=torch.float32)
        rows = [torch_oracle(torch, xt, a, m).flatten().tolist() for m in ("official", "normalized", "symmetric")]
        print(f"{x:6}  " + "  ".join(f"{str(r):22}" for r in rows))
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "io.json")
        env = dict(os.environ, RAYON_NUM_THREADS="1")
        run = subprocess.run(
            ["cargo", "run", "--release", "-q", "--example", "spikelm_oracle_io", "--", path],
            cwd=root, env=env, check=True, capture_output=True, text=True,
        )
        rust = json.loads(run.stdout.strip().splitlines()[-1])
        with open(path) as f:
            cases = json.load(f)
    bad = total = 0
    for c in cases:
        t, n = c["t"], c["n"]
        x = torch.from_numpy(np.array(c["x"], dtype=np.uint32).view(np.float32).reshape(t, n))
        a = torch.from_numpy(np.array(c["alphas"], dtype=np.uint32).view(np.float32))
        want = np.array(c["spikes"], dtype=np.uint32)
        got = torch_oracle(torch, x, a, c["reset"], levels=c["levels"]).numpy().reshape(-1).view(np.uint32)
        bad += int((got != want).sum())
        total += want.size
    print(f"bitwise agreement, candle neuron vs PyTorch oracle: {total - bad}/{total} values "
          f"({len(cases)} cases: T = 1..8 x 3 reset modes x ternary/unipolar)")
    g = torch.Generator().manual_seed(26)
    x = torch.randn(4, 128, 768, generator=g)
    a = torch.full((4,), 2.0 * 0.7979)
    w = torch.randn(768, 768, generator=g) * 0.02
    b = torch.zeros(768)
    t_neuron = median_cpu(lambda: torch_oracle(torch, x, a))
    t_spike_linear = median_cpu(lambda: torch_oracle(torch, x, a) @ w + b)
    t_dense = median_cpu(lambda: x @ w + b)
    print("CPU time, median of 5 (one thread), T = 4, 128x768 -> 768:")
    print(f"  neuron:        crate {rust['neuron_s'] * 1e3:8.2f} ms   PyTorch oracle {t_neuron * 1e3:8.2f} ms   ratio {t_neuron / rust['neuron_s']:.2f}x")
    print(f"  SpikeLinear:   crate {rust['spike_linear_s'] * 1e3:8.2f} ms   PyTorch oracle {t_spike_linear * 1e3:8.2f} ms   ratio {t_spike_linear / rust['spike_linear_s']:.2f}x")
    print(f"  dense f32:     crate {rust['dense_linear_s'] * 1e3:8.2f} ms   PyTorch        {t_dense * 1e3:8.2f} ms")
    print(f"  crate plain-slice reference neuron: {rust['reference_neuron_s'] * 1e3:.2f} ms")
    return bad


if __name__ == "__main__":
    main()
    try:
        import torch
    except ImportError:
        torch = None
        print("\ntorch not importable: run with target/torch-venv/bin/python for the PyTorch oracle")
    if torch is not None and with_torch(torch) != 0:
        raise SystemExit("the candle neuron and the PyTorch oracle disagree")
