//! Hostile input at every public entry point (issue 32): random NaN/±∞
//! entries, empty matrices, shape mismatches, exponents `p` that are not
//! finite or below 1, `ε` outside (0, 1), and sizes whose products
//! overflow. Every call returns a typed `Err` (or a documented `Ok`), never
//! a panic, and never a non-finite `Ok` value. Seeded: the same cases on
//! every run.

use coreset::Error;
use coreset::coreset::{Budget, Coreset, CoresetBuilder, Kind, Sampling};
use coreset::lewis::{
    LewisOptions, SketchOptions, leverage_scores, lewis_weights, lewis_weights_sketched,
    sketched_leverage_scores,
};
use coreset::power_means::{
    PowerMeanOptions, power_mean, power_mean_cost, uniform_coreset, uniform_sample_size,
};
use coreset::regression::{IrlsOptions, cost, ln_cost, solve};
use coreset::subspace::{
    RowSubsetOptions, SubspaceOptions, check_row_subset, fit_subspace, row_subset, subspace_cost,
};
use coreset::verify::{
    ProbeOptions, ProbeSet, exact_distortion_p2, probe_distortion, probe_distortion_at, weak_ratio,
};
use mlcore::sampling::{seeded, standard_normal};
use ndarray::{Array1, Array2};
use proptest::prelude::*;
use proptest::test_runner::RngSeed;

/// A hostile value for one entry.
fn poison(kind: u8) -> f64 {
    match kind % 3 {
        0 => f64::NAN,
        1 => f64::INFINITY,
        _ => f64::NEG_INFINITY,
    }
}

/// A hostile exponent (invalid for every entry point).
fn bad_p(kind: u8) -> f64 {
    [0.0, -1.0, 0.5, f64::NAN, f64::INFINITY, f64::NEG_INFINITY][kind as usize % 6]
}

/// A hostile ε (outside (0, 1)).
fn bad_eps(kind: u8) -> f64 {
    [0.0, 1.0, -0.1, 1.5, f64::NAN, f64::INFINITY][kind as usize % 6]
}

fn data(n: usize, d: usize, m: usize, seed: u64) -> (Array2<f64>, Array2<f64>) {
    let mut rng = seeded(seed);
    let a: Array2<f64> = standard_normal((n, d), &mut rng);
    let b: Array2<f64> = standard_normal((n, m), &mut rng);
    (a, b)
}

fn is_non_finite(e: &Error) -> bool {
    matches!(e, Error::NonFinite { .. })
}

fn config() -> ProptestConfig {
    ProptestConfig {
        rng_seed: RngSeed::Fixed(0xc0_2e5e7),
        ..ProptestConfig::with_cases(48)
    }
}

