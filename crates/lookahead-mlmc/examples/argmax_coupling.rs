//! Diagnostic: the coupled coarse solve of `mlmc_two_step_argmax` against an
//! uncoupled one. At one level (`M = 2^ℓ` inner samples, `N` fantasies) on
//! the spec's 1-D GP it maximises the fine two-step SAA problem, then the
//! antithetic coarse problem (same base samples) either from the same
//! EI-chosen restarts (uncoupled) or from the fine local optima with the
//! fine inner maximisers as extra inner restarts (coupled, the crate's
//! choice), pairs the coarse optimum nearest to the best fine one
//! (backward rule) and prints E[Δα²], E|Δα| and E‖Δx‖ over replicates.
//!
//! `cargo run --release -p lookahead-mlmc --example argmax_coupling [reps] [level] [N]`

use lookahead_mlmc::acq::expected_improvement;
use lookahead_mlmc::gp::{ExactGp, Kernel, KernelKind};
use lookahead_mlmc::lookahead::{InnerSplit, InnerValue, SaaConfig, TwoStepSaa, TwoStepSamples};
use lookahead_mlmc::optim::{Bounds, LocalOptimum, best_of, top_k};
use mlcore::sampling::seeded;
use ndarray::{Array1, array};

fn spec_gp() -> ExactGp {
    let x = array![[-8.0], [-3.0], [0.0], [2.5], [7.0]];
    let y: Array1<f64> = x.column(0).mapv(lookahead_mlmc::testfns::toy1d);
    let k = Kernel::new(KernelKind::Matern52, vec![2.0], 1.0).unwrap();
    ExactGp::new(x.view(), y.view(), k, 0.0, 1e-4).unwrap()
}

fn nearest<'a>(c: &'a [LocalOptimum], to: &[f64]) -> &'a LocalOptimum {
    c.iter()
        .min_by(|a, b| (a.x[0] - to[0]).abs().total_cmp(&(b.x[0] - to[0]).abs()))
        .unwrap()
}

fn main() {
    let arg = |i: usize, d: usize| {
        std::env::args()
            .nth(i)
            .and_then(|s| s.parse().ok())
            .unwrap_or(d)
    };
    let (reps, level, n) = (arg(1, 12), arg(2, 4) as u32, arg(3, 8));
    let gp = spec_gp();
    let b = Bounds::new(vec![-10.0], vec![10.0]).unwrap();
    let best = gp.best_observed();
    let inner = InnerValue::QEi { q: 2 };
    let cfg = SaaConfig {
        raw_samples: 32,
        restarts: 3,
        inner_raw_samples: 16,
        inner_restarts: 2,
        ..SaaConfig::default()
    };
    let mut rng = seeded(17);
    let (mut u, mut c, mut sy) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..reps {
        let s = TwoStepSamples::draw(n, 1 << level, inner, &b.repeat(2), 16, &mut rng);
        let raw: Vec<Vec<f64>> = (0..cfg.raw_samples).map(|_| b.sample(&mut rng)).collect();
        let starts = top_k(
            &raw,
            |x| expected_improvement(&gp, array![x[0]].view(), best).unwrap_or(0.0),
            cfg.restarts,
        );
        let fp = TwoStepSaa::new(&gp, &b, best, inner, &s, InnerSplit::Full, cfg).unwrap();
        let fine = fp.maximize(&starts).unwrap();
        let f = best_of(&fine).unwrap().clone();
        let cp = TwoStepSaa::new(&gp, &b, best, inner, &s, InnerSplit::Antithetic, cfg).unwrap();
        let cu = cp.maximize(&starts).unwrap();
        let m = nearest(&cu, &f.x);
        u.push((f.value - m.value, (f.x[0] - m.x[0]).abs()));
        let mut cp2 =
            TwoStepSaa::new(&gp, &b, best, inner, &s, InnerSplit::Antithetic, cfg).unwrap();
        cp2.set_hints(fp.evaluate(&f.x).unwrap().inner_x).unwrap();
        let cstarts: Vec<Vec<f64>> = fine.iter().map(|o| o.x.clone()).collect();
        let cc = cp2.maximize(&cstarts).unwrap();
        let m = nearest(&cc, &f.x);
        c.push((f.value - m.value, (f.x[0] - m.x[0]).abs()));
        // Symmetric: both problems re-solved with the inner maximisers of both.
        let bc = best_of(&cc).unwrap().x.clone();
        let hf = fp.evaluate(&f.x).unwrap().inner_x;
        let hc = cp2.evaluate(&bc).unwrap().inner_x;
        let both: Vec<Vec<Vec<f64>>> = hf
            .iter()
            .zip(&hc)
            .map(|(a, b)| a.iter().chain(b).cloned().collect())
            .collect();
        let mut fp3 = TwoStepSaa::new(&gp, &b, best, inner, &s, InnerSplit::Full, cfg).unwrap();
        fp3.set_hints(both.clone()).unwrap();
        let fine3 = fp3.maximize(&cstarts).unwrap();
        let f3 = best_of(&fine3).unwrap().clone();
        let mut cp3 =
            TwoStepSaa::new(&gp, &b, best, inner, &s, InnerSplit::Antithetic, cfg).unwrap();
        cp3.set_hints(both).unwrap();
        let fstarts: Vec<Vec<f64>> = fine3.iter().map(|o| o.x.clone()).collect();
        let cc3 = cp3.maximize(&fstarts).unwrap();
        let m = nearest(&cc3, &f3.x);
        sy.push((f3.value - m.value, (f3.x[0] - m.x[0]).abs()));
    }
    let stats = |v: &[(f64, f64)]| {
        let k = v.len() as f64;
        (
            v.iter().map(|p| p.0 * p.0).sum::<f64>() / k,
            v.iter().map(|p| p.0.abs()).sum::<f64>() / k,
            v.iter().map(|p| p.1).sum::<f64>() / k,
        )
    };
    println!(
        "level {level} (M = {}), N = {n}, {reps} replicates",
        1 << level
    );
    for (name, v) in [("uncoupled", &u), ("coupled", &c), ("symmetric", &sy)] {
        let (m2, ma, md) = stats(v);
        println!("{name:>10}: E[Δα²] = {m2:.3e}  E|Δα| = {ma:.3e}  E|Δx| = {md:.3e}");
    }
}
