//! The multi-start L-BFGS wrapper: boundary snapping and the cap on values.

use lookahead_mlmc::gp::{FitConfig, fit_map};
use lookahead_mlmc::optim::{
    Bounds, FnObjective, LbfgsConfig, LocalOptimum, Objective, maximize_multistart,
};
use lookahead_mlmc::testfns::TestFunction;
use mlcore::sampling::seeded;
use ndarray::{Array1, Array2};
use std::cell::Cell;

/// A maximum on the boundary is reached exactly (the sigmoid transform alone
/// only approaches it), and an interior maximum is left where it is.
#[test]
fn boundary_optimum_is_hit_exactly() {
    let b = Bounds::new(vec![-2.0, 0.0], vec![3.0, 1.0]).unwrap();
    let f = FnObjective(|x: &[f64]| x[0] - (x[1] - 0.3).powi(2));
    let o = maximize_multistart(&f, &b, &[vec![0.0, 0.5]], &LbfgsConfig::default()).unwrap();
    assert_eq!(o[0].x[0], 3.0);
    assert!((o[0].x[1] - 0.3).abs() < 1e-4, "{:?}", o[0].x);
    assert!((o[0].value - 3.0).abs() < 1e-8);
}

struct Counting<'a> {
    calls: &'a Cell<usize>,
}

impl Objective for Counting<'_> {
    fn value(&self, x: &[f64]) -> f64 {
        self.calls.set(self.calls.get() + 1);
        -(x[0] - 0.7).powi(2) + 0.01 * (40.0 * x[0]).sin()
    }
    fn gradient(&self, x: &[f64], _h: &[f64]) -> Vec<f64> {
        // A deliberately inconsistent gradient (as with noisy inner solves).
        vec![-(x[0] - 0.2)]
    }
}

/// `max_evals` bounds the objective values per restart (L-BFGS value calls
/// plus the start, the final re-evaluation and the boundary check).
#[test]
fn max_evals_caps_the_cost_of_a_restart() {
    let b = Bounds::unit(1).unwrap();
    let calls = Cell::new(0);
    let obj = Counting { calls: &calls };
    let cfg = LbfgsConfig {
        max_iters: 50,
        max_evals: Some(6),
        ..LbfgsConfig::default()
    };
    let o = maximize_multistart(&obj, &b, &[vec![0.9], vec![0.1]], &cfg).unwrap();
    assert_eq!(o.len(), 2);
    assert!(calls.get() <= 2 * (6 + 3), "{} values", calls.get());
    for r in &o {
        assert!(r.value.is_finite() && (0.0..=1.0).contains(&r.x[0]));
    }
}

// ---------------------------------------------------------------------------
// Known optima (closed forms and the literature), and the MAP fit against a
// brute-force grid of its own objective.

fn seeded_starts(b: &Bounds, n: usize, seed: u64) -> Vec<Vec<f64>> {
    let mut rng = seeded(seed);
    (0..n).map(|_| b.sample(&mut rng)).collect()
}

/// A quadratic with its exact gradient (no finite differences).
struct WithGradient<'a> {
    calls: &'a Cell<usize>,
}

impl Objective for WithGradient<'_> {
    fn value(&self, x: &[f64]) -> f64 {
        self.calls.set(self.calls.get() + 1);
        -(x[0] - 0.25).powi(2) - 3.0 * (x[1] + 0.5).powi(2) + 0.5 * x[0] * x[1]
    }
    fn gradient(&self, x: &[f64], _h: &[f64]) -> Vec<f64> {
        vec![
            -2.0 * (x[0] - 0.25) + 0.5 * x[1],
            -6.0 * (x[1] + 0.5) + 0.5 * x[0],
        ]
    }
}

fn best(o: &[LocalOptimum]) -> &LocalOptimum {
    o.iter().max_by(|a, b| a.value.total_cmp(&b.value)).unwrap()
}

