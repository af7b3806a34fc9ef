//! Diagnostic: why the antithetic variance rate β of the two-step (1+2-EI)
//! value is below 1.5 on the spec's 1-D GP. For levels 4..=9 it draws `n`
//! fantasies, solves the fine and the antithetic coarse inner problems with
//! the coupled solve of `TwoStepValueSampler`, and splits `Var ΔP_ℓ` into the
//! part from fantasies whose fine and coarse inner maximisers lie in the same
//! mode (the smooth regime, β = 2) and the part where they switch modes (the
//! kink regime, β = 1.5), for a default and an accurate inner solver.
//!
//! `cargo run --release -p lookahead-mlmc --example two_step_beta [n] [first level] [last level] [default-only]`

use lookahead_mlmc::gp::{ExactGp, Kernel, KernelKind};
use lookahead_mlmc::lookahead::{InnerSplit, InnerValue, SaaConfig, TwoStepSaa, TwoStepSamples};
use lookahead_mlmc::optim::{Bounds, LbfgsConfig};
use mlcore::sampling::seeded;
use ndarray::{Array1, array};

fn spec_gp() -> ExactGp {
    let x = array![[-8.0], [-3.0], [0.0], [2.5], [7.0]];
    let y: Array1<f64> = x.column(0).mapv(lookahead_mlmc::testfns::toy1d);
    let k = Kernel::new(KernelKind::Matern52, vec![2.0], 1.0).unwrap();
    ExactGp::new(x.view(), y.view(), k, 0.0, 1e-4).unwrap()
}

/// Distance between two q = 2 batches, up to the order of the points.
fn batch_dist(a: &[f64], b: &[f64]) -> f64 {
    let d1 = ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2)).sqrt();
    let d2 = ((a[0] - b[1]).powi(2) + (a[1] - b[0]).powi(2)).sqrt();
    d1.min(d2)
}

fn var(v: &[f64]) -> f64 {
    let n = v.len() as f64;
    let m = v.iter().sum::<f64>() / n;
    v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (n - 1.0)
}

/// Least-squares slope of the points' second coordinate on the first.
fn slope(pts: &[(f64, f64)]) -> f64 {
    let (x, y): (Vec<f64>, Vec<f64>) = pts.iter().copied().unzip();
    mlcore::stats::linear_fit(x.as_slice().into(), y.as_slice().into()).map_or(f64::NAN, |f| f.0)
}

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(300);
    let lo: u32 = std::env::args()
        .nth(2)
        .and_then(|s| s.parse().ok())
        .unwrap_or(4);
    let hi: u32 = std::env::args()
        .nth(3)
        .and_then(|s| s.parse().ok())
        .unwrap_or(9);
    let only_default = std::env::args().nth(4).is_some();
    let gp = spec_gp();
    let b = Bounds::new(vec![-10.0], vec![10.0]).unwrap();
    let best = gp.best_observed();
    let inner = InnerValue::QEi { q: 2 };
    let accurate = SaaConfig {
        inner_raw_samples: 128,
        inner_restarts: 8,
        inner_lbfgs: LbfgsConfig {
            max_iters: 200,
            tol_grad: 1e-12,
            tol_cost: 1e-15,
            ..LbfgsConfig::default()
        },
        ..SaaConfig::default()
    };
    let cfgs = if only_default {
        vec![("default", SaaConfig::default())]
    } else {
        vec![("default", SaaConfig::default()), ("accurate", accurate)]
    };
    for (name, cfg) in cfgs {
        println!("== inner solver: {name}");
        println!(
            " ℓ   Var ΔP      same-mode share  E[ΔP²; same]     E[ΔP²; switch]     E|ΔP|    near-bound share"
        );
        let mut rng = seeded(7);
        let (mut all, mut same_pts, mut sw_pts) = (Vec::new(), Vec::new(), Vec::new());
        for l in lo..=hi {
            let m = 1usize << l;
            let s =
                TwoStepSamples::draw(n, m, inner, &b.repeat(2), cfg.inner_raw_samples, &mut rng);
            let fp = TwoStepSaa::new(&gp, &b, best, inner, &s, InnerSplit::Full, cfg).unwrap();
            let cp =
                TwoStepSaa::new(&gp, &b, best, inner, &s, InnerSplit::Antithetic, cfg).unwrap();
            let (f0, c0) = (fp.evaluate(&[1.0]).unwrap(), cp.evaluate(&[1.0]).unwrap());
            let hints: Vec<Vec<Vec<f64>>> = f0
                .inner_x
                .iter()
                .zip(&c0.inner_x)
                .map(|(f, c)| f.iter().chain(c).cloned().collect())
                .collect();
            let f = fp.evaluate_with_hints(&[1.0], &hints).unwrap();
            let c = cp.evaluate_with_hints(&[1.0], &hints).unwrap();
            let d: Vec<f64> = f
                .inner_values
                .iter()
                .zip(&c.inner_values)
                .map(|(a, b)| a - b)
                .collect();
            let same: Vec<bool> = (0..n)
                .map(|i| {
                    let fx = &f.inner_x[i][0];
                    c.inner_x[i].iter().all(|cx| batch_dist(fx, cx) < 0.5)
                })
                .collect();
            let at_bound = f
                .inner_x
                .iter()
                .flatten()
                .chain(c.inner_x.iter().flatten())
                .filter(|x| x.iter().any(|v| v.abs() > 9.9))
                .count() as f64
                / (3 * n) as f64;
            let ds: Vec<f64> = d.iter().zip(&same).filter(|p| *p.1).map(|p| *p.0).collect();
            let dw: Vec<f64> = d
                .iter()
                .zip(&same)
                .filter(|p| !*p.1)
                .map(|p| *p.0)
                .collect();
            // Second-moment decomposition E[ΔP²] = share·E[ΔP²|same] + (1−share)·E[ΔP²|switch].
            let m2 = |v: &[f64]| v.iter().map(|x| x * x).sum::<f64>() / n as f64;
            let v = var(&d);
            let mabs = d.iter().map(|x| x.abs()).sum::<f64>() / n as f64;
            println!(
                "{l:2}  {v:10.3e}  {:6.3}           {:10.3e}       {:10.3e}          {mabs:9.3e}  {at_bound:5.3}",
                ds.len() as f64 / n as f64,
                m2(&ds),
                m2(&dw)
            );
            all.push((l as f64, v.log2()));
            if m2(&ds) > 0.0 {
                same_pts.push((l as f64, m2(&ds).log2()));
            }
            if m2(&dw) > 0.0 {
                sw_pts.push((l as f64, m2(&dw).log2()));
            }
        }
        println!(
            "fitted β: all {:.2}   same-mode part {:.2}   mode-switch part {:.2}",
            -slope(&all),
            -slope(&same_pts),
            -slope(&sw_pts)
        );
    }
}
