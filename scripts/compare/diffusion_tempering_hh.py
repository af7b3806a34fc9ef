"""Reference trajectories of the official Hodgkin-Huxley models for the
diffusion-tempering crate's tests (tests/hh_reference.rs).

The equations are transcribed from the paper's official code
(berenslab/DiffusionTempering, src/models.jl: `SimpleHHSystem`, the cable
coupling of `get_MulticompartmentHH` and the scripts' parameters), written
here independently of the Rust crate, and integrated with scipy's DOP853 at
rtol = atol = 1e-12, restarted at the stimulus switches t = 10 and 90 ms.

    target/compare-venv/bin/python scripts/compare/diffusion_tempering_hh.py
"""

import numpy as np
from scipy.integrate import solve_ivp

E_NA, E_K, E_LEAK, V_T, V0 = 53.0, -107.0, -70.0, -60.0, -70.0
AREA = 15.3e-3 / 184.0  # get_Asoma(15.3 ms, 184 MOhm), cm^2
AMP = 210e-6  # 210 pA in uA


def rates(v):
    u = v - V_T
    am = -0.32 * (u - 13.0) / (np.exp(-(u - 13.0) / 4.0) - 1.0)
    bm = 0.28 * (u - 40.0) / (np.exp((u - 40.0) / 5.0) - 1.0)
    ah = 0.128 * np.exp(-(u - 17.0) / 18.0)
    bh = 4.0 / (1.0 + np.exp(-(u - 40.0) / 5.0))
    an = -0.032 * (u - 15.0) / (np.exp(-(u - 15.0) / 5.0) - 1.0)
    bn = 0.5 * np.exp(-(u - 10.0) / 40.0)
    return (am, bm), (ah, bh), (an, bn)


def compartment(x, g, i_density):
    v, m, h, n = x
    gna, gk, gl = g
    dv = (gna * m**3 * h * (E_NA - v) + gk * n**4 * (E_K - v) + gl * (E_LEAK - v) + i_density)
    d = [dv]
    for (a, b), s in zip(rates(v), (m, h, n)):
        d.append(a * (1.0 - s) - b * s)
    return d


def x0():
    return [V0] + [a / (a + b) for a, b in rates(V0)]


def one_comp(g):
    def f(t, x, on):
        return compartment(x, g, AMP / AREA if on else 0.0)
    return f, x0()


def two_comp(g):
    # g = (gNa1, gK1, gleak1, gNa2, gK2, gleak2); each compartment has half the soma area.
    area = AREA / 2.0

    def f(t, x, on):
        d1 = compartment(x[:4], g[:3], AMP / area if on else 0.0)
        d2 = compartment(x[4:], g[3:], 0.0)
        d1[0] += -x[0] + x[4]
        d2[0] += x[0] - x[4]
        return d1 + d2

    return f, x0() + x0()


def solve(sys, times):
    f, y = sys
    out = {}
    for a, b, on in ((0.0, 10.0, False), (10.0, 90.0, True), (90.0, 100.0, False)):
        ts = [t for t in times if a < t <= b]
        sol = solve_ivp(f, (a, b), y, method="DOP853", rtol=1e-12, atol=1e-12,
                        t_eval=sorted(set(ts + [b])), args=(on,))
        for i, t in enumerate(sol.t):
            out[t] = sol.y[:, i]
        y = sol.y[:, -1]
    return [out[t] for t in times]


if __name__ == "__main__":
    times = [5.0, 12.5, 20.0, 27.5, 35.0, 50.0, 65.0, 80.0, 90.0, 95.0, 100.0]
    print("// one compartment, (gNa, gK, gleak) = (25, 7, 0.1): (t, V, m, h, n)")
    for t, x in zip(times, solve(one_comp((25.0, 7.0, 0.1)), times)):
        print(f"({t}, [{', '.join(repr(float(v)) for v in x)}]),")
    print("// two compartments, (25, 7, 0.09, 20, 10, 0.11): (t, V1, V2)")
    for t, x in zip(times, solve(two_comp((25.0, 7.0, 0.09, 20.0, 10.0, 0.11)), times)):
        print(f"({t}, {float(x[0])!r}, {float(x[4])!r}),")
    print("// two compartments, 4-parameter script (25, 7, 0.1, 20, 10, 0.1): (t, V1, V2)")
    for t, x in zip(times, solve(two_comp((25.0, 7.0, 0.1, 20.0, 10.0, 0.1)), times)):
        print(f"({t}, {float(x[0])!r}, {float(x[4])!r}),")
