//! `mlcore::optim`: the box-constrained L-BFGS (logistic map and Optim.jl's
//! `Fminbox` barrier), its typed errors, failure handling and seeded
//! multistart.

use mlcore::Error;
use mlcore::optim::{
    Bounds, BoxMethod, EarlyStop, FnObjective, Lbfgs, LineSearch, LocalFit, Logistic, Objective,
    Pullback, StageTol, best, minimize, minimize_logit, minimize_multistart,
};
use proptest::prelude::*;
use std::cell::Cell;

/// `Σ wᵢ (xᵢ − cᵢ)²`.
fn quadratic(c: Vec<f64>, w: Vec<f64>) -> FnObjective<impl Fn(&[f64]) -> (f64, Vec<f64>)> {
    FnObjective(move |x: &[f64]| {
        let v = x
            .iter()
            .zip(&c)
            .zip(&w)
            .map(|((x, c), w)| w * (x - c) * (x - c))
            .sum();
        let g = x
            .iter()
            .zip(&c)
            .zip(&w)
            .map(|((x, c), w)| 2.0 * w * (x - c))
            .collect();
        (v, g)
    })
}

/// Rosenbrock `(1 − a)² + 100 (b − a²)²`.
fn rosenbrock(x: &[f64]) -> (f64, Vec<f64>) {
    let (a, b) = (x[0], x[1]);
    let v = (1.0 - a).powi(2) + 100.0 * (b - a * a).powi(2);
    let g = vec![
        -2.0 * (1.0 - a) - 400.0 * a * (b - a * a),
        200.0 * (b - a * a),
    ];
    (v, g)
}

/// The objective's own error type, as a paper crate has one.
#[derive(Debug, PartialEq)]
enum MyError {
    Blew,
    Core(Error),
}

impl From<Error> for MyError {
    fn from(e: Error) -> Self {
        MyError::Core(e)
    }
}

/// `(x − 0.45)²` that fails (like an ODE that blows up) for `x > 0.5`.
struct FailsAbove;

impl Objective for FailsAbove {
    type Error = MyError;
    fn value(&self, x: &[f64]) -> Result<f64, MyError> {
        if x[0] > 0.5 {
            return Err(MyError::Blew);
        }
        Ok((x[0] - 0.45).powi(2))
    }
    fn value_grad(&self, x: &[f64]) -> Result<(f64, Vec<f64>), MyError> {
        Ok((self.value(x)?, vec![2.0 * (x[0] - 0.45)]))
    }
}

fn rosenbrock_box() -> Bounds {
    Bounds::new(vec![-2.0, -1.0], vec![2.0, 3.0]).unwrap()
}

fn trace(f: &LocalFit) -> (Vec<f64>, f64, u64, u64, u64) {
    (f.params.clone(), f.loss, f.iters, f.evals, f.grad_evals)
}

// ---------------------------------------------------------------------------
// Regression pins. Every number below was recorded on the pre-move code
// (commit c326e1a, where the optimisers still lived in diffusion-tempering's
// `optimize.rs`/`fminbox.rs` and lookahead-mlmc's `optim.rs`); the same runs
// are pinned through those crates' APIs in their `tests/optim_pins.rs` and
// `tests/optim.rs`. Compared bit for bit.
// ---------------------------------------------------------------------------