/// Multi-start L-BFGS reaches the known maxima of the test functions:
/// Branin −0.397887 at (−π, 12.275), (π, 2.275) or (3π, 2.475); the 1-D toy
/// 1.401897 at 2.000874; Hartmann-6 3.32237 at
/// (0.20169, 0.150011, 0.476874, 0.275332, 0.311652, 0.6573); Ackley 0 at 0.
#[test]
fn multistart_reaches_the_known_optima() {
    use std::f64::consts::PI;
    let cases: Vec<(TestFunction, usize, u64, Vec<Vec<f64>>)> = vec![
        (
            TestFunction::branin(),
            8,
            5,
            vec![vec![-PI, 12.275], vec![PI, 2.275], vec![3.0 * PI, 2.475]],
        ),
        (TestFunction::toy1d(), 6, 6, vec![vec![2.000_874]]),
        (
            TestFunction::hartmann6(),
            8,
            7,
            vec![vec![
                0.20169, 0.150011, 0.476874, 0.275332, 0.311652, 0.6573,
            ]],
        ),
        (
            TestFunction::ackley(2, 5.0).unwrap(),
            12,
            8,
            vec![vec![0.0, 0.0]],
        ),
    ];
    for (tf, n, seed, argmaxes) in cases {
        let starts = seeded_starts(&tf.bounds, n, seed);
        let f = FnObjective(|x: &[f64]| tf.eval(x).unwrap());
        let o = maximize_multistart(&f, &tf.bounds, &starts, &LbfgsConfig::default()).unwrap();
        let b = best(&o);
        assert!(
            (b.value - tf.optimum).abs() < 1e-6,
            "{}: {} vs {}",
            tf.name,
            b.value,
            tf.optimum
        );
        let near = argmaxes
            .iter()
            .any(|a| a.iter().zip(&b.x).all(|(u, v)| (u - v).abs() < 1e-3));
        assert!(near, "{}: {:?}", tf.name, b.x);
    }
}

/// A concave quadratic `−(x₀ − ¼)² − 3(x₁ + ½)² + ½x₀x₁` with its exact
/// gradient and memory 2: the maximiser solves `[[2, −½], [−½, 6]] x = [½, −3]`,
/// i.e. `x = (6/47, −23/47)` (inside the box).
#[test]
fn exact_gradient_quadratic_reaches_its_closed_form_maximiser() {
    let b = Bounds::new(vec![-1.0, -2.0], vec![1.0, 0.5]).unwrap();
    let calls = Cell::new(0);
    let obj = WithGradient { calls: &calls };
    let small = LbfgsConfig {
        memory: 2,
        ..LbfgsConfig::default()
    };
    let o = maximize_multistart(&obj, &b, &seeded_starts(&b, 2, 12), &small).unwrap();
    for r in &o {
        assert!((r.x[0] - 6.0 / 47.0).abs() < 1e-6, "{:?}", r.x);
        assert!((r.x[1] + 23.0 / 47.0).abs() < 1e-6, "{:?}", r.x);
    }
}

/// A loss that is NaN on part of the box: every restart returns a finite
/// value at a point where the loss is defined, and the best reaches the
/// constrained maximum of `−(x₀ − 0.9)² − (x₁ − 0.4)²` on `x₀ ≤ 0.8`, i.e.
/// `−0.01` at `(0.8, 0.4)`, to within the sigmoid's approach.
#[test]
fn nan_region_is_avoided() {
    let b = Bounds::unit(2).unwrap();
    let f = FnObjective(|x: &[f64]| {
        if x[0] > 0.8 {
            f64::NAN
        } else {
            -(x[0] - 0.9).powi(2) - (x[1] - 0.4).powi(2)
        }
    });
    let o =
        maximize_multistart(&f, &b, &seeded_starts(&b, 3, 11), &LbfgsConfig::default()).unwrap();
    for r in &o {
        assert!(r.value.is_finite() && r.x[0] <= 0.8, "{r:?}");
    }
    assert!((best(&o).value + 0.01).abs() < 1e-3, "{:?}", best(&o));
}

