//! Properties, the bootstrap, and a bad-input test per entry point of
//! `conformal_sets::rct` (the known values from the Python peers and the
//! paper's table are in `tests/rct.rs`; the samples X1…Y6 are the same).

use conformal_sets::Error;
use conformal_sets::rct::{
    Alternative, MwuMethod, Outcome, anova_oneway, arm_outcome, bootstrap_ci, cohens_d,
    compare_arms, compare_samples, group_by_arm, hedges_g, mann_whitney_u, n_per_arm,
    noncentral_t_cdf, noncentral_t_sf, parse_results_csv, power, read_results_csv, student_t,
    summarize, welch_t,
};
use mlcore::sampling::seeded;
use ndarray::aview1;
use proptest::prelude::*;
use statrs::distribution::{ContinuousCDF, StudentsT};
use statrs::function::beta::beta_reg;

const ALTS: [Alternative; 3] = [
    Alternative::TwoSided,
    Alternative::Greater,
    Alternative::Less,
];

/// The trial's results, vendored under `data/hitl-conformal-rct/` and
/// checked against their SHA-256; a missing file fails the test.
fn trial(task: &str) -> Vec<conformal_sets::rct::Participant> {
    let ds =
        mlcore::data::Dataset::open(mlcore::data::workspace_data_dir().join("hitl-conformal-rct"))
            .unwrap();
    conformal_sets::rct::read_trial(&ds, task).unwrap()
}

const EXACT: MwuMethod = MwuMethod::Exact;
const ASYMP: MwuMethod = MwuMethod::Asymptotic;
const AUTO: MwuMethod = MwuMethod::Auto;

// --- Samples -----------------------------------------------------------------

/// No ties, 7 vs 5 (the exact Mann–Whitney path under `Auto`).
const X1: [f64; 7] = [2.1, 3.4, 1.9, 5.6, 4.4, 3.9, 2.8];
const Y1: [f64; 5] = [1.2, 2.0, 0.7, 3.1, 1.5];
/// No ties, 12 vs 15 (asymptotic under `Auto`).
const X3: [f64; 12] = [
    0.7047, -0.64, 1.1505, 1.3406, -1.551, -0.9022, 0.5278, 0.0838, 0.3832, -0.453, 1.2794, 1.1778,
];
const Y3: [f64; 15] = [
    0.099, 1.6909, 0.7013, -1.2889, 0.5531, -1.4383, 1.3177, -0.0749, -0.2773, -1.0214, 1.8338,
    -0.2318, -0.6425, -0.5282, 0.7985,
];

// --- Properties -------------------------------------------------------------------------

fn sample(min: usize, max: usize) -> impl Strategy<Value = Vec<f64>> {
    prop::collection::vec(-50.0f64..50.0, min..max)
}

fn int_sample(min: usize, max: usize) -> impl Strategy<Value = Vec<f64>> {
    prop::collection::vec((-15i32..15).prop_map(f64::from), min..max)
}