/// Optim.jl's `Fminbox` port (diffusion-tempering's `LbfgsConfig::fminbox`).
#[test]
fn barrier_pins_from_the_pre_move_code_hold() {
    let cfg = Lbfgs::fminbox(1e-12);
    let f = FnObjective(rosenbrock);
    let b = rosenbrock_box();
    let expected = [
        (
            [-1.5, 2.5],
            (
                vec![0.9999999999857812, 0.9999999999715625],
                2.0217565250539665e-22,
                57,
                84,
                58,
            ),
        ),
        (
            [1.9, -0.9],
            (
                vec![0.9999999999296132, 0.9999999998592282],
                4.954302984686224e-21,
                52,
                72,
                53,
            ),
        ),
        (
            [0.0, 0.0],
            (
                vec![0.9999999997142717, 0.9999999994285511],
                8.164068453867903e-20,
                30,
                44,
                31,
            ),
        ),
    ];
    for (init, want) in expected {
        assert_eq!(
            trace(&minimize(&f, &b, &init, &cfg).unwrap()),
            want,
            "{init:?}"
        );
    }
    let q = quadratic(vec![0.5, -2.0, 3.5], vec![1.0, 10.0, 0.3]);
    let b3 = Bounds::new(vec![-1.0; 3], vec![2.0; 3]).unwrap();
    assert_eq!(
        trace(&minimize(&q, &b3, &[0.2, 1.5, -0.5], &cfg).unwrap()),
        (
            vec![0.49999999582656085, -1.0, 1.9999999999999996],
            10.675,
            70,
            84,
            71
        )
    );
    let b1 = Bounds::unit(1).unwrap();
    assert_eq!(
        trace(&minimize(&FailsAbove, &b1, &[0.01], &cfg).unwrap()),
        (vec![0.4500000017600631], 3.097822099326306e-18, 4, 6, 5)
    );
    let short = Lbfgs {
        early_stop: Some(EarlyStop::default()),
        rounds: 2,
        ..Lbfgs::fminbox(1e-3)
    };
    assert_eq!(
        trace(&minimize(&f, &b, &[-1.5, 2.5], &short).unwrap()),
        (
            vec![0.5630200693260519, 0.28743372588720617],
            0.2783182429378877,
            27,
            39,
            28
        )
    );
}

/// The logistic map with backtracking (diffusion-tempering's default
/// `LbfgsConfig`, with and without its restart rounds).
#[test]
fn logistic_pins_from_the_pre_move_code_hold() {
    let f = FnObjective(rosenbrock);
    let b = rosenbrock_box();
    let rounds = Lbfgs {
        rounds: 10,
        round_tol: StageTol {
            abs: 0.0,
            rel: 1e-9,
        },
        ..Lbfgs::default()
    };
    let expected = [
        (
            Lbfgs::default(),
            [0.0, 0.0],
            (
                vec![1.0000003750261763, 1.0000006943413862],
                4.510173779324705e-13,
                20,
                25,
                21,
            ),
        ),
        (
            rounds,
            [-1.5, 2.5],
            (
                vec![1.0000000016288242, 1.000000003277441],
                2.6922429799343376e-18,
                45,
                357,
                53,
            ),
        ),
        (
            rounds,
            [1.9, -0.9],
            (
                vec![0.9999999893573079, 0.9999999786296871],
                1.139881851204974e-16,
                33,
                344,
                43,
            ),
        ),
    ];
    for (cfg, init, want) in expected {
        assert_eq!(
            trace(&minimize(&f, &b, &init, &cfg).unwrap()),
            want,
            "{init:?}"
        );
    }
    let b1 = Bounds::unit(1).unwrap();
    assert_eq!(
        trace(&minimize(&FailsAbove, &b1, &[0.01], &Lbfgs::default()).unwrap()),
        (vec![0.02672363098939523], 0.17916288456280166, 2, 54, 3)
    );
}

