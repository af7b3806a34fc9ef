//! Times every exact sampler at one size: `cargo run --release -p fair-lottery --example scale -- N K [DRAWS]`.
//!
//! Claims are `U(0, 1]` (seed 7), `π` the Broome-fair probabilities; prints
//! set-up and per-draw times and the largest deviation of CPS's calibrated
//! marginals from `π`.

use fair_lottery::probs::Selection;
use fair_lottery::sampler::{
    ConditionalPoisson, FixedSizeSampler, Pipage, Sampford, Successive, Systematic,
};
use mlcore::sampling::seeded;
use rand::RngExt;
use std::time::Instant;

fn time<T>(f: impl FnOnce() -> T) -> (T, f64) {
    let t = Instant::now();
    let r = f();
    (r, t.elapsed().as_secs_f64())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| a.parse())
        .collect::<Result<_, _>>()?;
    let (n, k) = (
        args.first().copied().unwrap_or(1_000_000),
        args.get(1).copied().unwrap_or(100_000),
    );
    let draws = args.get(2).copied().unwrap_or(3);
    let mut rng = seeded(7);
    let claims: Vec<f64> = (0..n).map(|_| 1.0 - rng.random::<f64>()).collect();
    let (sel, t) = time(|| Selection::proportional(&claims, k));
    let sel = sel?;
    println!(
        "n = {n}, k = {k}: inclusion_probs {:.3} s, lottery units {}",
        t,
        sel.lottery().len()
    );
    let sys = Systematic::new(&sel);
    let (_, t) = time(|| {
        (0..draws)
            .map(|_| sys.sample(&mut rng).len())
            .sum::<usize>()
    });
    println!("systematic: {:.4} s per draw", t / draws as f64);
    let pip = Pipage::new(&sel);
    let (_, t) = time(|| {
        (0..draws)
            .map(|_| pip.sample(&mut rng).len())
            .sum::<usize>()
    });
    println!("pipage:     {:.4} s per draw", t / draws as f64);
    let succ = Successive::new(&claims, k)?;
    let (_, t) = time(|| {
        (0..draws)
            .map(|_| succ.sample(&mut rng).len())
            .sum::<usize>()
    });
    println!("successive: {:.4} s per draw", t / draws as f64);
    let (cps, t) = time(|| ConditionalPoisson::new(&sel));
    let cps = cps?;
    println!(
        "cps set-up: {:.3} s ({} sweeps, residual {:.2e})",
        t,
        cps.iterations(),
        cps.calibration_residual()
    );
    let (_, t) = time(|| {
        (0..draws)
            .map(|_| cps.sample(&mut rng).len())
            .sum::<usize>()
    });
    println!("cps:        {:.4} s per draw", t / draws as f64);
    match time(|| Sampford::new(&sel)) {
        (Ok(s), t) => {
            println!(
                "sampford set-up {:.3} s, acceptance {:.3e}",
                t,
                s.acceptance_rate()
            );
            let (_, t) = time(|| (0..draws).map(|_| s.sample(&mut rng).len()).sum::<usize>());
            println!("sampford:   {:.4} s per draw", t / draws as f64);
        }
        (Err(e), _) => println!("sampford: {e}"),
    }
    Ok(())
}