fn not_constant(v: &[f64]) -> bool {
    v.iter().any(|&a| a != v[0])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// Swapping the samples negates t and swaps the one-sided p-values;
    /// one-sided p-values of a t-test sum to 1; the two-sided p is twice the
    /// smaller one; every p lies in [0, 1].
    #[test]
    fn t_test_antisymmetry_and_p_value_relations(x in sample(2, 30), y in sample(2, 30)) {
        prop_assume!(not_constant(&x) || not_constant(&y));
        for test in [welch_t, student_t] {
            let g = test(aview1(&x), aview1(&y), Alternative::Greater).unwrap();
            let l = test(aview1(&x), aview1(&y), Alternative::Less).unwrap();
            let two = test(aview1(&x), aview1(&y), Alternative::TwoSided).unwrap();
            let swapped = test(aview1(&y), aview1(&x), Alternative::Less).unwrap();
            prop_assert_eq!(swapped.statistic, -g.statistic);
            prop_assert_eq!(swapped.df, g.df);
            prop_assert!((swapped.p_value - g.p_value).abs() <= 1e-15);
            prop_assert!((g.p_value + l.p_value - 1.0).abs() <= 1e-12);
            prop_assert!((two.p_value - (2.0 * g.p_value.min(l.p_value)).min(1.0)).abs() <= 1e-12);
            for p in [g.p_value, l.p_value, two.p_value] {
                prop_assert!((0.0..=1.0).contains(&p));
            }
        }
    }

    /// With equal sample sizes Welch's and Student's t statistics coincide.
    #[test]
    fn welch_equals_student_for_equal_sizes(xy in (2usize..25).prop_flat_map(|n| (sample(n, n + 1), sample(n, n + 1)))) {
        let (x, y) = xy;
        prop_assume!(not_constant(&x) || not_constant(&y));
        let w = welch_t(aview1(&x), aview1(&y), Alternative::TwoSided).unwrap();
        let s = student_t(aview1(&x), aview1(&y), Alternative::TwoSided).unwrap();
        prop_assert!((w.statistic - s.statistic).abs() <= 1e-12 * s.statistic.abs().max(1.0));
        prop_assert!(w.df <= s.df + 1e-9);
    }

    /// Mann–Whitney: `Uₓ + U_y = nₓ n_y`; p-values in [0, 1]; the one-sided
    /// p-values of the two directions sum to 1 + P(U = Uₓ) ≥ 1 for the exact
    /// law, to exactly 1 for the normal approximation without continuity
    /// correction, and to at least 1 with it.
    #[test]
    fn mann_whitney_u_sums_and_p_value_relations(x in int_sample(1, 14), y in int_sample(1, 14)) {
        let all_tied = x.iter().chain(&y).all(|&v| v == x[0]);
        for (method, cc) in [(EXACT, true), (ASYMP, true), (ASYMP, false), (AUTO, true)] {
            if all_tied && method != EXACT {
                continue;
            }
            let g = mann_whitney_u(aview1(&x), aview1(&y), Alternative::Greater, method, cc).unwrap();
            let l = mann_whitney_u(aview1(&x), aview1(&y), Alternative::Less, method, cc).unwrap();
            let two = mann_whitney_u(aview1(&x), aview1(&y), Alternative::TwoSided, method, cc).unwrap();
            let rev = mann_whitney_u(aview1(&y), aview1(&x), Alternative::Greater, method, cc).unwrap();
            prop_assert_eq!(g.statistic + rev.statistic, (x.len() * y.len()) as f64);
            prop_assert!((rev.p_value - l.p_value).abs() <= 1e-14);
            for p in [g.p_value, l.p_value, two.p_value] {
                prop_assert!((0.0..=1.0).contains(&p));
            }
            let sum = g.p_value + l.p_value;
            match (g.method, cc) {
                (MwuMethod::Asymptotic, false) => prop_assert!((sum - 1.0).abs() <= 1e-14),
                _ => prop_assert!(sum >= 1.0 - 1e-14),
            }
            if g.method == MwuMethod::Exact && !g.ties {
                prop_assert!(sum > 1.0 && sum <= 2.0);
            }
            prop_assert!((two.p_value - (2.0 * g.p_value.min(l.p_value)).min(1.0)).abs() <= 1e-14);
        }
    }

    /// Mann–Whitney is a rank test: its statistic and p-values are unchanged
    /// by a strictly increasing transform of the pooled data (here
    /// `v ↦ v³ + exp(v/4)` on integers, which keeps ties as ties).
    #[test]
    fn mann_whitney_is_invariant_under_monotone_transforms(x in int_sample(1, 14), y in int_sample(1, 14)) {
        prop_assume!(x.iter().chain(&y).any(|&v| v != x[0]));
        let f = |v: &f64| v.powi(3) + (v / 4.0).exp();
        let fx: Vec<f64> = x.iter().map(f).collect();
        let fy: Vec<f64> = y.iter().map(f).collect();
        for alt in ALTS {
            for method in [EXACT, ASYMP, AUTO] {
                let a = mann_whitney_u(aview1(&x), aview1(&y), alt, method, true).unwrap();
                let b = mann_whitney_u(aview1(&fx), aview1(&fy), alt, method, true).unwrap();
                prop_assert_eq!(a, b);
            }
        }
    }

    /// Hedges' g shrinks Cohen's d: same sign, `|g| < |d|` whenever `d ≠ 0`,
    /// with ratio exactly `J = 1 − 3/(4(nₓ + n_y) − 9)`.
    #[test]
    fn hedges_g_is_smaller_than_cohens_d(x in sample(2, 30), y in sample(2, 30)) {
        prop_assume!(not_constant(&x) || not_constant(&y));
        let d = cohens_d(aview1(&x), aview1(&y)).unwrap();
        let g = hedges_g(aview1(&x), aview1(&y)).unwrap();
        prop_assume!(d != 0.0);
        prop_assert!(g.abs() < d.abs());
        prop_assert!(g * d > 0.0);
        let j = 1.0 - 3.0 / (4.0 * (x.len() + y.len()) as f64 - 9.0);
        prop_assert!((g / d - j).abs() <= 1e-14);
    }

    /// The ANOVA of two groups is Student's two-sided t-test: `F = t²`, same p.
    #[test]
    fn anova_of_two_groups_is_the_student_t_test(x in sample(2, 30), y in sample(2, 30)) {
        prop_assume!(not_constant(&x) || not_constant(&y));
        let a = anova_oneway(&[aview1(&x), aview1(&y)]).unwrap();
        let s = student_t(aview1(&x), aview1(&y), Alternative::TwoSided).unwrap();
        prop_assert!((a.statistic - s.statistic * s.statistic).abs() <= 1e-9 * a.statistic.max(1e-3));
        prop_assert!((a.p_value - s.p_value).abs() <= 1e-10);
        prop_assert!((0.0..=1.0).contains(&a.p_value));
    }

    /// The non-central t: `cdf + sf = 1`; `δ = 0` gives Student's t; the cdf
    /// increases in `t` and decreases in `δ`; `t ↦ −t, δ ↦ −δ` swaps the tails.
    #[test]
    fn noncentral_t_is_a_distribution(t in -8.0f64..8.0, df in 0.5f64..300.0, nc in -8.0f64..8.0) {
        let c = noncentral_t_cdf(t, df, nc).unwrap();
        let s = noncentral_t_sf(t, df, nc).unwrap();
        prop_assert!((0.0..=1.0).contains(&c) && (0.0..=1.0).contains(&s));
        // The documented accuracy: ~1e-13, up to ~2e-13 relative at |δ| ≈ 8
        // where statrs's ln Γ at the Poisson mode is off by ~1e-13 (see
        // `noncentral_t_at_large_delta_matches_mpmath`).
        prop_assert!((c + s - 1.0).abs() <= 1e-13 * (1.0 + nc * nc / 32.0));
        // Student's t cdf: statrs's `StudentsT::cdf` forms 1 − ν/(ν + t²)
        // itself and loses accuracy for small |t|, so use ½ + ½·sign(t)·
        // I_{t²/(ν+t²)}(½, ν/2) there.
        let central = if t.abs() < 1.0 {
            0.5 + 0.5 * t.signum() * beta_reg(0.5, 0.5 * df, t * t / (df + t * t))
        } else {
            StudentsT::new(0.0, 1.0, df).unwrap().cdf(t)
        };
        prop_assert!((noncentral_t_cdf(t, df, 0.0).unwrap() - central).abs() <= 1e-13);
        prop_assert!(noncentral_t_cdf(t + 0.25, df, nc).unwrap() >= c - 1e-14);
        prop_assert!(noncentral_t_cdf(t, df, nc + 0.25).unwrap() <= c + 1e-14);
        prop_assert!((noncentral_t_sf(-t, df, -nc).unwrap() - c).abs() <= 1e-15);
    }

    /// Power: equals α at `d = 0` (one-sided), grows with `n`, is symmetric in
    /// `d` for the two-sided test; the planned `n` is the smallest reaching
    /// the target.
    #[test]
    fn power_and_sample_size_are_consistent(d in 0.15f64..1.5, alpha in 0.005f64..0.2, target in 0.5f64..0.95) {
        let p0 = power(0.0, 20, alpha, Alternative::Greater).unwrap();
        prop_assert!((p0 - alpha).abs() <= 1e-10 * alpha);
        let two = power(d, 15, alpha, Alternative::TwoSided).unwrap();
        prop_assert!((two - power(-d, 15, alpha, Alternative::TwoSided).unwrap()).abs() <= 1e-13);
        prop_assert!(power(d, 16, alpha, Alternative::Greater).unwrap() > power(d, 15, alpha, Alternative::Greater).unwrap());
        let s = n_per_arm(d, alpha, target, Alternative::Greater).unwrap();
        prop_assert!(s.achieved_power >= target);
        prop_assert!((s.achieved_power - power(d, s.n_per_arm, alpha, Alternative::Greater).unwrap()).abs() == 0.0);
        if s.n_per_arm > 2 {
            prop_assert!(power(d, s.n_per_arm - 1, alpha, Alternative::Greater).unwrap() < target);
            prop_assert!(s.n_exact > (s.n_per_arm - 1) as f64 - 1e-6);
            prop_assert!(s.n_exact <= s.n_per_arm as f64 + 1e-6);
        }
    }
}

