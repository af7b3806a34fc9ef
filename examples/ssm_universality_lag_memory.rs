//! Memory: from x_L of a recurrence with N ring eigenvalues in
//! [r_min, 1] (γ on), reconstruct L unit-variance inputs by the
//! truncated pseudo-inverse and print the MSE per lag, for r_min ∈ {0, 0.5,
//! 0.9, 0.99}, with the compressed mode's predicted residual 1 − P_ττ.
//!
//! What to check: within capacity (L ≤ 2N), rings with r_min ≥ 0.9 recover
//! every lag while r_min = 0 loses the old ones (|λ|^τ decays below rcond);
//! over capacity (L = 256) a state of N complex numbers cannot hold all 2N+
//! inputs and only fast-decaying spectra keep the recent lags exact.
//!
//! Run: `cargo run --release --example ssm_universality_lag_memory [-- TRIALS SEED N L]`
//! (defaults 100, 0, N = 64, L = 96: within capacity, L ≤ 2N real inputs; try L = 256).

use mlcore::sampling::seeded;
use ssm_universality::experiments::lag_error_profile;
use ssm_universality::spectrum::Spectrum;
use std::f64::consts::TAU;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let trials: usize = args.get(1).map_or(Ok(100), |s| s.parse())?;
    let seed: u64 = args.get(2).map_or(Ok(0), |s| s.parse())?;
    let n: usize = args.get(3).map_or(Ok(64), |s| s.parse())?;
    let l: usize = args.get(4).map_or(Ok(96), |s| s.parse())?;
    let lags: Vec<usize> = [0usize, 8, 16, 32, 48, 64, 96, 128, 192, 255]
        .into_iter()
        .filter(|&t| t < l)
        .collect();
    print!("{:<10}", "r_min");
    for &t in &lags {
        print!(" {:>9}", format!("τ={t}"));
    }
    println!("  lags with MSE ≤ 0.01");
    for r_min in [0.0, 0.5, 0.9, 0.99] {
        let spec = Spectrum::LruRing {
            r_min,
            r_max: 1.0,
            max_phase: TAU,
        };
        let err = lag_error_profile(&spec, n, l, 1e-8, trials, &mut seeded(seed))?;
        print!("{r_min:<10}");
        for &t in &lags {
            print!(" {:>9.2e}", err[t]);
        }
        println!("  {}", err.iter().filter(|&&e| e <= 0.01).count());
    }
    Ok(())
}
