//! CPU time of PerceptAnon's two hot loops, for the comparison with scipy
//! and scikit-image under load: `cargo run --release -p perceptanon
//! --example perceptanon_cpu -- RUNS`.
//!
//! Inputs as `benches/perceptanon.rs` (the 31-bit LCG that
//! `scripts/compare/perceptanon.py` rebuilds): Kendall τ-b on n = 10⁴, 10⁵,
//! 10⁶ pairs (x continuous, y on a 1..=10 grid), SSIM (standard preset,
//! Gaussian window 11) on grey images of side 256, 512, 1024. Prints one
//! line per workload with the median over RUNS of this thread's CPU time
//! (`mlcore::timing`, which on a loaded machine does not count the time the
//! thread waits for a core): `kendall n=… median_ms=…`, `ssim side=…
//! median_ms=…`, with the value computed.

use ndarray::{Array1, Array2};
use perceptanon::corr::kendall_tau_b;
use perceptanon::image::Image;
use perceptanon::iqa::{SsimParams, ssim};
use perceptanon::simulate::reference_lcg as lcg;
use std::hint::black_box;

/// The median of the run times (there is at least one run).
fn median(v: Vec<f64>) -> f64 {
    mlcore::stats::median(ndarray::ArrayView1::from(&v)).expect("finite times")
}

/// Median CPU milliseconds of `runs` calls of `f` (after one warm-up call).
fn time<T>(runs: usize, mut f: impl FnMut() -> T) -> (f64, T) {
    let mut out = f();
    let mut ms = Vec::with_capacity(runs);
    for _ in 0..runs {
        let t0 = mlcore::timing::thread_cpu_seconds().expect("a CPU clock (Unix)");
        out = black_box(f());
        let t1 = mlcore::timing::thread_cpu_seconds().expect("a CPU clock (Unix)");
        ms.push((t1 - t0) * 1e3);
    }
    (median(ms), out)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let runs: usize = std::env::args()
        .nth(1)
        .map(|a| a.parse())
        .transpose()?
        .unwrap_or(5)
        .max(1);
    for n in [10_000usize, 100_000, 1_000_000] {
        let u = lcg(1, 2 * n);
        let x = Array1::from(u[..n].to_vec());
        let y: Array1<f64> = (0..n)
            .map(|i| (10.0 * (0.6 * x[i] + 0.4 * u[n + i])).floor() + 1.0)
            .collect();
        let (ms, tau) = time(runs, || kendall_tau_b(x.view(), y.view()));
        println!("kendall n={n} median_ms={ms:.4} tau_b={:.15}", tau?.value);
    }
    let params = SsimParams::standard();
    for side in [256usize, 512, 1024] {
        let u = lcg(2, side * side);
        let a = Array2::from_shape_fn((side, side), |(i, j)| u[i * side + j]);
        let mut b = a.clone();
        b.slice_mut(ndarray::s![side / 4..3 * side / 4, side / 4..3 * side / 4])
            .fill(0.0);
        let (a, b) = (Image::grey(a)?, Image::grey(b)?);
        let (ms, s) = time(runs, || ssim(&a, &b, &params));
        println!("ssim side={side} median_ms={ms:.4} ssim={:.15}", s?);
    }
    Ok(())
}