// --- Bootstrap -------------------------------------------------------------------------

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

/// The percentile bootstrap is reproducible for a seed, equivariant under a
/// shift of the first sample (same draws, interval moves by the shift), and
/// its interval for a mean difference is close to Welch's: on Few-NERD-like
/// data with B = 20 000 the 95 % endpoints lie within 0.2 of
/// `diff ± 1.96·SE` (SE ≈ 0.88; the Monte-Carlo error of an endpoint is
/// about 0.03, the non-normality of the data somewhat more).
#[test]
fn bootstrap_is_reproducible_and_equivariant() {
    let diff = |a: &[f64], b: &[f64]| mean(a) - mean(b);
    let a = bootstrap_ci(aview1(&X3), aview1(&Y3), diff, 2000, 0.9, &mut seeded(3)).unwrap();
    let b = bootstrap_ci(aview1(&X3), aview1(&Y3), diff, 2000, 0.9, &mut seeded(3)).unwrap();
    assert_eq!(a, b);
    let shifted: Vec<f64> = X3.iter().map(|v| v + 10.0).collect();
    let c = bootstrap_ci(
        aview1(&shifted),
        aview1(&Y3),
        diff,
        2000,
        0.9,
        &mut seeded(3),
    )
    .unwrap();
    assert!((c.lower - a.lower - 10.0).abs() < 1e-9 && (c.upper - a.upper - 10.0).abs() < 1e-9);
    assert!((c.std_error - a.std_error).abs() < 1e-9);
    assert!(a.lower < a.estimate && a.estimate < a.upper);
    assert_eq!((a.n_resamples, a.confidence), (2000, 0.9));
    // Constant samples: a degenerate interval at the estimate.
    let k = bootstrap_ci(
        aview1(&[2.0, 2.0]),
        aview1(&[1.0]),
        diff,
        50,
        0.95,
        &mut seeded(0),
    )
    .unwrap();
    assert_eq!(
        (k.lower, k.estimate, k.upper, k.std_error),
        (1.0, 1.0, 1.0, 0.0)
    );

    let p = trial("few-nerd");
    let t = arm_outcome(&p, "conformal", Outcome::NumCorrect).unwrap();
    let c = arm_outcome(&p, "topk", Outcome::NumCorrect).unwrap();
    let ci = bootstrap_ci(t.view(), c.view(), diff, 20_000, 0.95, &mut seeded(2024)).unwrap();
    let w = welch_t(t.view(), c.view(), Alternative::TwoSided).unwrap();
    assert!((ci.estimate - 2.88).abs() < 1e-12);
    assert!(
        (ci.lower - (w.mean_difference - 1.96 * w.std_error)).abs() < 0.2,
        "{ci:?}"
    );
    assert!(
        (ci.upper - (w.mean_difference + 1.96 * w.std_error)).abs() < 0.2,
        "{ci:?}"
    );
    assert!((ci.std_error / w.std_error - 1.0).abs() < 0.05, "{ci:?}");
}

