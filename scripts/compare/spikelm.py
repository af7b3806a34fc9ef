"""SpikeLM side by side: the spec's oracle of the elastic bi-spiking neuron
in plain Python with every operation rounded to f32 (struct packing), so its
outputs are bit-comparable with the crate's f32 neuron. Python's round()
rounds ties to even, like torch.round.

Prints the known-value table in the three reset modes (compare with
`cargo run --release --example spikelm_spike_table`) and times the neuron at
T = 4 on 128×768 inputs (compare with `cargo bench --bench spikelm --
spikelm_neuron`). numpy/torch are not needed (neither is installed here).
"""
import random
import struct
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


if __name__ == "__main__":
    main()
