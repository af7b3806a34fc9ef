//! CPU time of successive sampling (the official code's sampler), for the
//! comparison with numpy under load: `cargo run --release -p fair-lottery
//! --example successive_cpu -- N K RUNS`.
//!
//! Claims are `1 − U` (seed 7), as in `benches/fair_lottery.rs`. Prints one
//! line per run with the CPU time of this thread
//! (`clock_gettime(CLOCK_THREAD_CPUTIME_ID)`, which on a loaded machine does
//! not count the time the thread waits for a core) of the set-up
//! (`Successive::new`: validation and the key threshold, once per claim
//! vector), of one draw of k winners from it, and of one
//! `Successive::sample_once` (validation, threshold and draw in one call on
//! the borrowed claims: what numpy's `choice` does per call), then the
//! medians: `setup_median_ms=… draw_median_ms=… once_median_ms=…`.

use fair_lottery::sampler::{FixedSizeSampler, Successive};
use mlcore::sampling::seeded;
use rand::RngExt;
use std::hint::black_box;

/// The median of the run times (there is at least one run).
fn median(v: Vec<f64>) -> f64 {
    mlcore::stats::median(ndarray::ArrayView1::from(&v)).expect("finite times")
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| a.parse())
        .collect::<Result<_, _>>()?;
    let n = args.first().copied().unwrap_or(1_000_000);
    let k = args.get(1).copied().unwrap_or(n / 10);
    let runs = args.get(2).copied().unwrap_or(5).max(1);
    let mut rng = seeded(7);
    let claims: Vec<f64> = (0..n).map(|_| 1.0 - rng.random::<f64>()).collect();
    let mut draw_rng = seeded(1);
    // Warm-up (page faults of the first allocations, caches).
    black_box(Successive::new(&claims, k)?.sample(&mut draw_rng));
    let (mut setup, mut draw, mut once) = (Vec::new(), Vec::new(), Vec::new());
    for run in 0..runs {
        let t0 = cpu_now();
        let s = Successive::new(&claims, k)?;
        let t1 = cpu_now();
        let winners = s.sample(&mut draw_rng);
        let t2 = cpu_now();
        let w2 = Successive::sample_once(&claims, k, &mut draw_rng)?;
        let t3 = cpu_now();
        assert_eq!(winners.len(), k);
        assert_eq!(w2.len(), k);
        black_box((winners, w2));
        once.push((t3 - t2) * 1e3);
        setup.push((t1 - t0) * 1e3);
        draw.push((t2 - t1) * 1e3);
        println!(
            "run {run}: setup_ms={:.4} draw_ms={:.4} once_ms={:.4}",
            setup[run], draw[run], once[run]
        );
    }
    println!(
        "n={n} k={k} runs={runs} setup_median_ms={:.4} draw_median_ms={:.4} once_median_ms={:.4}",
        median(setup),
        median(draw),
        median(once)
    );
    Ok(())
}

/// The CPU clock this example times with, in seconds.
fn cpu_now() -> f64 {
    mlcore::timing::thread_cpu_seconds().expect("a CPU clock (Unix)")
}