// --- Bad input ------------------------------------------------------------------------

const NAN_SAMPLE: [f64; 3] = [1.0, f64::NAN, 2.0];
const EMPTY: [f64; 0] = [];

#[test]
fn t_tests_reject_bad_input() {
    for test in [welch_t, student_t] {
        let alt = Alternative::TwoSided;
        assert!(matches!(
            test(aview1(&EMPTY), aview1(&Y1), alt),
            Err(Error::EmptyInput { what: "x" })
        ));
        assert!(matches!(
            test(aview1(&X1), aview1(&EMPTY), alt),
            Err(Error::EmptyInput { what: "y" })
        ));
        assert!(matches!(
            test(aview1(&NAN_SAMPLE), aview1(&Y1), alt),
            Err(Error::NonFinite {
                what: "x",
                index: 1
            })
        ));
        assert!(matches!(
            test(aview1(&X1), aview1(&[1.0, f64::INFINITY]), alt),
            Err(Error::NonFinite {
                what: "y",
                index: 1
            })
        ));
        assert!(matches!(
            test(aview1(&[1.0]), aview1(&Y1), alt),
            Err(Error::TooFewObservations {
                what: "x",
                n: 1,
                min: 2
            })
        ));
        assert!(matches!(
            test(aview1(&[1.0, 1.0]), aview1(&[2.0, 2.0, 2.0]), alt),
            Err(Error::Core(mlcore::Error::ZeroVariance { .. }))
        ));
    }
}

