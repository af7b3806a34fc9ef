//! Hostile inputs at every public entry point (issue 35, "Bad input"): NaN,
//! ±∞, values near ±f64::MAX, subnormals, zero and huge sizes, out-of-range
//! indices, duplicate entries. Every call must return `Ok` with no NaN in
//! what it returns (±∞ only where the function documents it) or a typed
//! `Err` — never a panic, a capacity overflow or an abort. Seeded.

use matrix_completion::Error;
use matrix_completion::data::{Duplicates, Observations, parse_movielens_udata};
use matrix_completion::link::{Link, MonotonePiecewiseLinear, ScalarLink};
use matrix_completion::metrics::{evaluate, mae, rmse};
use matrix_completion::model::{DeepMf, PenaltyWeights};
use matrix_completion::schatten::{
    SoftImputeOptions, balanced_factors, effective_rank, product, quasi_norm, schatten_pow,
    soft_impute, soft_impute_objective, variational_value, weighted_balanced_factors,
    weighted_variational_value,
};
use matrix_completion::synthetic::{Sampling, TrueLink, count_for_fraction, low_rank, sample};
use matrix_completion::train::{Batch, LinkConfig, TrainConfig, Weighting, fit};
use ndarray::{Array1, Array2};
use proptest::prelude::*;
use proptest::test_runner::RngSeed;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        rng_seed: RngSeed::Fixed(0x35_4d43),
        ..ProptestConfig::with_cases(cases)
    }
}

/// Finite and non-finite extremes, and ordinary values.
fn hostile_f64() -> impl Strategy<Value = f64> {
    prop_oneof![
        Just(f64::NAN),
        Just(f64::INFINITY),
        Just(f64::NEG_INFINITY),
        Just(f64::MAX),
        Just(-f64::MAX),
        Just(1e308),
        Just(-1e308),
        Just(1e200),
        Just(-1e200),
        Just(5e-324),
        Just(0.0),
        Just(-0.0),
        Just(1.0),
        -10.0..10.0f64,
    ]
}

/// Finite extremes only (values a user may legitimately pass).
fn extreme_finite() -> impl Strategy<Value = f64> {
    prop_oneof![
        Just(f64::MAX),
        Just(-f64::MAX),
        Just(1e308),
        Just(-1e308),
        Just(1e200),
        Just(-1e200),
        Just(1e-300),
        Just(5e-324),
        Just(0.0),
        -10.0..10.0f64,
    ]
}

fn hostile_size() -> impl Strategy<Value = usize> {
    prop_oneof![
        Just(0usize),
        Just(1),
        Just(usize::MAX),
        Just(usize::MAX / 2),
        Just(1 << 40),
        Just(u32::MAX as usize),
        Just(u32::MAX as usize + 1),
        1usize..8,
    ]
}

fn no_nan(v: f64) -> bool {
    !v.is_nan()
}

fn small_obs() -> Observations {
    let t = (0..6).flat_map(|i| (0..5).map(move |j| (i, j, (i * 5 + j) as f64 * 0.1)));
    Observations::from_triplets(6, 5, t, Duplicates::Reject).unwrap()
}

fn matrix(vals: &[f64], m: usize, n: usize) -> Array2<f64> {
    Array2::from_shape_fn((m, n), |(i, j)| vals[(i * n + j) % vals.len()])
}

