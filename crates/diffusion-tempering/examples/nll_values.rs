//! Fenrir negative log-likelihoods of Lotka–Volterra for the side-by-side
//! check in `scripts/compare/diffusion_tempering.py`.
//!
//! LV (α, β, γ, δ) = (1.5, 1, 3, 1), x₀ = y₀ = 1, both states observed with
//! σ² = 0.1 (`seeded(7)` noise) at every point of a dt = 0.01 grid on
//! [0, T]; EK1, q = 3. Prints one JSON object: the times, the data, and the
//! NLL at θ_true and 1.1·θ_true (all four parameters) for κ² ∈ {1e-2, 1,
//! 1e2, 1e6, 1e12, 1e20}, plus the Rust value+gradient time at 2001 points (median of 15) and
//! the value and gradient there at 1.1·θ_true, κ² = 1.
//!
//! `cargo run --release -p diffusion-tempering --example nll_values -- [T]`

use diffusion_tempering::models::LotkaVolterra;
use diffusion_tempering::{FenrirLikelihood, FilterConfig, Grid, Observations, simulate};
use mlcore::sampling::seeded;
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let t1: f64 = std::env::args().nth(1).map_or(Ok(2.0), |s| s.parse())?;
    let model = LotkaVolterra::four_param();
    let truth = LotkaVolterra::TRUE;
    let grid = Grid::uniform(0.0, t1, 0.01)?;
    let proj = Observations::selector(&[0, 1], 2)?;
    let obs = simulate(
        &model,
        &truth,
        0.0,
        grid.times().to_vec(),
        proj,
        0.1,
        &mut seeded(7),
    )?;
    let lik = FenrirLikelihood::new(model, obs.clone(), grid.clone(), FilterConfig::default())?;
    let perturbed: Vec<f64> = truth.iter().map(|v| 1.1 * v).collect();
    let mut rows = Vec::new();
    for kappa2 in [1e-2, 1.0, 1e2, 1e6, 1e12, 1e20] {
        for (name, p) in [("true", truth.to_vec()), ("perturbed", perturbed.clone())] {
            let v = lik.nll(&p, kappa2)?;
            rows.push(format!(
                "{{\"kappa2\": {kappa2:e}, \"theta\": \"{name}\", \"nll\": {v:.17e}}}"
            ));
        }
    }
    // timing of value + gradient (4 parameters) at 2001 grid points
    let g2 = Grid::uniform(0.0, 20.0, 0.01)?;
    let proj = Observations::selector(&[0, 1], 2)?;
    let obs2 = simulate(
        &model,
        &truth,
        0.0,
        g2.times().to_vec(),
        proj,
        0.1,
        &mut seeded(7),
    )?;
    let lik2 = FenrirLikelihood::new(model, obs2, g2, FilterConfig::default())?;
    let mut ts = Vec::new();
    for _ in 0..15 {
        let t = Instant::now();
        std::hint::black_box(lik2.nll_grad(&perturbed, 1.0)?);
        ts.push(t.elapsed().as_secs_f64());
    }
    ts.sort_by(f64::total_cmp);
    let (v2001, g2001) = lik2.nll_grad(&perturbed, 1.0)?;
    let y = obs.values();
    let ys: Vec<String> = y
        .rows()
        .into_iter()
        .map(|r| format!("[{:.17e}, {:.17e}]", r[0], r[1]))
        .collect();
    let times: Vec<String> = grid.times().iter().map(|t| format!("{t:.17e}")).collect();
    println!(
        "{{\"times\": [{}], \"values\": [{}], \"rows\": [{}], \"rust_value_grad_2001_s\": {:.6e}, \"nll_2001\": {:.17e}, \"grad_2001\": [{}]}}",
        times.join(", "),
        ys.join(", "),
        rows.join(", "),
        ts[ts.len() / 2],
        v2001,
        g2001
            .iter()
            .map(|g| format!("{g:.17e}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    Ok(())
}