#[test]
fn mann_whitney_rejects_bad_input() {
    let alt = Alternative::Greater;
    assert!(matches!(
        mann_whitney_u(aview1(&EMPTY), aview1(&Y1), alt, AUTO, true),
        Err(Error::EmptyInput { what: "x" })
    ));
    assert!(matches!(
        mann_whitney_u(aview1(&X1), aview1(&NAN_SAMPLE), alt, AUTO, true),
        Err(Error::NonFinite {
            what: "y",
            index: 1
        })
    ));
    // Every value tied: the normal approximation has zero variance.
    assert!(matches!(
        mann_whitney_u(aview1(&[3.0; 10]), aview1(&[3.0; 12]), alt, AUTO, true),
        Err(Error::Core(mlcore::Error::ZeroVariance { .. }))
    ));
    // The exact law is still defined there (scipy: p = 1).
    let r = mann_whitney_u(
        aview1(&[3.0; 3]),
        aview1(&[3.0; 4]),
        Alternative::TwoSided,
        EXACT,
        true,
    )
    .unwrap();
    assert_eq!(r.p_value, 1.0);
}

#[test]
fn effect_sizes_reject_bad_input() {
    for f in [cohens_d, hedges_g] {
        assert!(matches!(
            f(aview1(&EMPTY), aview1(&Y1)),
            Err(Error::EmptyInput { what: "x" })
        ));
        assert!(matches!(
            f(aview1(&X1), aview1(&NAN_SAMPLE)),
            Err(Error::NonFinite {
                what: "y",
                index: 1
            })
        ));
        assert!(matches!(
            f(aview1(&X1), aview1(&[0.0])),
            Err(Error::TooFewObservations {
                what: "y",
                n: 1,
                min: 2
            })
        ));
        assert!(matches!(
            f(aview1(&[5.0, 5.0]), aview1(&[5.0, 5.0])),
            Err(Error::Core(mlcore::Error::ZeroVariance { .. }))
        ));
    }
}

#[test]
fn bootstrap_rejects_bad_input() {
    let diff = |a: &[f64], b: &[f64]| mean(a) - mean(b);
    let mut rng = seeded(0);
    assert!(matches!(
        bootstrap_ci(aview1(&EMPTY), aview1(&Y1), diff, 100, 0.95, &mut rng),
        Err(Error::EmptyInput { what: "x" })
    ));
    assert!(matches!(
        bootstrap_ci(aview1(&X1), aview1(&NAN_SAMPLE), diff, 100, 0.95, &mut rng),
        Err(Error::NonFinite {
            what: "y",
            index: 1
        })
    ));
    for confidence in [0.0, 1.0, -0.1, f64::NAN] {
        assert!(matches!(
            bootstrap_ci(aview1(&X1), aview1(&Y1), diff, 100, confidence, &mut rng),
            Err(Error::InvalidParameter {
                name: "confidence",
                ..
            })
        ));
    }
    assert!(matches!(
        bootstrap_ci(aview1(&X1), aview1(&Y1), diff, 1, 0.95, &mut rng),
        Err(Error::InvalidParameter {
            name: "n_resamples",
            ..
        })
    ));
    // A statistic that breaks on some resample is reported, not propagated as NaN.
    let ratio = |a: &[f64], b: &[f64]| mean(a) / mean(b);
    assert!(matches!(
        bootstrap_ci(
            aview1(&X1),
            aview1(&[0.0, 1.0]),
            ratio,
            1000,
            0.95,
            &mut rng
        ),
        Err(Error::NonFinite { .. })
    ));
}