proptest! {
    #![proptest_config(config())]

    /// A NaN or ±∞ anywhere in A, B, X or the points: NonFinite naming the
    /// matrix, at every entry point that takes them.
    #[test]
    fn non_finite_entries_are_named(
        n in 6usize..30, d in 1usize..4, m in 1usize..4,
        row in 0usize..100, col in 0usize..100, kind in any::<u8>(), seed in any::<u64>(),
        p in 1.0f64..4.0,
    ) {
        let (a, b) = data(n, d, m, seed);
        let (i, j) = (row % n, col % d);
        let mut bad_a = a.clone();
        bad_a[[i, j]] = poison(kind);
        let mut bad_b = b.clone();
        bad_b[[i, col % m]] = poison(kind);
        let x = Array2::<f64>::zeros((d, m));
        let mut bad_x = x.clone();
        bad_x[[j, col % m]] = poison(kind);
        let o = LewisOptions::default();
        let irls = IrlsOptions::default();
        let mut rng = seeded(seed);
        prop_assert_eq!(
            lewis_weights(bad_a.view(), p, &o),
            Err(Error::NonFinite { matrix: "A", row: i, col: j })
        );
        prop_assert!(leverage_scores(bad_a.view()).is_err_and(|e| is_non_finite(&e)));
        prop_assert!(sketched_leverage_scores(bad_a.view(), &SketchOptions::default(), &mut rng)
            .is_err_and(|e| is_non_finite(&e)));
        prop_assert!(lewis_weights_sketched(bad_a.view(), p, &o, &SketchOptions::default(), &mut rng)
            .is_err_and(|e| is_non_finite(&e)));
        for (aa, bb) in [(&bad_a, &b), (&a, &bad_b)] {
            prop_assert!(cost(aa.view(), bb.view(), x.view(), p, None).is_err_and(|e| is_non_finite(&e)));
            prop_assert!(ln_cost(aa.view(), bb.view(), x.view(), p, None).is_err_and(|e| is_non_finite(&e)));
            prop_assert!(solve(aa.view(), bb.view(), p, None, &irls).is_err_and(|e| is_non_finite(&e)));
            prop_assert!(CoresetBuilder::new(p).build(aa.view(), bb.view(), &mut rng)
                .is_err_and(|e| is_non_finite(&e)));
        }
        prop_assert!(cost(a.view(), b.view(), bad_x.view(), p, None).is_err_and(|e| is_non_finite(&e)));
        let c = Coreset::uniform(n, p, (n / 2) as f64, &mut rng).unwrap();
        if !c.is_empty() {
            for (aa, bb) in [(&bad_a, &b), (&a, &bad_b)] {
                prop_assert!(c.cost(aa.view(), bb.view(), x.view()).is_err_and(|e| is_non_finite(&e)));
                prop_assert!(c.solve(aa.view(), bb.view(), &irls).is_err_and(|e| is_non_finite(&e)));
                prop_assert!(probe_distortion(aa.view(), bb.view(), &c, &ProbeOptions::default(), &mut rng)
                    .is_err_and(|e| is_non_finite(&e)));
                prop_assert!(weak_ratio(aa.view(), bb.view(), &c, &irls).is_err_and(|e| is_non_finite(&e)));
                prop_assert!(ProbeSet::new(aa.view(), bb.view(), x.view(), p, &ProbeOptions::default(), &mut rng)
                    .is_err_and(|e| is_non_finite(&e)));
            }
            prop_assert!(c.rows(bad_a.view()).is_err_and(|e| is_non_finite(&e)));
            prop_assert!(c.scaled_rows(bad_a.view()).is_err_and(|e| is_non_finite(&e)));
            prop_assert!(probe_distortion_at(a.view(), b.view(), &c, bad_x.view(), &ProbeOptions::default(), &mut rng)
                .is_err_and(|e| is_non_finite(&e)));
            let c2 = Coreset::uniform(n, 2.0, (n / 2) as f64, &mut rng).unwrap();
            if !c2.is_empty() {
                prop_assert!(exact_distortion_p2(bad_a.view(), b.view(), &c2).is_err_and(|e| is_non_finite(&e)));
            }
        }
        // Points (power means, subspaces).
        let centre = Array1::<f64>::zeros(d);
        prop_assert!(power_mean_cost(bad_a.view(), centre.view(), p, None).is_err_and(|e| is_non_finite(&e)));
        prop_assert!(power_mean(bad_a.view(), p, None, &PowerMeanOptions::default()).is_err_and(|e| is_non_finite(&e)));
        let q = p.min(2.0);
        prop_assert!(fit_subspace(bad_a.view(), 1, q, None, &SubspaceOptions::default()).is_err_and(|e| is_non_finite(&e)));
        prop_assert!(row_subset(bad_a.view(), 1, q, &RowSubsetOptions::default(), &mut rng).is_err_and(|e| is_non_finite(&e)));
        let basis = Array2::<f64>::eye(d).slice(ndarray::s![.., ..1]).to_owned();
        prop_assert!(subspace_cost(bad_a.view(), basis.view(), q, None).is_err_and(|e| is_non_finite(&e)));
        let subset = row_subset(a.view(), 1, q, &RowSubsetOptions::default(), &mut rng).unwrap();
        prop_assert!(check_row_subset(bad_a.view(), &subset, 1, q, &SubspaceOptions::default())
            .is_err_and(|e| is_non_finite(&e)));
    }

    /// p ≤ 0, p < 1 or non-finite p: InvalidP naming the value, everywhere.
    #[test]
    fn invalid_exponents_are_named(kind in any::<u8>(), seed in any::<u64>()) {
        let p = bad_p(kind);
        let (a, b) = data(12, 2, 2, seed);
        let x = Array2::<f64>::zeros((2, 2));
        let mut rng = seeded(seed);
        let same = |e: Error| matches!(e, Error::InvalidP { p: got } if got.to_bits() == p.to_bits());
        prop_assert!(lewis_weights(a.view(), p, &LewisOptions::default()).is_err_and(same));
        prop_assert!(lewis_weights_sketched(a.view(), p, &LewisOptions::default(), &SketchOptions::default(), &mut rng).is_err_and(same));
        prop_assert!(cost(a.view(), b.view(), x.view(), p, None).is_err_and(same));
        prop_assert!(ln_cost(a.view(), b.view(), x.view(), p, None).is_err_and(same));
        prop_assert!(solve(a.view(), b.view(), p, None, &IrlsOptions::default()).is_err_and(same));
        prop_assert!(CoresetBuilder::new(p).build(a.view(), b.view(), &mut rng).is_err_and(same));
        prop_assert!(CoresetBuilder::new(p).check().is_err_and(same));
        prop_assert!(Coreset::uniform(12, p, 3.0, &mut rng).is_err_and(same));
        prop_assert!(Coreset::from_probabilities(Array1::from_elem(12, 0.5).view(), p, &mut rng).is_err_and(same));
        prop_assert!(ProbeSet::new(a.view(), b.view(), x.view(), p, &ProbeOptions::default(), &mut rng).is_err_and(same));
        let centre = Array1::<f64>::zeros(2);
        prop_assert!(power_mean_cost(a.view(), centre.view(), p, None).is_err_and(same));
        prop_assert!(power_mean(a.view(), p, None, &PowerMeanOptions::default()).is_err_and(same));
        prop_assert!(uniform_sample_size(0.1, p, 1.0).is_err_and(same));
        prop_assert!(fit_subspace(a.view(), 1, p, None, &SubspaceOptions::default()).is_err_and(same));
        prop_assert!(row_subset(a.view(), 1, p, &RowSubsetOptions::default(), &mut rng).is_err_and(same));
        let basis = Array2::<f64>::eye(2).slice(ndarray::s![.., ..1]).to_owned();
        prop_assert!(subspace_cost(a.view(), basis.view(), p, None).is_err_and(same));
        let subset = row_subset(a.view(), 1, 1.5, &RowSubsetOptions::default(), &mut rng).unwrap();
        prop_assert!(check_row_subset(a.view(), &subset, 1, p, &SubspaceOptions::default()).is_err_and(same));
    }

    /// ε outside (0, 1): InvalidEpsilon naming the value.
    #[test]
    fn invalid_epsilons_are_named(kind in any::<u8>(), seed in any::<u64>()) {
        let eps = bad_eps(kind);
        let (a, b) = data(12, 2, 2, seed);
        let mut rng = seeded(seed);
        let same = |e: Error| matches!(e, Error::InvalidEpsilon { epsilon } if epsilon.to_bits() == eps.to_bits());
        for kind in [Kind::Strong, Kind::Weak] {
            let builder = CoresetBuilder::new(1.5).epsilon(eps).kind(kind);
            prop_assert!(builder.check().is_err_and(same));
            prop_assert!(builder.row_budgets(2).is_err_and(same));
            prop_assert!(builder.build(a.view(), b.view(), &mut rng).is_err_and(same));
        }
        prop_assert!(uniform_sample_size(eps, 1.5, 1.0).is_err_and(same));
        let opts = RowSubsetOptions { epsilon: eps, ..RowSubsetOptions::default() };
        prop_assert!(row_subset(a.view(), 1, 1.5, &opts, &mut rng).is_err_and(same));
    }

    /// Empty inputs and mismatched shapes: EmptyInput, DimensionMismatch or
    /// ShapeMismatch, never a panic.
    #[test]
    fn empty_and_mismatched_shapes_are_errors(
        n in 4usize..20, d in 1usize..4, m in 1usize..4, extra in 1usize..3, seed in any::<u64>(),
        p in 1.0f64..4.0,
    ) {
        let (a, b) = data(n, d, m, seed);
        let mut rng = seeded(seed);
        let empty = Array2::<f64>::zeros((0, d));
        let empty_cols = Array2::<f64>::zeros((n, 0));
        let short_b = Array2::<f64>::zeros((n + extra, m));
        let x = Array2::<f64>::zeros((d, m));
        let wrong_x = Array2::<f64>::zeros((d + extra, m));
        let irls = IrlsOptions::default();
        prop_assert!(matches!(lewis_weights(empty.view(), p, &LewisOptions::default()), Err(Error::EmptyInput { .. })), "line {}", line!());
        prop_assert!(matches!(lewis_weights(empty_cols.view(), p, &LewisOptions::default()), Err(Error::EmptyInput { .. })), "line {}", line!());
        prop_assert!(matches!(leverage_scores(empty.view()), Err(Error::EmptyInput { .. })), "line {}", line!());
        prop_assert!(matches!(cost(a.view(), short_b.view(), x.view(), p, None), Err(Error::DimensionMismatch { .. })), "line {}", line!());
        prop_assert!(matches!(cost(a.view(), b.view(), wrong_x.view(), p, None), Err(Error::ShapeMismatch { .. })), "line {}", line!());
        prop_assert!(matches!(ln_cost(a.view(), b.view(), wrong_x.view(), p, None), Err(Error::ShapeMismatch { .. })), "line {}", line!());
        let w = Array1::<f64>::ones(n + extra);
        prop_assert!(matches!(cost(a.view(), b.view(), x.view(), p, Some(w.view())), Err(Error::ShapeMismatch { .. })), "line {}", line!());
        prop_assert!(matches!(solve(a.view(), short_b.view(), p, None, &irls), Err(Error::DimensionMismatch { .. })), "line {}", line!());
        prop_assert!(matches!(CoresetBuilder::new(p).build(a.view(), short_b.view(), &mut rng), Err(Error::DimensionMismatch { .. })), "line {}", line!());
        prop_assert!(matches!(CoresetBuilder::new(p).build(empty.view(), b.view(), &mut rng), Err(Error::EmptyInput { .. })), "line {}", line!());
        let lw = lewis_weights(a.view(), p, &LewisOptions::default()).unwrap();
        let (a2, b2) = data(n + extra, d, m, seed);
        prop_assert!(CoresetBuilder::new(p).build_with_lewis(&lw, a2.view(), b2.view(), &mut rng).is_err());
        prop_assert!(CoresetBuilder::new(p + 0.5).build_with_lewis(&lw, a.view(), b.view(), &mut rng).is_err());
        prop_assert!(matches!(Coreset::uniform(0, p, 1.0, &mut rng), Err(Error::EmptyInput { .. })), "line {}", line!());
        prop_assert!(matches!(Coreset::from_probabilities(Array1::<f64>::zeros(0).view(), p, &mut rng), Err(Error::EmptyInput { .. })), "line {}", line!());
        let c = CoresetBuilder::new(p)
            .sampling(if seed % 2 == 0 { Sampling::Bernoulli } else { Sampling::FixedSize })
            .budget(Budget::Rows { k_a: n as f64, k_b: 0.0 })
            .build(a.view(), b.view(), &mut rng)
            .unwrap();
        prop_assert!(matches!(c.cost(a2.view(), b2.view(), x.view()), Err(Error::ShapeMismatch { .. })), "line {}", line!());
        prop_assert!(matches!(c.rows(a2.view()), Err(Error::ShapeMismatch { .. })), "line {}", line!());
        prop_assert!(matches!(c.scaled_rows(a2.view()), Err(Error::ShapeMismatch { .. })), "line {}", line!());
        prop_assert!(matches!(c.solve(a2.view(), b2.view(), &irls), Err(Error::ShapeMismatch { .. })), "line {}", line!());
        prop_assert!(matches!(probe_distortion_at(a.view(), b.view(), &c, wrong_x.view(), &ProbeOptions::default(), &mut rng), Err(Error::ShapeMismatch { .. })), "line {}", line!());
        let set = ProbeSet::new(a.view(), b.view(), x.view(), p, &ProbeOptions::default(), &mut rng).unwrap();
        prop_assert!(set.distortion(a2.view(), b2.view(), &c).is_err());
        let centre = Array1::<f64>::zeros(d + extra);
        prop_assert!(matches!(power_mean_cost(a.view(), centre.view(), p, None), Err(Error::ShapeMismatch { .. })), "line {}", line!());
        prop_assert!(matches!(power_mean(empty.view(), p, None, &PowerMeanOptions::default()), Err(Error::EmptyInput { .. })), "line {}", line!());
        prop_assert!(matches!(uniform_coreset(0, 3, &mut rng), Err(Error::EmptyInput { .. })), "line {}", line!());
        prop_assert!(fit_subspace(a.view(), d + extra, 1.5, None, &SubspaceOptions::default()).is_err());
        prop_assert!(fit_subspace(a.view(), 0, 1.5, None, &SubspaceOptions::default()).is_err());
        // A subset fitted on d columns, checked against points with d + extra.
        let subset = row_subset(a.view(), 1, 1.5, &RowSubsetOptions::default(), &mut rng).unwrap();
        let (wide, _) = data(n, d + extra, m, seed);
        prop_assert!(matches!(check_row_subset(wide.view(), &subset, 1, 1.5, &SubspaceOptions::default()),
            Err(Error::ShapeMismatch { .. })), "line {}", line!());
        prop_assert!(check_row_subset(a.view(), &subset, 0, 1.5, &SubspaceOptions::default()).is_err());
        prop_assert!(check_row_subset(a.view(), &subset, d + extra, 1.5, &SubspaceOptions::default()).is_err());
        prop_assert!(matches!(check_row_subset(empty.view(), &subset, 1, 1.5, &SubspaceOptions::default()),
            Err(Error::EmptyInput { .. })), "line {}", line!());
    }

    /// Probabilities outside [0, 1] name their index and value; sizes whose
    /// products overflow or exceed the memory cap are TooLarge.
    #[test]
    fn bad_probabilities_and_huge_sizes(
        n in 2usize..20, at in 0usize..20, kind in any::<u8>(), seed in any::<u64>(),
    ) {
        let mut rng = seeded(seed);
        let mut q = Array1::from_elem(n, 0.5);
        let value = [f64::NAN, -0.1, 1.5, f64::INFINITY][kind as usize % 4];
        q[at % n] = value;
        prop_assert!(matches!(
            Coreset::from_probabilities(q.view(), 2.0, &mut rng),
            Err(Error::InvalidWeights { index, value: v }) if index == at % n && v.to_bits() == value.to_bits()
        ), "line {}", line!());
        let huge = usize::MAX - (seed % 1000) as usize;
        prop_assert!(matches!(Coreset::uniform(huge, 2.0, 10.0, &mut rng), Err(Error::TooLarge { .. })), "line {}", line!());
        prop_assert!(matches!(uniform_coreset(huge, huge / 2, &mut rng), Err(Error::TooLarge { .. })), "line {}", line!());
        let (a, b) = data(n + 4, 2, 2, seed);
        let x = Array2::<f64>::zeros((2, 2));
        let probes = ProbeOptions { directions: huge, ..ProbeOptions::default() };
        prop_assert!(matches!(ProbeSet::new(a.view(), b.view(), x.view(), 2.0, &probes, &mut rng), Err(Error::TooLarge { .. })), "line {}", line!());
        let c = Coreset::uniform(n + 4, 2.0, (n + 4) as f64, &mut rng).unwrap();
        prop_assert!(matches!(probe_distortion_at(a.view(), b.view(), &c, x.view(), &probes, &mut rng), Err(Error::TooLarge { .. })), "line {}", line!());
    }

    /// Valid but extreme values: residuals near 1e200 give a finite cost or
    /// Overflow with a finite logarithm, never ∞ or NaN; the coreset built on
    /// such data is finite, and ln_cost is always finite (or −∞ for F = 0).
    #[test]
    fn extreme_values_do_not_overflow_silently(
        scale_exp in 150i32..300, p in 1.0f64..4.0, seed in any::<u64>(),
    ) {
        let (a, b) = data(40, 2, 3, seed);
        let s = 10f64.powi(scale_exp);
        let big_b = &b * s;
        let x = Array2::<f64>::zeros((2, 3));
        match cost(a.view(), big_b.view(), x.view(), p, None) {
            Ok(v) => prop_assert!(v.is_finite()),
            Err(Error::Overflow { ln_value, .. }) => prop_assert!(ln_value.is_finite() && ln_value > 709.0),
            Err(e) => prop_assert!(false, "unexpected {e:?}"),
        }
        let ln = ln_cost(a.view(), big_b.view(), x.view(), p, None).unwrap();
        let ln_ref = p * s.ln() + ln_cost(a.view(), b.view(), x.view(), p, None).unwrap();
        prop_assert!((ln - ln_ref).abs() <= 1e-9 * ln_ref.abs(), "{ln} vs {ln_ref}");
        let big_x = Array2::<f64>::from_elem((2, 3), s);
        let big_a = &a * s;
        prop_assert!(ln_cost(big_a.view(), b.view(), big_x.view(), p, None).unwrap().is_finite());
        let c = CoresetBuilder::new(p)
            .budget(Budget::Rows { k_a: 10.0, k_b: 10.0 })
            .build(a.view(), big_b.view(), &mut seeded(seed))
            .unwrap();
        prop_assert!(c.weights().iter().all(|w| w.is_finite() && *w > 0.0));
        prop_assert!(c.probabilities().iter().all(|q| *q > 0.0 && *q <= 1.0));
        match solve(a.view(), big_b.view(), p, None, &IrlsOptions::default()) {
            Ok(sol) => prop_assert!(sol.x.iter().all(|v| v.is_finite())),
            Err(e) => prop_assert!(matches!(e, Error::NotConverged { .. } | Error::Overflow { .. }), "{e:?}"),
        }
        let points = &a * s;
        let centre = Array1::<f64>::zeros(2);
        match power_mean_cost(points.view(), centre.view(), p, None) {
            Ok(v) => prop_assert!(v.is_finite()),
            Err(Error::Overflow { ln_value, .. }) => prop_assert!(ln_value.is_finite() && ln_value > 709.0),
            Err(e) => prop_assert!(false, "unexpected {e:?}"),
        }
        // Subspaces on points s·A with s = 1e150…1e299 (squared row norms
        // overflow unscaled): the scaling law cost_q(V; sA) = s^q cost_q(V; A)
        // holds, as a finite value or as Overflow carrying its logarithm.
        let q = p.min(2.0);
        let law = |big: Result<f64, Error>, small: f64| -> Result<(), TestCaseError> {
            let ln_ref = q * s.ln() + small.ln();
            let ln = match big {
                Ok(v) => {
                    prop_assert!(v.is_finite() && v > 0.0, "{v}");
                    v.ln()
                }
                Err(Error::Overflow { ln_value, .. }) => {
                    prop_assert!(ln_value > 709.0, "{ln_value}");
                    ln_value
                }
                Err(e) => return Err(TestCaseError::fail(format!("unexpected {e:?}"))),
            };
            prop_assert!((ln - ln_ref).abs() <= 1e-9 * ln_ref.abs(), "{ln} vs {ln_ref}");
            Ok(())
        };
        let basis = Array2::<f64>::eye(2).slice(ndarray::s![.., ..1]).to_owned();
        let small = subspace_cost(a.view(), basis.view(), q, None).unwrap();
        law(subspace_cost(points.view(), basis.view(), q, None), small)?;
        let opts = SubspaceOptions::default();
        let small = fit_subspace(a.view(), 1, q, None, &opts).unwrap().cost;
        law(fit_subspace(points.view(), 1, q, None, &opts).map(|f| f.cost), small)?;
        match row_subset(points.view(), 1, q, &RowSubsetOptions::default(), &mut seeded(seed)) {
            Ok(subset) => {
                prop_assert!(subset.subspace.cost.is_finite());
                match check_row_subset(points.view(), &subset, 1, q, &opts) {
                    Ok(check) => prop_assert!(check.ratio().is_finite() && check.ratio() > 0.0),
                    Err(e) => prop_assert!(matches!(e, Error::Overflow { .. }), "{e:?}"),
                }
            }
            Err(e) => prop_assert!(matches!(e, Error::Overflow { .. }), "{e:?}"),
        }
    }
}
