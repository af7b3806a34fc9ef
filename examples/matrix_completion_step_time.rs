//! CPU time of one training step (objective + closed-form gradient on the
//! observed entries) of the matrix-completion crate, for side-by-side timing
//! under load: `scripts/compare/matrix_completion.py` runs it between its
//! numpy/scipy repetitions and compares CPU time with CPU time.
//!
//! `cargo run --release --example matrix_completion_step_time -- M N NOBS DEPTH K STEPS`
//!
//! Same inputs as `benches/matrix_completion.rs` (`seeded(7)`: rank-5 truth,
//! uniform sampling, ratings `1 + 4·sigmoid(1.5 g)` with noise 0.1, factors
//! with scale 0.1, λ = 1e-4). Prints the thread's CPU time per step in
//! milliseconds, from `/proc/thread-self/schedstat` (nanoseconds on CPU;
//! Linux), over STEPS steps after one warm-up step; elsewhere it falls back to
//! wall-clock time and says so.

use matrix_completion::link::Link;
use matrix_completion::model::DeepMf;
use matrix_completion::synthetic::{Sampling, TrueLink, low_rank, sample};
use mlcore::sampling::seeded;
use std::hint::black_box;

/// Nanoseconds this thread has run on a CPU, if the kernel reports it.
fn cpu_ns() -> Option<u64> {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| a.parse())
        .collect::<Result<_, _>>()?;
    let [m, n, nobs, depth, k, steps] = args[..] else {
        return Err("usage: M N NOBS DEPTH K STEPS".into());
    };
    let mut rng = seeded(7);
    let g = low_rank(m, n, 5, &mut rng)?;
    let obs = sample(
        &g,
        TrueLink::RATINGS,
        Sampling::Uniform,
        nobs,
        0.1,
        &mut rng,
    )?;
    let model = DeepMf::random(
        m,
        n,
        depth,
        k,
        0.1,
        Link::Identity(Default::default()),
        obs.mean(),
        &mut rng,
    )?;
    black_box(model.objective_and_gradient(&obs, 1e-4, None)?);
    let (c0, t0) = (cpu_ns(), std::time::Instant::now());
    for _ in 0..steps {
        black_box(model.objective_and_gradient(&obs, 1e-4, None)?);
    }
    match (c0, cpu_ns()) {
        (Some(a), Some(b)) => println!("{:.6} cpu", (b - a) as f64 / 1e6 / steps as f64),
        _ => println!(
            "{:.6} wall",
            t0.elapsed().as_secs_f64() * 1e3 / steps as f64
        ),
    }
    Ok(())
}