#[test]
fn anova_rejects_bad_input() {
    assert!(matches!(
        anova_oneway(&[]),
        Err(Error::TooFewObservations {
            what: "groups",
            n: 0,
            min: 2
        })
    ));
    assert!(matches!(
        anova_oneway(&[aview1(&X1)]),
        Err(Error::TooFewObservations { n: 1, min: 2, .. })
    ));
    assert!(matches!(
        anova_oneway(&[aview1(&X1), aview1(&EMPTY)]),
        Err(Error::EmptyInput { .. })
    ));
    assert!(matches!(
        anova_oneway(&[aview1(&X1), aview1(&NAN_SAMPLE)]),
        Err(Error::NonFinite {
            what: "groups",
            index: 8
        })
    ));
    assert!(matches!(
        anova_oneway(&[aview1(&[1.0]), aview1(&[2.0])]),
        Err(Error::TooFewObservations { n: 0, min: 1, .. })
    ));
    assert!(matches!(
        anova_oneway(&[aview1(&[1.0, 1.0]), aview1(&[2.0, 2.0])]),
        Err(Error::Core(mlcore::Error::ZeroVariance { .. }))
    ));
}

#[test]
fn noncentral_t_rejects_bad_input() {
    for f in [noncentral_t_cdf, noncentral_t_sf] {
        assert!(matches!(
            f(f64::NAN, 5.0, 1.0),
            Err(Error::NonFinite { what: "t", .. })
        ));
        for df in [0.0, -1.0, f64::INFINITY, f64::NAN] {
            assert!(matches!(
                f(1.0, df, 1.0),
                Err(Error::InvalidParameter { name: "df", .. })
            ));
        }
        assert!(matches!(
            f(1.0, 5.0, f64::NAN),
            Err(Error::InvalidParameter { name: "nc", .. })
        ));
    }
    assert_eq!(noncentral_t_cdf(f64::INFINITY, 5.0, 1.0).unwrap(), 1.0);
    assert_eq!(noncentral_t_sf(f64::NEG_INFINITY, 5.0, 1.0).unwrap(), 1.0);
}

#[test]
fn power_and_sample_size_reject_bad_input() {
    let g = Alternative::Greater;
    assert!(matches!(
        power(f64::NAN, 10, 0.05, g),
        Err(Error::InvalidParameter { name: "d", .. })
    ));
    assert!(matches!(
        power(0.5, 1, 0.05, g),
        Err(Error::TooFewObservations { n: 1, min: 2, .. })
    ));
    for alpha in [0.0, 1.0, 1.5, f64::NAN] {
        assert!(matches!(
            power(0.5, 10, alpha, g),
            Err(Error::AlphaOutOfRange { .. })
        ));
        assert!(matches!(
            n_per_arm(0.5, alpha, 0.8, g),
            Err(Error::AlphaOutOfRange { .. })
        ));
    }
    for target in [0.0, 1.0, -0.2, f64::NAN] {
        assert!(matches!(
            n_per_arm(0.5, 0.05, target, g),
            Err(Error::InvalidParameter { name: "power", .. })
        ));
    }
    assert!(matches!(
        n_per_arm(f64::INFINITY, 0.05, 0.8, g),
        Err(Error::InvalidParameter { name: "d", .. })
    ));
    assert!(matches!(
        n_per_arm(-0.5, 0.05, 0.8, g),
        Err(Error::InvalidParameter { name: "d", .. })
    ));
    assert!(matches!(
        n_per_arm(0.5, 0.05, 0.8, Alternative::Less),
        Err(Error::InvalidParameter { name: "d", .. })
    ));
    assert!(matches!(
        n_per_arm(0.0, 0.05, 0.8, Alternative::TwoSided),
        Err(Error::InvalidParameter { name: "d", .. })
    ));
    // An effect too small to plan for (more than 1e9 per arm).
    assert!(matches!(
        n_per_arm(1e-6, 0.05, 0.8, g),
        Err(Error::InvalidParameter { name: "d", .. })
    ));
}