/// lookahead-mlmc's configuration (More–Thuente, `1e300` for failures,
/// chained pull-back, no step cap, memory 2 here) maximising a quadratic
/// with its exact gradient from its two pinned seeded starts: the same
/// maximisers and values as `lookahead-mlmc/tests/optim.rs` ("exact
/// gradient").
#[test]
fn more_thuente_pins_from_the_pre_move_code_hold() {
    let f = |x: &[f64]| -(x[0] - 0.25).powi(2) - 3.0 * (x[1] + 0.5).powi(2) + 0.5 * x[0] * x[1];
    // −f and its gradient, as lookahead-mlmc hands them over.
    let neg = FnObjective(|x: &[f64]| {
        let g = [
            -2.0 * (x[0] - 0.25) + 0.5 * x[1],
            -6.0 * (x[1] + 0.5) + 0.5 * x[0],
        ];
        (-f(x), g.iter().map(|g| -g).collect())
    });
    let b = Bounds::new(vec![-1.0, -2.0], vec![1.0, 0.5]).unwrap();
    let cfg = Lbfgs {
        memory: 2,
        max_iters: 60,
        grad_tol: 1e-9,
        cost_tol: 1e-12,
        tol: None,
        line_search: LineSearch::MoreThuente,
        max_step: f64::INFINITY,
        logistic: Logistic {
            clip: 1e-6,
            fail_value: 1e300,
            pullback: Pullback::Chained,
        },
        ..Lbfgs::default()
    };
    let expected = [
        (
            [0.12765957446885978, -0.48936170212760555],
            -0.046542553191489366,
        ),
        (
            [0.12765956425017677, -0.48936169129742435],
            -0.04654255319148987,
        ),
    ];
    for (start, (x, v)) in b.seeded_starts(2, 12).iter().zip(expected) {
        let u0 = b.to_logit(start, cfg.logistic.clip);
        let (fit, _) = minimize_logit(&neg, &b, u0, &cfg, None).unwrap();
        assert_eq!((fit.params.as_slice(), -fit.loss), (x.as_slice(), v));
    }
}

// ---------------------------------------------------------------------------
// Independent checks.
// ---------------------------------------------------------------------------

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// The barrier method finds an interior minimum of a separable quadratic
    /// and replaces one outside the box by its projection onto the box.
    #[test]
    fn barrier_quadratic_minimum_is_the_projection_onto_the_box(
        c in prop::collection::vec(-3.0f64..3.0, 1..4),
        w in prop::collection::vec(0.1f64..50.0, 4),
        start in prop::collection::vec(0.0f64..1.0, 4),
    ) {
        let n = c.len();
        let b = Bounds::new(vec![-1.0; n], vec![2.0; n]).unwrap();
        let q = quadratic(c.clone(), w[..n].to_vec());
        let init: Vec<f64> = start[..n].iter().map(|s| -1.0 + 3.0 * s).collect();
        let fit = minimize(&q, &b, &init, &Lbfgs::fminbox(1e-12)).unwrap();
        for i in 0..n {
            prop_assert!((fit.params[i] - c[i].clamp(-1.0, 2.0)).abs() < 1e-5, "{:?} vs {:?}", fit.params, c);
        }
        prop_assert!(b.contains(&fit.params));
    }

    /// The logistic method (with restart rounds) finds an interior minimum,
    /// approaches one outside the box, and never leaves the box.
    #[test]
    fn logistic_quadratic_minimum_is_the_projection_onto_the_box(
        c in prop::collection::vec(-3.0f64..3.0, 1..4),
        w in prop::collection::vec(0.1f64..50.0, 4),
        start in prop::collection::vec(0.0f64..1.0, 4),
    ) {
        let n = c.len();
        let b = Bounds::new(vec![-1.0; n], vec![2.0; n]).unwrap();
        let q = quadratic(c.clone(), w[..n].to_vec());
        let init: Vec<f64> = start[..n].iter().map(|s| -1.0 + 3.0 * s).collect();
        let cfg = Lbfgs { rounds: 10, round_tol: StageTol { abs: 0.0, rel: 1e-12 }, ..Lbfgs::default() };
        let fit = minimize(&q, &b, &init, &cfg).unwrap();
        for i in 0..n {
            prop_assert!((fit.params[i] - c[i].clamp(-1.0, 2.0)).abs() < 1e-3, "{:?} vs {:?}", fit.params, c);
        }
        prop_assert!(b.contains(&fit.params));
    }
}