/// The MAP objective written out from its definition: the log marginal
/// likelihood of the GP plus the Γ log-densities `(a − 1) ln t − b t`.
fn map_objective(x: &Array2<f64>, y: &Array1<f64>, ls: f64, s: f64, m: f64) -> f64 {
    use lookahead_mlmc::gp::{ExactGp, Kernel, KernelKind};
    let k = Kernel::new(KernelKind::Matern52, vec![ls], s).unwrap();
    let gp = ExactGp::new(x.view(), y.view(), k, m, 1e-4).unwrap();
    gp.log_marginal_likelihood() + (3.0 - 1.0) * ls.ln() - 6.0 * ls + (2.0 - 1.0) * s.ln()
        - 0.15 * s
}

/// `fit_map` (d = 1) reaches the MAP objective's maximum found by brute
/// force: a grid over (log ℓ, log s) with the mean profiled exactly (the
/// objective is a concave quadratic in m: three values give its maximum),
/// refined around the best cell.
#[test]
fn fit_map_matches_a_brute_force_grid() {
    let n = 6;
    let mut rng = seeded(13);
    let unit = Bounds::unit(1).unwrap();
    let rows: Vec<Vec<f64>> = (0..n).map(|_| unit.sample(&mut rng)).collect();
    let x = Array2::from_shape_fn((n, 1), |(i, _)| rows[i][0]);
    let y: Array1<f64> = rows.iter().map(|r| (6.0 * r[0]).sin() + r[0]).collect();
    let profiled = |ll: f64, lsig: f64| -> f64 {
        let (ls, s) = (ll.exp(), lsig.exp());
        let (a, b, c) = (
            map_objective(&x, &y, ls, s, -1.0),
            map_objective(&x, &y, ls, s, 0.0),
            map_objective(&x, &y, ls, s, 1.0),
        );
        // q(m) = b + (c − a)/2 m + (a − 2b + c)/2 m², maximum b − (c − a)²/(8(a − 2b + c)).
        b - (c - a).powi(2) / (8.0 * (a - 2.0 * b + c))
    };
    let grid = |lo: [f64; 2], hi: [f64; 2], k: usize| -> (f64, [f64; 2]) {
        let mut bestv = (f64::NEG_INFINITY, [0.0, 0.0]);
        for i in 0..=k {
            for j in 0..=k {
                let p = [
                    lo[0] + (hi[0] - lo[0]) * i as f64 / k as f64,
                    lo[1] + (hi[1] - lo[1]) * j as f64 / k as f64,
                ];
                let v = profiled(p[0], p[1]);
                if v > bestv.0 {
                    bestv = (v, p);
                }
            }
        }
        bestv
    };
    let (lo, hi) = ([1e-3f64.ln(), 1e-4f64.ln()], [1e2f64.ln(), 1e4f64.ln()]);
    let (_, p) = grid(lo, hi, 60);
    let h = [(hi[0] - lo[0]) / 60.0, (hi[1] - lo[1]) / 60.0];
    let (_, p) = grid([p[0] - h[0], p[1] - h[1]], [p[0] + h[0], p[1] + h[1]], 40);
    let h = [h[0] / 20.0, h[1] / 20.0];
    let (brute, _) = grid([p[0] - h[0], p[1] - h[1]], [p[0] + h[0], p[1] + h[1]], 40);
    let gp = fit_map(x.view(), y.view(), &FitConfig::default()).unwrap();
    let ours = map_objective(
        &x,
        &y,
        gp.kernel().lengthscales()[0],
        gp.kernel().outputscale(),
        gp.mean_constant(),
    );
    assert!(ours >= brute - 1e-6, "fit_map {ours} < brute force {brute}");
    assert!(ours <= brute + 1e-4, "fit_map {ours} > brute force {brute}");
}