#[test]
fn results_reader_rejects_bad_input() {
    let data = |r: Result<_, Error>| match r {
        Err(Error::Data { path, message }) => (path, message),
        other => panic!("expected a Data error, got {other:?}"),
    };
    let header = "participant_id,experiment,num_correct,time,Age,Sex\n";
    let (path, msg) = data(parse_results_csv("", "empty.csv"));
    assert_eq!(path, "empty.csv");
    assert!(msg.contains("empty"), "{msg}");
    assert!(
        data(parse_results_csv(header, "m"))
            .1
            .contains("no data rows")
    );
    assert!(
        data(parse_results_csv(
            "participant_id,experiment,time\n1,a,2\n",
            "m"
        ))
        .1
        .contains("num_correct")
    );
    let cases = [
        (
            "1,control,35,779.5,57\n",
            "line 2: expected 6 fields, found 5",
        ),
        ("1,control,3.5,779.5,57,Male\n", "line 2: num_correct"),
        ("1,control,-3,779.5,57,Male\n", "line 2: num_correct"),
        ("1,control,35,NaN,57,Male\n", "line 2: time"),
        ("1,control,35,-1,57,Male\n", "line 2: time"),
        ("1,control,35,10,old,Male\n", "line 2: Age"),
        (",control,35,10,57,Male\n", "line 2: empty participant_id"),
        ("1,,35,10,57,Male\n", "line 2: empty experiment"),
        ("1,\"control,35,10,57,Male\n", "line 2: unterminated"),
    ];
    for (row, want) in cases {
        let (_, msg) = data(parse_results_csv(&format!("{header}{row}"), "m"));
        assert!(msg.starts_with(want), "{row:?}: {msg}");
    }
    let (path, _) = data(read_results_csv("/nonexistent/results.csv"));
    assert_eq!(path, "/nonexistent/results.csv");
}

#[test]
fn arm_functions_reject_bad_input() {
    let p = parse_results_csv(
        "participant_id,experiment,num_correct,time\n1,a,3,1\n2,a,4,2\n3,b,5,3\n4,b,5,4\n",
        "m",
    )
    .unwrap();
    assert!(matches!(
        group_by_arm(&[]),
        Err(Error::EmptyInput {
            what: "participants"
        })
    ));
    assert!(matches!(
        arm_outcome(&[], "a", Outcome::Time),
        Err(Error::EmptyInput { .. })
    ));
    match arm_outcome(&p, "conformal", Outcome::NumCorrect) {
        Err(Error::UnknownArm { arm, available }) => {
            assert_eq!((arm.as_str(), available.as_str()), ("conformal", "a, b"));
        }
        other => panic!("expected UnknownArm, got {other:?}"),
    }
    assert!(matches!(
        compare_arms(&p, "a", "c", Alternative::Greater),
        Err(Error::UnknownArm { .. })
    ));
    // Arm b is constant, arm a is not: fine for Welch and MWU.
    let r = compare_arms(&p, "a", "b", Alternative::Less).unwrap();
    assert_eq!(
        (r.difference, r.control.sd, r.control.median),
        (-1.5, 0.0, 5.0)
    );
    assert!(matches!(
        summarize(aview1(&EMPTY)),
        Err(Error::EmptyInput { .. })
    ));
    assert!(matches!(
        summarize(aview1(&NAN_SAMPLE)),
        Err(Error::NonFinite { index: 1, .. })
    ));
    assert!(matches!(
        summarize(aview1(&[1.0])),
        Err(Error::TooFewObservations { n: 1, .. })
    ));
    assert!(matches!(
        compare_samples(
            aview1(&[1.0, 1.0]),
            aview1(&[1.0, 1.0]),
            Alternative::TwoSided
        ),
        Err(Error::Core(mlcore::Error::ZeroVariance { .. }))
    ));
    assert!(matches!(
        compare_samples(aview1(&X1), aview1(&[2.0]), Alternative::TwoSided),
        Err(Error::TooFewObservations {
            what: "control",
            n: 1,
            ..
        })
    ));
}
