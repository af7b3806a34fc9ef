//! The multi-start L-BFGS wrapper: boundary snapping and the cap on values.

use lookahead_mlmc::optim::{Bounds, FnObjective, LbfgsConfig, Objective, maximize_multistart};
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