proptest! {
    #![proptest_config(config(96))]

    /// Observation sets: any triplets, indices and sizes give a set or a typed error;
    /// averaged duplicates of finite values stay finite (±1e308 → 0).
    #[test]
    fn observations_from_hostile_triplets(
        rows in hostile_size(),
        cols in hostile_size(),
        trip in proptest::collection::vec((0usize..9, 0usize..9, hostile_f64()), 0..12),
        avg in any::<bool>(),
        frac in hostile_f64(),
        zeta in hostile_f64(),
    ) {
        let dup = if avg { Duplicates::Average } else { Duplicates::Reject };
        if let Ok(o) = Observations::from_triplets(rows, cols, trip.clone(), dup) {
            prop_assert!(o.values().iter().all(|v| v.is_finite()));
            prop_assert!(o.mean().is_finite() && o.std().is_finite());
            let _ = o.split(frac, &mut ChaCha8Rng::seed_from_u64(1));
            if let Ok(s) = o.marginals().smoothed(zeta) {
                prop_assert!(s.row.iter().chain(&s.col).all(|v| v.is_finite()));
            }
            let _ = PenaltyWeights::smoothed(&o, zeta);
            let _ = o.map_values(|_, _, v| v * frac);
        }
    }

    /// MovieLens text: arbitrary bytes and huge ids are parse or size errors.
    #[test]
    fn movielens_text(
        lines in proptest::collection::vec(
            prop_oneof![
                "[0-9 \t.eE+-]{0,24}",
                Just("18446744073709551615\t1\t5\t0".to_string()),
                Just("4294967296\t1\t5\t0".to_string()),
                Just("1\t4294967295\t5\t0".to_string()),
                Just("1\t1\tNaN\t0".to_string()),
                Just("1\t1\t1e308\t0\n1\t1\t-1e308\t0".to_string()),
            ],
            0..6,
        ),
        avg in any::<bool>(),
    ) {
        let text = lines.join("\n");
        let dup = if avg { Duplicates::Average } else { Duplicates::Reject };
        if let Ok(o) = parse_movielens_udata(&text, dup) {
            prop_assert!(o.values().iter().all(|v| v.is_finite()));
        }
    }

    /// Synthetic data: huge sizes are TooLarge, not an abort.
    #[test]
    fn synthetic_sizes_and_parameters(
        m in hostile_size(),
        n in hostile_size(),
        r in hostile_size(),
        frac in hostile_f64(),
        noise in hostile_f64(),
        alpha in hostile_f64(),
        n_obs in hostile_size(),
        g in proptest::collection::vec(hostile_f64(), 1..4),
    ) {
        let mut rng = ChaCha8Rng::seed_from_u64(2);
        if let Ok(x) = low_rank(m, n, r, &mut rng) {
            prop_assert!(x.iter().all(|v| v.is_finite()));
        }
        if let Ok(c) = count_for_fraction(m, n, frac) {
            prop_assert!(c >= 1);
        }
        let truth = matrix(&g, 3, 4);
        for sampling in [Sampling::Uniform, Sampling::PowerLaw { alpha }] {
            for link in [TrueLink::Identity, TrueLink::RATINGS] {
                let _ = sample(&truth, link, sampling, n_obs, noise, &mut rng);
            }
        }
    }

    /// Schatten tools on extreme matrices: scaled first, so finite entries give
    /// finite quasi-norms and effective ranks; depth 0 and huge depths are errors.
    #[test]
    fn schatten_tools(
        vals in proptest::collection::vec(extreme_finite(), 1..12),
        bad in hostile_f64(),
        m in 1usize..5,
        n in 1usize..5,
        p in hostile_f64(),
        depth in hostile_size(),
    ) {
        let z = matrix(&vals, m, n);
        // The random p may be tiny (5e-324), where ‖Z‖_{S_p} = (Σσᵖ)^{1/p} itself
        // exceeds f64 (k^{1/p} for k equal singular values): only "no NaN" there.
        if let Ok(v) = quasi_norm(z.view(), p) {
            prop_assert!(no_nan(v) && v >= 0.0);
        }
        for p in [0.5, 2.0 / 3.0, 1.0, 2.0] {
            if let Ok(v) = schatten_pow(z.view(), p) {
                prop_assert!(no_nan(v) && v >= 0.0);
            }
            // Finite unless the true value is within rounding of f64::MAX
            // (σ₁ ≥ max |zᵢⱼ|, so entries near 1.8e308 may round over).
            let near_max = z.iter().any(|v| v.abs() >= 1e307);
            if let Ok(v) = quasi_norm(z.view(), p) {
                prop_assert!((v.is_finite() || near_max) && v >= 0.0, "quasi_norm {v} of {z:?}");
            }
            if let Ok(v) = effective_rank(z.view(), p) {
                prop_assert!(v.is_finite(), "effective_rank {v} of {z:?}");
            }
        }
        if let Ok(f) = balanced_factors(z.view(), depth) {
            prop_assert!(f.iter().all(|a| a.iter().all(|v| v.is_finite())));
            let _ = product(&f);
            if let Ok(v) = variational_value(&f) {
                prop_assert!(no_nan(v));
            }
        }
        let zb = matrix(&[bad], m, n);
        let _ = schatten_pow(zb.view(), 1.0);
        let _ = balanced_factors(zb.view(), 2);
        let d_r = Array1::from_elem(m, bad);
        let d_c = Array1::from_elem(n, 1.0);
        let _ = weighted_balanced_factors(z.view(), d_r.view(), d_c.view(), depth.min(6));
        let _ = weighted_variational_value(std::slice::from_ref(&z), d_r.view(), d_c.view());
        for p in [p, 1e-300] {
            let _ = schatten_pow(z.view(), p);
            let _ = effective_rank(z.view(), p);
        }
        prop_assert!(product(&[]).is_err());
        prop_assert!(product(&[z.clone(), z.clone()]).is_err() || m == n);
    }

    /// Soft-impute and its objective with hostile λ and options.
    #[test]
    fn soft_impute_hostile(
        lambda in hostile_f64(),
        tol in hostile_f64(),
        iters in 0usize..4,
        max_rank in proptest::option::of(0usize..3),
        big in extreme_finite(),
    ) {
        let o = small_obs().map_values(|i, j, v| if (i + j) % 3 == 0 { big } else { v }).unwrap();
        let opts = SoftImputeOptions { max_iters: iters, tol, max_rank };
        if let Ok(r) = soft_impute(&o, lambda, &opts) {
            prop_assert!(r.z.iter().all(|v| v.is_finite()));
            prop_assert!(no_nan(r.objective));
        }
        let z = Array2::from_elem((6, 5), big);
        let _ = soft_impute_objective(&o, z.view(), lambda);
        let wrong = Array2::zeros((5, 6));
        prop_assert!(soft_impute_objective(&o, wrong.view(), 1.0).is_err());
    }

    /// Links: knot counts up to usize::MAX, hostile ranges and caps, parameter
    /// vectors of any length or value.
    #[test]
    fn links(
        knots in hostile_size(),
        lo in hostile_f64(),
        hi in hostile_f64(),
        cap in hostile_f64(),
        theta in proptest::collection::vec(hostile_f64(), 0..30),
        z in hostile_f64(),
    ) {
        let _ = MonotonePiecewiseLinear::identity(knots, lo, hi, cap);
        let _ = LinkConfig::Frmc { knots, lo, hi, cap }.build();
        let mut l = MonotonePiecewiseLinear::paper_default();
        let before = l.clone();
        if l.set_params_projected(&theta).is_err() {
            prop_assert_eq!(&l, &before);
        } else {
            prop_assert!(l.lipschitz() <= l.cap());
        }
        let mut g = vec![0.0; theta.len()];
        let _ = l.add_grad_params(z, 1.0, &mut g);
        let _ = l.add_grad_params_batch(&[z, 0.0], &[1.0], &mut g);
        let _ = l.value(z);
        let _ = l.dvalue(z);
    }

    /// Models: hostile factors, sizes, indices, weights; metrics on extreme values.
    #[test]
    fn models_and_metrics(
        m in hostile_size(),
        n in hostile_size(),
        depth in hostile_size(),
        width in hostile_size(),
        scale in hostile_f64(),
        offset in hostile_f64(),
        i in hostile_size(),
        j in hostile_size(),
        lambda in hostile_f64(),
        w in hostile_f64(),
        pred in proptest::collection::vec(extreme_finite(), 0..6),
        truth in proptest::collection::vec(extreme_finite(), 0..6),
        lo in hostile_f64(),
        hi in hostile_f64(),
        points in hostile_size(),
    ) {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let _ = DeepMf::random(m, n, depth, width, scale, Link::Identity(Default::default()), offset, &mut rng);
        let _ = PenaltyWeights::uniform(m, n);
        let o = small_obs();
        let model = DeepMf::random(6, 5, 3, 2, 0.1, Link::Identity(Default::default()), 0.0, &mut rng).unwrap();
        let _ = model.predict(i, j);
        let _ = DeepMf::new(vec![Array2::from_elem((2, 2), offset)], Link::Identity(Default::default()), offset);
        let pw = PenaltyWeights { rows: Array1::from_elem(6, w), cols: Array1::from_elem(i.min(7), 1.0) };
        let _ = model.penalty(Some(&pw));
        let _ = model.objective(&o, lambda, Some(&pw));
        let _ = model.objective_and_gradient(&o, lambda, Some(&pw));
        let _ = model.link_table(lo, hi, points);
        let _ = model.latent();
        let other = Observations::from_triplets(7, 5, [(0, 0, 1.0)], Duplicates::Reject).unwrap();
        prop_assert!(model.predict_observed(&other, None).is_err());
        prop_assert!(evaluate(&model, &other, None).is_err());
        let huge = DeepMf::new(
            vec![Array2::zeros((1 << 20, 1)), Array2::zeros((1, 1 << 20))],
            Link::Identity(Default::default()),
            0.0,
        ).unwrap();
        let too_large = matches!(huge.latent(), Err(Error::TooLarge { .. }));
        prop_assert!(too_large);
        for (p, t) in [(pred.as_slice(), truth.as_slice()), (pred.as_slice(), pred.as_slice())] {
            if let Ok(v) = rmse(p, t) {
                prop_assert!(no_nan(v) && v >= 0.0);
            }
            if let Ok(v) = mae(p, t) {
                prop_assert!(no_nan(v) && v >= 0.0);
            }
        }
    }
}