#[test]
fn rosenbrock_is_solved_inside_a_box_and_on_its_boundary() {
    let f = FnObjective(rosenbrock);
    let b = rosenbrock_box();
    for init in [[-1.5, 2.5], [1.9, -0.9], [0.0, 0.0]] {
        let fit = minimize(&f, &b, &init, &Lbfgs::fminbox(1e-12)).unwrap();
        assert!(
            (fit.params[0] - 1.0).abs() < 1e-4 && (fit.params[1] - 1.0).abs() < 1e-4,
            "{init:?} -> {:?}",
            fit.params
        );
    }
    // A box that cuts the valley at b = 0.5: the minimum is on the bound.
    let cut = Bounds::new(vec![-2.0, -1.0], vec![2.0, 0.5]).unwrap();
    let fit = minimize(&f, &cut, &[-1.5, 0.0], &Lbfgs::fminbox(1e-12)).unwrap();
    assert!((fit.params[1] - 0.5).abs() < 1e-6, "{:?}", fit.params);
    // d/da of (1 − a)² + 100 (0.5 − a²)² vanishes at a ≈ 0.70856.
    let a = fit.params[0];
    assert!(
        (-2.0 * (1.0 - a) - 400.0 * a * (0.5 - a * a)).abs() < 1e-3,
        "{a}"
    );
}

#[test]
fn bad_bounds_are_typed_errors() {
    assert!(matches!(
        Bounds::new(vec![1.0], vec![0.0]),
        Err(Error::InvalidParameter { .. })
    ));
    assert!(matches!(
        Bounds::new(vec![0.0, 1.0], vec![1.0, 1.0]),
        Err(Error::InvalidParameter { .. })
    ));
    assert_eq!(
        Bounds::new(vec![0.0, f64::NAN], vec![1.0, 1.0]),
        Err(Error::NonFinite {
            what: "lower bounds",
            index: 1
        })
    );
    assert_eq!(
        Bounds::new(vec![0.0], vec![f64::INFINITY]),
        Err(Error::NonFinite {
            what: "upper bounds",
            index: 0
        })
    );
    assert!(matches!(
        Bounds::new(vec![0.0], vec![1.0, 2.0]),
        Err(Error::ShapeMismatch { .. })
    ));
    assert_eq!(
        Bounds::new(vec![], vec![]),
        Err(Error::Empty { what: "bounds" })
    );
    assert_eq!(Bounds::unit(0), Err(Error::Empty { what: "bounds" }));
}

#[test]
fn bad_starts_and_settings_are_typed_errors() {
    let f = FnObjective(rosenbrock);
    let b = rosenbrock_box();
    let cfg = Lbfgs::default();
    assert_eq!(
        minimize(&f, &b, &[], &cfg),
        Err(Error::Empty { what: "x0" })
    );
    assert!(matches!(
        minimize(&f, &b, &[0.0], &cfg),
        Err(Error::ShapeMismatch { .. })
    ));
    assert_eq!(
        minimize(&f, &b, &[0.0, f64::NAN], &cfg),
        Err(Error::NonFinite {
            what: "x0",
            index: 1
        })
    );
    for m in [BoxMethod::Logistic, BoxMethod::Barrier] {
        let cfg = Lbfgs {
            box_method: m,
            ..cfg
        };
        assert!(matches!(
            minimize(&f, &b, &[2.5, 0.0], &cfg),
            Err(Error::InvalidParameter { name: "x0", .. })
        ));
    }
    let bad = [
        Lbfgs { memory: 0, ..cfg },
        Lbfgs {
            max_iters: 0,
            ..cfg
        },
        Lbfgs { patience: 0, ..cfg },
        Lbfgs { rounds: 0, ..cfg },
        Lbfgs {
            grad_tol: -1.0,
            ..cfg
        },
        Lbfgs {
            cost_tol: f64::NAN,
            ..cfg
        },
        Lbfgs {
            tol: Some(StageTol {
                abs: f64::NAN,
                rel: 0.0,
            }),
            ..cfg
        },
        Lbfgs {
            max_step: 0.0,
            ..cfg
        },
        Lbfgs {
            early_stop: Some(EarlyStop {
                window: 0,
                delta: 0.1,
            }),
            ..cfg
        },
        Lbfgs {
            logistic: Logistic {
                clip: 0.5,
                ..Logistic::default()
            },
            ..cfg
        },
        Lbfgs {
            max_evals: Some(10),
            ..Lbfgs::fminbox(1e-6)
        },
    ];
    for c in bad {
        assert!(
            matches!(
                minimize(&f, &b, &[0.0, 0.0], &c),
                Err(Error::InvalidParameter { .. })
            ),
            "{c:?}"
        );
    }
    assert_eq!(
        minimize_logit(&f, &b, vec![0.0, f64::INFINITY], &cfg, None),
        Err(Error::NonFinite {
            what: "u0",
            index: 1
        })
    );
    assert_eq!(
        minimize_multistart(&f, &b, &[], &cfg),
        Err(Error::Empty { what: "starts" })
    );
}

