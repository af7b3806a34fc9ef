//! Values for the side-by-side with BoTorch (`scripts/compare/lookahead_mlmc.py`):
//! the spec's 1-D case (train_x = [−8, −3, 0, 2.5, 7], toy targets, fixed
//! Matérn-5/2 with lengthscale 2, outputscale 1, mean 0, noise 1e-4).
//! Prints one JSON object: posterior mean/variance and EI on 11 grid points,
//! the fantasised posterior after (x = 1, y = 0.9), the two-step value at
//! x = 1 with the inner batch fixed at X' = [1.5, 2.5] (N = M = 256) with its
//! MC standard error, and the median wall time of that value.
//!
//! `cargo run --release -p lookahead-mlmc --example peer_values -- [N] [M] [repeats]`

use lookahead_mlmc::acq::expected_improvement;
use lookahead_mlmc::gp::{ExactGp, Kernel, KernelKind};
use lookahead_mlmc::lookahead::{InnerSplit, InnerValue, SaaConfig, TwoStepSaa, TwoStepSamples};
use lookahead_mlmc::optim::Bounds;
use lookahead_mlmc::testfns::toy1d;
use mlcore::sampling::seeded;
use ndarray::{Array1, array};
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let n = args.first().copied().unwrap_or(256);
    let m = args.get(1).copied().unwrap_or(256);
    let repeats = args.get(2).copied().unwrap_or(30);
    let x = array![[-8.0], [-3.0], [0.0], [2.5], [7.0]];
    let y: Array1<f64> = x.column(0).mapv(toy1d);
    let k = Kernel::new(KernelKind::Matern52, vec![2.0], 1.0)?;
    let gp = ExactGp::new(x.view(), y.view(), k, 0.0, 1e-4)?;
    let best = gp.best_observed();
    let grid: Vec<f64> = (0..11).map(|i| -10.0 + 2.0 * i as f64).collect();
    let mut mu = Vec::new();
    let mut var = Vec::new();
    let mut ei = Vec::new();
    for &g in &grid {
        let (a, b) = gp.posterior(array![g].view())?;
        mu.push(a);
        var.push(b);
        ei.push(expected_improvement(&gp, array![g].view(), best)?);
    }
    let f = gp.fantasize(array![1.0].view(), 0.9)?;
    let (mut fmu, mut fvar) = (Vec::new(), Vec::new());
    for &g in &grid {
        let (a, b) = f.posterior(array![g].view())?;
        fmu.push(a);
        fvar.push(b);
    }
    // Two-step value at x = 1 with X' = [1.5, 2.5] for every fantasy.
    let bounds = Bounds::new(vec![-10.0], vec![10.0])?;
    let inner = InnerValue::QEi { q: 2 };
    let mut rng = seeded(2024);
    let s = TwoStepSamples::draw(n, m, inner, &bounds.repeat(2), 1, &mut rng);
    let p = TwoStepSaa::new(
        &gp,
        &bounds,
        best,
        inner,
        &s,
        InnerSplit::Full,
        SaaConfig::default(),
    )?;
    let xs = vec![vec![vec![1.5, 2.5]]; n];
    let value = p.value_with_inner(&[1.0], &xs)?;
    // Per-fantasy values for the standard error (each uses its own block).
    let e = expected_improvement(&gp, array![1.0].view(), best)?;
    let per: Vec<f64> = (0..n)
        .map(|i| {
            let one = TwoStepSamples {
                outer: vec![s.outer[i]],
                inner: s.inner[i * m * 2..(i + 1) * m * 2].to_vec(),
                m,
                inner_raw: s.inner_raw.clone(),
            };
            let pi = TwoStepSaa::new(
                &gp,
                &bounds,
                best,
                inner,
                &one,
                InnerSplit::Full,
                SaaConfig::default(),
            )
            .expect("valid");
            pi.value_with_inner(&[1.0], &xs[..1]).expect("valid") - e
        })
        .collect();
    let mean = per.iter().sum::<f64>() / n as f64;
    let sd = (per.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt();
    let mut times = Vec::new();
    for _ in 0..repeats {
        let t = Instant::now();
        std::hint::black_box(p.value_with_inner(std::hint::black_box(&[1.0]), &xs)?);
        times.push(t.elapsed().as_secs_f64());
    }
    times.sort_by(f64::total_cmp);
    let fmt = |v: &[f64]| {
        v.iter()
            .map(|x| format!("{x:.17e}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    println!(
        "{{\"grid\": [{}], \"mean\": [{}], \"var\": [{}], \"ei\": [{}], \"best_f\": {best:.17e}, \
         \"fant_mean\": [{}], \"fant_var\": [{}], \"two_step\": {value:.17e}, \"two_step_se\": {:.17e}, \
         \"n\": {n}, \"m\": {m}, \"seconds_median\": {:.6e}}}",
        fmt(&grid),
        fmt(&mu),
        fmt(&var),
        fmt(&ei),
        fmt(&fmu),
        fmt(&fvar),
        sd / (n as f64).sqrt(),
        times[times.len() / 2]
    );
    Ok(())
}