proptest! {
    #![proptest_config(config(24))]

    /// Training with hostile hyper-parameters and extreme ratings: a model, or a
    /// typed error (Diverged included) — never NaN in the returned model.
    #[test]
    fn training(
        depth in 0usize..4,
        width in 0usize..3,
        lambda in hostile_f64(),
        lr in hostile_f64(),
        decay in hostile_f64(),
        big in extreme_finite(),
        zeta in hostile_f64(),
        frmc in any::<bool>(),
        mini in proptest::option::of(0usize..4),
    ) {
        let o = small_obs().map_values(|i, j, v| if (i + j) % 4 == 0 { big } else { v }).unwrap();
        let cfg = TrainConfig {
            depth,
            width,
            lambda,
            lr_decay: decay,
            epochs: 3,
            weighting: if zeta.is_finite() && zeta > 0.5 { Weighting::Smoothed { zeta } } else { Weighting::None },
            link: if frmc { LinkConfig::FRMC_DEFAULT } else { LinkConfig::Identity },
            batch: mini.map_or(Batch::Full, Batch::Mini),
            adam: matrix_completion::train::Adam { lr, ..Default::default() },
            ..TrainConfig::default()
        };
        if let Ok(f) = fit(&o, Some(&o), &cfg, &mut ChaCha8Rng::seed_from_u64(4)) {
            prop_assert!(f.model.factors().iter().all(|a| a.iter().all(|v| v.is_finite())));
            prop_assert!(f.history.iter().all(|h| h.objective.is_finite() && h.train_rmse.is_finite()));
        }
    }
}