/// A loss that fails above 0.5 counts as a failed point: both methods back
/// off and find the minimum at 0.45; an error at the start is returned as
/// the objective's own error.
#[test]
fn failed_evaluations_are_handled_and_a_failed_start_is_reported() {
    let b = Bounds::unit(1).unwrap();
    let fit = minimize(&FailsAbove, &b, &[0.01], &Lbfgs::fminbox(1e-12)).unwrap();
    assert!((fit.params[0] - 0.45).abs() < 1e-6, "{:?}", fit.params);
    let rounds = Lbfgs {
        rounds: 10,
        round_tol: StageTol { abs: 0.0, rel: 0.0 },
        ..Lbfgs::default()
    };
    let fit = minimize(&FailsAbove, &b, &[0.3], &rounds).unwrap();
    assert!((fit.params[0] - 0.45).abs() < 1e-3, "{:?}", fit.params);
    for m in [Lbfgs::default(), Lbfgs::fminbox(1e-6)] {
        assert_eq!(minimize(&FailsAbove, &b, &[0.9], &m), Err(MyError::Blew));
    }
    // Settings errors arrive wrapped in the objective's error type.
    assert!(matches!(
        minimize(
            &FailsAbove,
            &b,
            &[0.3],
            &Lbfgs {
                memory: 0,
                ..rounds
            }
        ),
        Err(MyError::Core(Error::InvalidParameter {
            name: "memory",
            ..
        }))
    ));
    // A NaN loss (not an error) is a failed point as well.
    let nan_above = FnObjective(|x: &[f64]| {
        if x[0] > 0.5 {
            (f64::NAN, vec![f64::NAN])
        } else {
            ((x[0] - 0.45).powi(2), vec![2.0 * (x[0] - 0.45)])
        }
    });
    let fit = minimize(&nan_above, &b, &[0.01], &Lbfgs::fminbox(1e-12)).unwrap();
    assert!((fit.params[0] - 0.45).abs() < 1e-6, "{:?}", fit.params);
}

/// Counts values and gradients.
struct Counted<F> {
    f: F,
    values: Cell<u64>,
    grads: Cell<u64>,
}

impl<F: Fn(&[f64]) -> (f64, Vec<f64>)> Objective for Counted<F> {
    type Error = Error;
    fn value(&self, x: &[f64]) -> mlcore::Result<f64> {
        self.values.set(self.values.get() + 1);
        Ok((self.f)(x).0)
    }
    fn value_grad(&self, x: &[f64]) -> mlcore::Result<(f64, Vec<f64>)> {
        self.grads.set(self.grads.get() + 1);
        Ok((self.f)(x))
    }
}

#[test]
fn reported_counts_are_the_real_ones_and_max_evals_caps_them() {
    let b = rosenbrock_box();
    for cfg in [Lbfgs::default(), Lbfgs::fminbox(1e-9)] {
        let c = Counted {
            f: rosenbrock,
            values: Cell::new(0),
            grads: Cell::new(0),
        };
        let fit = minimize(&c, &b, &[-1.5, 2.5], &cfg).unwrap();
        // One extra value: the start is checked once before the run.
        assert_eq!(fit.evals + 1, c.values.get(), "{:?}", cfg.box_method);
        assert_eq!(fit.grad_evals, c.grads.get());
    }
    let c = Counted {
        f: rosenbrock,
        values: Cell::new(0),
        grads: Cell::new(0),
    };
    let capped = Lbfgs {
        max_evals: Some(7),
        ..Lbfgs::default()
    };
    let fit = minimize(&c, &b, &[-1.5, 2.5], &capped).unwrap();
    assert!(fit.evals <= 7 && c.values.get() <= 8, "{fit:?}");
    assert!(fit.loss.is_finite() && b.contains(&fit.params));
}

/// The run that hung the pre-move code: with loose tolerances, the minimum
/// outside the box in two coordinates saturates the logistic map, L-BFGS's
/// direction becomes NaN, and backtracking halved the step forever. Now it
/// ends, inside the box, no worse than the start.
#[test]
fn a_nan_search_direction_ends_the_run() {
    let q = quadratic(vec![0.5, -2.0, 3.5], vec![1.0, 10.0, 0.3]);
    let b = Bounds::new(vec![-1.0; 3], vec![2.0; 3]).unwrap();
    let loose = Lbfgs {
        tol: Some(StageTol { abs: 0.1, rel: 0.1 }),
        early_stop: Some(EarlyStop::default()),
        patience: 2,
        max_step: 0.5,
        ..Lbfgs::default()
    };
    let x0 = [0.2, 1.5, -0.5];
    let fit = minimize(&q, &b, &x0, &loose).unwrap();
    assert!(b.contains(&fit.params), "{fit:?}");
    assert!(fit.loss <= q.value(&x0).unwrap(), "{fit:?}");
}

#[test]
fn seeded_multistart_is_reproducible_and_best_picks_the_lowest() {
    let b = Bounds::new(vec![-2.0, -1.0], vec![2.0, 3.0]).unwrap();
    let starts = b.seeded_starts(6, 42);
    assert_eq!(starts, b.seeded_starts(6, 42));
    assert_ne!(starts, b.seeded_starts(6, 43));
    assert!(starts.iter().all(|s| b.contains(s)));
    // Six-hump camel: several local minima in the box.
    let camel = FnObjective(|x: &[f64]| {
        let (a, c) = (x[0], x[1]);
        let v =
            (4.0 - 2.1 * a * a + a.powi(4) / 3.0) * a * a + a * c + (-4.0 + 4.0 * c * c) * c * c;
        let g = vec![
            8.0 * a - 8.4 * a.powi(3) + 2.0 * a.powi(5) + c,
            a - 8.0 * c + 16.0 * c.powi(3),
        ];
        (v, g)
    });
    let cfg = Lbfgs::fminbox(1e-12);
    let fits = minimize_multistart(&camel, &b, &starts, &cfg).unwrap();
    assert_eq!(
        fits,
        minimize_multistart(&camel, &b, &starts, &cfg).unwrap()
    );
    assert_eq!(fits.len(), 6);
    let top = best(&fits).unwrap();
    assert!(fits.iter().all(|f| top.loss <= f.loss));
    // The global minimum −1.0316 at (±0.0898, ∓0.7126).
    assert!((top.loss + 1.031_628).abs() < 1e-5, "{top:?}");
    let mut with_nan = fits.clone();
    with_nan[0].loss = f64::NAN;
    assert!(best(&with_nan).is_some_and(|f| f.loss.is_finite()));
    assert!(best(&[]).is_none());
}

#[test]
fn box_helpers() {
    let b = Bounds::new(vec![0.0, -1.0], vec![1.0, 1.0]).unwrap();
    assert_eq!(b.clamp(&[2.0, -3.0]), vec![1.0, -1.0]);
    assert_eq!(b.snap(&[0.9995, 0.0], 1e-3), vec![1.0, 0.0]);
    let bumped = b.bump(&[0.0, 1.0], 1e-4);
    assert!(bumped[0] > 0.0 && bumped[1] < 1.0);
    let u = b.to_logit(&[0.25, 0.0], 1e-4);
    let (x, jac) = b.logistic(&u);
    assert!((x[0] - 0.25).abs() < 1e-15 && x[1].abs() < 1e-15);
    assert!((jac[0] - 0.1875).abs() < 1e-15 && (jac[1] - 0.5).abs() < 1e-15);
    assert_eq!(b.repeat(2).dim(), 4);
    assert!(b.check(&[0.5, 0.5], "x").is_ok());
    let l = Logistic::default();
    assert_eq!(l.to_box(&b, &[f64::MAX, -f64::MAX]), vec![1.0, -1.0]);
}