/// The named cases, with the values they must give.
#[test]
fn named_hostile_cases() {
    // Averaging ±1e308 gives 0, not ∞.
    let o = Observations::from_triplets(1, 1, [(0, 0, 1e308), (0, 0, -1e308)], Duplicates::Average)
        .unwrap();
    assert_eq!(o.values(), &[0.0]);
    // RMSE of entries near 1e200 is finite and exact: |1e200 − 0| = 1e200.
    let r = rmse(&[1e200, 1e200], &[0.0, 0.0]).unwrap();
    assert!((r - 1e200).abs() <= 1e186, "{r}");
    // Schatten-1 norm of diag(1e200, 1e200) is 2e200; its S_2 quasi-norm √2·1e200.
    let z = Array2::from_diag(&Array1::from(vec![1e200, 1e200]));
    let s1 = schatten_pow(z.view(), 1.0).unwrap();
    assert!((s1 / 2e200 - 1.0).abs() < 1e-12, "{s1}");
    let q2 = quasi_norm(z.view(), 2.0).unwrap();
    assert!((q2 / (2f64.sqrt() * 1e200) - 1.0).abs() < 1e-12, "{q2}");
    assert!((effective_rank(z.view(), 1.0).unwrap() - 2.0).abs() < 1e-9);
    // Huge sizes are TooLarge.
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    assert!(matches!(
        low_rank(usize::MAX, 2, 2, &mut rng),
        Err(Error::TooLarge { .. })
    ));
    assert!(matches!(
        count_for_fraction(usize::MAX, 3, 0.5),
        Err(Error::TooLarge { .. })
    ));
    assert!(matches!(
        MonotonePiecewiseLinear::identity(usize::MAX, -4.0, 4.0, 3.0),
        Err(Error::InvalidLink { .. })
    ));
    assert!(matches!(
        balanced_factors(z.view(), usize::MAX),
        Err(Error::TooLarge { .. })
    ));
    // Re-checked for issue 35 (sizes whose product overflows usize, or whose
    // memory is far above the limit without overflowing): TooLarge, no abort.
    for (m, n, r) in [
        (1usize << 40, 1usize << 40, 1usize),
        (1 << 33, 4, 2),
        (4, 1 << 33, 2),
    ] {
        assert!(
            matches!(low_rank(m, n, r, &mut rng), Err(Error::TooLarge { .. })),
            "low_rank({m}, {n}, {r})"
        );
    }
    assert!(matches!(
        count_for_fraction(1 << 33, 1 << 33, 0.5),
        Err(Error::TooLarge { .. })
    ));
    // An FRMC link with a huge knot count, through the training config too.
    let huge = LinkConfig::Frmc {
        knots: 1 << 40,
        lo: -4.0,
        hi: 4.0,
        cap: 3.0,
    };
    assert!(matches!(huge.build(), Err(Error::InvalidLink { .. })));
    let cfg = TrainConfig {
        link: huge,
        ..TrainConfig::default()
    };
    assert!(matches!(cfg.check(), Err(Error::InvalidLink { .. })));
    // Averages of huge duplicates are scaled: three copies of 1.7e308 average
    // to 1.7e308, (MAX, −MAX, MAX) to MAX/3.
    let o = Observations::from_triplets(1, 1, [(0, 0, 1.7e308); 3], Duplicates::Average).unwrap();
    assert!(
        (o.values()[0] / 1.7e308 - 1.0).abs() < 1e-15,
        "{:?}",
        o.values()
    );
    let o = Observations::from_triplets(
        1,
        1,
        [(0, 0, f64::MAX), (0, 0, -f64::MAX), (0, 0, f64::MAX)],
        Duplicates::Average,
    )
    .unwrap();
    assert!((o.values()[0] / (f64::MAX / 3.0) - 1.0).abs() < 1e-15);
    // RMSE and MAE of differences near 2e300 (squares far beyond f64::MAX).
    let (p, t) = ([1e300, -1e300], [-1e300, 1e300]);
    assert!((rmse(&p, &t).unwrap() / 2e300 - 1.0).abs() < 1e-15);
    assert!((mae(&p, &t).unwrap() / 2e300 - 1.0).abs() < 1e-15);
    // Schatten-1/2 of diag(1e200, 1e200): (2·1e100)² = 4e200, finite.
    let s_half = quasi_norm(z.view(), 0.5).unwrap();
    assert!((s_half / 4e200 - 1.0).abs() < 1e-12, "{s_half}");
}
