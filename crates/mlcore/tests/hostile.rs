//! Hostile input at every public entry point of `mlcore` (linalg, sampling,
//! stats without the inference functions, check, data, special): NaN and ±∞
//! entries, empty arrays, mismatched shapes, magnitudes near 1e±300, subnormal
//! and `f64::MAX` entries, non-PSD and singular matrices, weights that do not
//! sum to one, sizes whose product overflows.
//!
//! Each call must return `Err(_)` or an `Ok` whose numbers are finite (or the
//! documented exception: `conformal_quantile`'s `+∞`, `Welford`'s NaN for
//! too few observations and `+∞` variance beyond `f64::MAX`, the special
//! functions' limits). A panic is caught (`catch_unwind`) and turned into a
//! test failure that prints the input. The seed is fixed, so a failure
//! reproduces; the whole file runs in about a second.
//!
//! The second half holds the regression tests of the defects found by the
//! hostile run of issue 21, each against an independently computed value.

use mlcore::check;
use mlcore::data::{Dataset, sha256_hex};
use mlcore::linalg::{self, Jitter, Triangle};
use mlcore::sampling::{self, AliasTable, MultivariateNormal, seeded};
use mlcore::special;
use mlcore::stats::{self, Ecdf, Welford};
use mlcore::{Error, Result};
use ndarray::{Array1, Array2, array};
use proptest::prelude::*;
use proptest::test_runner::{Config as ProptestConfig, RngSeed, TestCaseError};
use rand::distr::Distribution;
use std::fmt::Debug;
use std::panic::{AssertUnwindSafe, catch_unwind};

/// Runs `f`, turning a panic into a test failure that names the call and its input.
fn guard<T>(
    call: &str,
    input: &dyn Debug,
    f: impl FnOnce() -> T,
) -> std::result::Result<T, TestCaseError> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|e| {
        let msg = e
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default();
        TestCaseError::fail(format!("{call} panicked ({msg}) on input {input:?}"))
    })
}

/// `Ok` must carry finite numbers; an `Err` is fine.
fn finite_ok<'a, T: 'a>(
    call: &str,
    input: &dyn Debug,
    r: &'a Result<T>,
    numbers: impl FnOnce(&'a T) -> Vec<f64>,
) -> std::result::Result<(), TestCaseError> {
    if let Ok(v) = r {
        let bad: Vec<f64> = numbers(v).into_iter().filter(|x| !x.is_finite()).collect();
        prop_assert!(
            bad.is_empty(),
            "{call} returned Ok with non-finite {bad:?} on input {input:?}"
        );
    }
    Ok(())
}

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        rng_seed: RngSeed::Fixed(0x1c31_2021),
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// Any `f64`, weighted towards the hostile ones.
fn hostile_f64() -> impl Strategy<Value = f64> {
    prop_oneof![
        4 => -10.0..10.0f64,
        2 => finite_extreme(),
        1 => Just(f64::NAN),
        1 => Just(f64::INFINITY),
        1 => Just(f64::NEG_INFINITY),
    ]
}

/// Finite values of every magnitude: 0, ±1e±300, subnormals, `f64::MAX`.
fn finite_extreme() -> impl Strategy<Value = f64> {
    prop_oneof![
        (-300i32..=300, -1.0..1.0f64).prop_map(|(e, m)| m * 10f64.powi(e)),
        prop::sample::select(vec![
            0.0,
            -0.0,
            1e300,
            -1e300,
            1e-300,
            -1e-300,
            f64::MAX,
            -f64::MAX,
            f64::MIN_POSITIVE,
            5e-324,
            -5e-324,
            1e-310,
            1.0,
        ]),
    ]
}

fn finite_f64() -> impl Strategy<Value = f64> {
    prop_oneof![3 => -10.0..10.0f64, 2 => finite_extreme()]
}

fn hostile_vec(max: usize) -> impl Strategy<Value = Vec<f64>> {
    prop::collection::vec(hostile_f64(), 0..max)
}

fn finite_vec(max: usize) -> impl Strategy<Value = Vec<f64>> {
    prop::collection::vec(finite_f64(), 0..max)
}

/// A matrix of 0..5 × 0..5 hostile entries, or a structured square one:
/// SPD, negative definite, singular (rank one), with a subnormal pivot, or
/// one of these scaled to 1e±300 or `f64::MAX`.
fn hostile_matrix() -> impl Strategy<Value = Array2<f64>> {
    let random = (0usize..5, 0usize..5).prop_flat_map(|(r, c)| {
        prop::collection::vec(hostile_f64(), r * c)
            .prop_map(move |v| Array2::from_shape_vec((r, c), v).unwrap())
    });
    let structured = (
        1usize..5,
        0u8..5,
        prop::sample::select(vec![1.0, 1e300, 1e-300, f64::MAX, 5e-324, 1e-310, -1.0]),
        any::<u64>(),
    )
        .prop_map(|(n, kind, scale, seed)| {
            let mut rng = seeded(seed);
            let g: Array2<f64> = sampling::standard_normal((n, n), &mut rng);
            let base = match kind {
                0 => g.dot(&g.t()) + Array2::<f64>::eye(n),
                1 => -Array2::<f64>::eye(n),
                2 => {
                    let u = g.column(0).to_owned();
                    Array2::from_shape_fn((n, n), |(i, j)| u[i] * u[j])
                }
                3 => {
                    let mut t = g.clone();
                    t[[n - 1, n - 1]] = 5e-324;
                    t
                }
                _ => g,
            };
            let peak = base
                .iter()
                .fold(0.0f64, |m, v| m.max(v.abs()))
                .max(f64::MIN_POSITIVE);
            base.mapv(|v| v / peak * scale)
        });
    prop_oneof![random, structured]
}

fn arr_nums(a: &Array2<f64>) -> Vec<f64> {
    a.iter().copied().collect()
}

fn vec_nums(a: &Array1<f64>) -> Vec<f64> {
    a.to_vec()
}

proptest! {
    #![proptest_config(config(400))]

    #[test]
    fn linalg_entry_points_never_panic_nor_return_non_finite(
        a in hostile_matrix(),
        b in hostile_vec(6),
        b_rows in 0usize..6,
        jitter in (finite_f64(), finite_f64(), prop_oneof![finite_f64(), Just(1.0 + 1e-7), Just(1.0 + f64::EPSILON)]),
    ) {
        let input = (&a, &b, b_rows, jitter);
        let b1 = Array1::from(b.clone());
        let b2 = Array2::from_shape_fn((b_rows, 2), |(i, j)| b.get(i * 2 + j).copied().unwrap_or(1.0));
        let av = a.view();

        guard("with_faer", &input, || linalg::with_faer(av, linalg::to_ndarray))?;
        let r = guard("cholesky", &input, || linalg::cholesky(av))?;
        finite_ok("cholesky", &input, &r, arr_nums)?;
        let schedule = Jitter { initial: jitter.0.abs(), max: jitter.1.abs(), growth: jitter.2 };
        let r = guard("cholesky_jittered", &input, || linalg::cholesky_jittered(av, schedule))?;
        finite_ok("cholesky_jittered", &input, &r, |j| { let mut v = arr_nums(&j.l); v.push(j.jitter); v })?;
        let r = guard("cholesky_jittered default", &input, || linalg::cholesky_jittered(av, Jitter::default()))?;
        finite_ok("cholesky_jittered default", &input, &r, |j| arr_nums(&j.l))?;
        for tri in [Triangle::Lower, Triangle::Upper] {
            let r = guard("solve_triangular (vector)", &input, || linalg::solve_triangular(av, b1.view(), tri))?;
            finite_ok("solve_triangular (vector)", &input, &r, vec_nums)?;
            let r = guard("solve_triangular (matrix)", &input, || linalg::solve_triangular(av, b2.view(), tri))?;
            finite_ok("solve_triangular (matrix)", &input, &r, arr_nums)?;
        }
        let r = guard("solve_spd", &input, || linalg::solve_spd(av, b1.view()))?;
        finite_ok("solve_spd", &input, &r, vec_nums)?;
        let r = guard("solve_spd (matrix)", &input, || linalg::solve_spd(av, b2.view()))?;
        finite_ok("solve_spd (matrix)", &input, &r, arr_nums)?;
        let r = guard("logdet_spd", &input, || linalg::logdet_spd(av))?;
        finite_ok("logdet_spd", &input, &r, |v| vec![*v])?;
        let r = guard("qr", &input, || linalg::qr(av))?;
        finite_ok("qr", &input, &r, |f| { let mut v = arr_nums(&f.q); v.extend(f.r.iter()); v })?;
        let r = guard("svd", &input, || linalg::svd(av))?;
        finite_ok("svd", &input, &r, |f| { let mut v = arr_nums(&f.u); v.extend(f.s.iter()); v.extend(f.vt.iter()); v })?;
        if let Ok(f) = &r {
            prop_assert!(f.s.iter().all(|&s| s >= 0.0), "negative singular value on {input:?}");
            prop_assert!(f.rank() <= f.s.len());
        }
        let r = guard("eigh", &input, || linalg::eigh(av))?;
        finite_ok("eigh", &input, &r, |f| { let mut v = vec_nums(&f.values); v.extend(f.vectors.iter()); v })?;
        let r = guard("lstsq", &input, || linalg::lstsq(av, b1.view()))?;
        finite_ok("lstsq", &input, &r, |f| { let mut v = vec_nums(&f.x); v.extend(f.singular_values.iter()); v })?;
        let r = guard("lstsq (matrix)", &input, || linalg::lstsq(av, b2.view()))?;
        finite_ok("lstsq (matrix)", &input, &r, |f| arr_nums(&f.x))?;
        let r = guard("pinv", &input, || linalg::pinv(av))?;
        finite_ok("pinv", &input, &r, arr_nums)?;
        let r = guard("leverage_scores", &input, || linalg::leverage_scores(av))?;
        finite_ok("leverage_scores", &input, &r, vec_nums)?;
        if let Ok(l) = &r {
            prop_assert!(l.iter().all(|&t| (-1e-12..=1.0 + 1e-12).contains(&t)), "leverage outside [0, 1] on {input:?}");
        }
        let _ = guard("Jitter::check", &input, || schedule.check())?;
    }

    #[test]
    fn sampling_entry_points_never_panic_nor_return_non_finite(
        weights in hostile_vec(8),
        k in 0usize..10,
        mean in hostile_vec(4),
        cov in hostile_matrix(),
        n in prop::sample::select(vec![0usize, 1, 3, 1 << 20, 1 << 40, usize::MAX / 2, usize::MAX]),
        seed in any::<u64>(),
    ) {
        let input = (&weights, k, &mean, &cov, n);
        let mut rng = seeded(seed);
        let r = guard("AliasTable::new", &input, || AliasTable::new(&weights))?;
        if let Ok(t) = &r {
            let p = t.probabilities();
            prop_assert!(p.iter().all(|x| x.is_finite() && *x >= 0.0));
            prop_assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-9, "probabilities {p:?}");
            prop_assert!(t.implied_probabilities().iter().all(|x| x.is_finite()));
            for _ in 0..8 {
                let i = guard("AliasTable::sample", &input, || t.sample(&mut rng))?;
                prop_assert!(i < t.len() && weights[i] > 0.0, "drew {i} from {weights:?}");
            }
        }
        let r = guard("sample_without_replacement", &input, || sampling::sample_without_replacement(&weights, k, &mut rng))?;
        if let Ok(idx) = &r {
            prop_assert_eq!(idx.len(), k);
            let mut sorted = idx.clone();
            sorted.sort_unstable();
            sorted.dedup();
            prop_assert_eq!(sorted.len(), k, "repeated index in {:?}", idx);
            prop_assert!(idx.iter().all(|&i| weights[i] > 0.0));
        }
        let r = guard("try_standard_normal", &input, || sampling::try_standard_normal((n, 3), &mut rng))?;
        if n <= 1 << 20 {
            prop_assert!(r.as_ref().is_ok_and(|z| z.iter().all(|v| v.is_finite())), "{r:?}");
        } else {
            prop_assert!(matches!(r, Err(Error::TooLarge { .. })), "n = {n}");
        }
        let small = guard("standard_normal", &input, || sampling::standard_normal((k, 2), &mut rng))?;
        prop_assert!(small.iter().all(|v| v.is_finite()));
        let mean = Array1::from(mean.clone());
        let built = [
            guard("MultivariateNormal::from_covariance", &input, || MultivariateNormal::from_covariance(mean.view(), cov.view()))?,
            guard("MultivariateNormal::from_cholesky", &input, || MultivariateNormal::from_cholesky(mean.view(), cov.view()))?,
        ];
        for mvn in built.into_iter().flatten() {
                let x = guard("MultivariateNormal::sample", &input, || mvn.sample(&mut rng))?;
                prop_assert!(x.iter().all(|v| v.is_finite()), "draw {x:?} on {input:?}");
                let xs = guard("MultivariateNormal::sample_n", &input, || mvn.sample_n(k, &mut rng))?;
                prop_assert!(xs.iter().all(|v| v.is_finite()), "draws {xs:?} on {input:?}");
                let big = guard("MultivariateNormal::try_sample_n", &input, || mvn.try_sample_n(n, &mut rng))?;
                if n <= 1 << 20 {
                    prop_assert!(big.is_ok_and(|z| z.iter().all(|v| v.is_finite())));
                } else {
                    prop_assert!(matches!(big, Err(Error::TooLarge { .. })), "n = {}", n);
                }
        }
    }

    #[test]
    fn stats_entry_points_never_panic_nor_return_non_finite(
        x in hostile_vec(8),
        y in hostile_vec(8),
        fx in finite_vec(8),
        fy in finite_vec(8),
        q in hostile_f64(),
        k in 0usize..10,
        n in prop_oneof![0usize..100, Just(usize::MAX), Just(usize::MAX - 1), Just(1usize << 53), any::<usize>()],
    ) {
        let input = (&x, &y, &fx, &fy, q, k, n);
        for (x, y) in [(&x, &y), (&fx, &fy), (&fx, &y)] {
            let (xv, yv) = (Array1::from(x.clone()), Array1::from(y.clone()));
            let r = guard("order_statistic", &input, || stats::order_statistic(xv.view(), k))?;
            finite_ok("order_statistic", &input, &r, |v| vec![*v])?;
            let r = guard("quantile", &input, || stats::quantile(xv.view(), q))?;
            finite_ok("quantile", &input, &r, |v| vec![*v])?;
            let r = guard("quantile(0.5)", &input, || stats::quantile(xv.view(), 0.5))?;
            finite_ok("quantile(0.5)", &input, &r, |v| vec![*v])?;
            let r = guard("median", &input, || stats::median(xv.view()))?;
            finite_ok("median", &input, &r, |v| vec![*v])?;
            let r = guard("conformal_quantile", &input, || stats::conformal_quantile(xv.view(), q))?;
            if let Ok(v) = r {
                prop_assert!(v.is_finite() || v == f64::INFINITY, "conformal_quantile {v} on {input:?}");
            }
            let r = guard("Ecdf::new", &input, || Ecdf::new(xv.view()))?;
            if let Ok(e) = &r {
                let f = guard("Ecdf::eval", &input, || e.eval(q))?;
                let fine = if q.is_nan() { f.is_nan() } else { (0.0..=1.0).contains(&f) };
                prop_assert!(fine, "Ecdf::eval({}) = {} on {:?}", q, f, input);
                prop_assert!(e.sorted_sample().windows(2).all(|w| w[0] <= w[1]));
            }
            let r = guard("pearson", &input, || stats::pearson(xv.view(), yv.view()))?;
            finite_ok("pearson", &input, &r, |v| vec![*v])?;
            if let Ok(r) = r {
                prop_assert!((-1.0..=1.0).contains(&r));
            }
            let r = guard("spearman", &input, || stats::spearman(xv.view(), yv.view()))?;
            finite_ok("spearman", &input, &r, |v| vec![*v])?;
            let r = guard("ranks", &input, || stats::ranks(xv.view()))?;
            finite_ok("ranks", &input, &r, vec_nums)?;
            let r = guard("linear_fit", &input, || stats::linear_fit(xv.view(), yv.view()))?;
            finite_ok("linear_fit", &input, &r, |(a, b)| vec![*a, *b])?;
            let points: Vec<(f64, f64)> = x.iter().copied().zip(y.iter().copied()).collect();
            let r = guard("power_law_exponent", &input, || stats::power_law_exponent(&points))?;
            finite_ok("power_law_exponent", &input, &r, |v| vec![*v])?;
        }
        let r = guard("conformal_rank", &input, || stats::conformal_rank(n, q))?;
        if let Ok(rank) = r {
            prop_assert!(rank as f64 <= (n as f64 + 1.0) * (1.0 - q) + 1.0);
        }
        // Welford on finite data: a finite mean, a variance in [0, +∞].
        let (half_a, half_b) = fx.split_at(fx.len() / 2);
        let mut w: Welford = guard("Welford::from_iter", &input, || half_a.iter().copied().collect())?;
        let other: Welford = half_b.iter().copied().collect();
        guard("Welford::merge", &input, || w.merge(&other))?;
        let one_pass: Welford = fx.iter().copied().collect();
        for acc in [w, one_pass] {
            prop_assert_eq!(acc.count(), fx.len() as u64);
            if acc.count() > 0 {
                prop_assert!(acc.mean().is_finite(), "Welford mean {} on {:?}", acc.mean(), fx);
                prop_assert!(acc.population_variance() >= 0.0, "Welford variance on {:?}", fx);
            }
            if acc.count() > 1 {
                prop_assert!(acc.variance() >= 0.0 && acc.standard_error() >= 0.0);
            }
        }
        // mean / mean_axis: finite on finite data, a typed error otherwise.
        for v in [&x, &fx] {
            let a = Array1::from(v.clone());
            let r = guard("mean", &input, || stats::mean(a.view()))?;
            finite_ok("mean", &input, &r, |m| vec![*m])?;
            let m = Array2::from_shape_vec((1, v.len()), v.clone()).unwrap();
            for axis in [ndarray::Axis(0), ndarray::Axis(1), ndarray::Axis(2)] {
                let r = guard("mean_axis", &input, || stats::mean_axis(m.view(), axis))?;
                finite_ok("mean_axis", &input, &r, vec_nums)?;
            }
            prop_assert_eq!(stats::mean(a.view()).is_ok(), !v.is_empty() && v.iter().all(|v| v.is_finite()));
        }
        // ... and NaN propagates rather than panicking.
        let mut w = Welford::new();
        guard("Welford::extend", &input, || w.extend(x.iter().copied()))?;
        guard("Welford moments", &input, || (w.mean(), w.variance(), w.standard_error()))?;
    }

    #[test]
    fn check_and_special_entry_points_never_panic(
        x in hostile_vec(6),
        v in hostile_f64(),
        lo in hostile_f64(),
        dims in prop::collection::vec(prop_oneof![0usize..10, Just(usize::MAX), Just(1usize << 32), any::<usize>()], 0..4),
        len in prop_oneof![0usize..10, Just(usize::MAX), Just(1usize << 40)],
    ) {
        let input = (&x, v, lo, &dims, len);
        let a = Array1::from(x.clone());
        let _ = guard("check::finite", &input, || check::finite(&a, "x"))?;
        let _ = guard("check::non_empty", &input, || check::non_empty(&a, "x"))?;
        let _ = guard("check::data", &input, || check::data(&a, "x"))?;
        let _ = guard("check::square", &input, || check::square(&a, "x"))?;
        let _ = guard("check::len", &input, || check::len(a.len(), len, "x"))?;
        let _ = guard("check::open_interval", &input, || check::open_interval(v, lo, 1.0, "v", "(lo, 1)"))?;
        let _ = guard("check::closed_interval", &input, || check::closed_interval(v, lo, 1.0, "v", "[lo, 1]"))?;
        let _ = guard("check::positive", &input, || check::positive(v, "v"))?;
        // The scalar and slice checks accept exactly what their docs say.
        let r = guard("check::left_open_interval", &input, || check::left_open_interval(v, lo, 1.0, "v", "(lo, 1]"))?;
        prop_assert_eq!(r.is_ok(), v > lo && v <= 1.0);
        let r = guard("check::require", &input, || check::require(v > lo, "v", v, "v > lo"))?;
        prop_assert_eq!(r.is_ok(), v > lo);
        if let Err(e) = r {
            let named = matches!(e, Error::InvalidParameter { name: "v", expected: "v > lo", .. });
            prop_assert!(named, "require: {:?}", e);
        }
        let r = guard("check::non_negative", &input, || check::non_negative(v, "v"))?;
        prop_assert_eq!(r.is_ok(), v.is_finite() && v >= 0.0);
        let r = guard("check::finite_scalar", &input, || check::finite_scalar(v, "v"))?;
        prop_assert_eq!(r.is_ok(), v.is_finite());
        let r = guard("check::at_least", &input, || check::at_least(len, 5, "len", "at least 5"))?;
        prop_assert_eq!(r.is_ok(), len >= 5);
        let r = guard("check::finite_values", &input, || check::finite_values(&x, "x"))?;
        match r {
            Ok(()) => prop_assert!(x.iter().all(|v| v.is_finite())),
            Err(Error::NonFinite { index, .. }) => {
                prop_assert!(!x[index].is_finite() && x[..index].iter().all(|v| v.is_finite()));
            }
            Err(e) => prop_assert!(false, "finite_values: {:?}", e),
        }
        let r = guard("check::probability_vector", &input, || check::probability_vector(&a, "p"))?;
        if r.is_ok() {
            prop_assert!(x.iter().all(|p| (0.0..=1.0).contains(p)));
        }
        let r = guard("check::alloc_len", &input, || check::alloc_len(&dims, 8, "dims"))?;
        if let Ok(n) = r {
            prop_assert!(n.checked_mul(8).is_some_and(|b| b <= check::MAX_ALLOC_BYTES));
        }
        let r = guard("check::try_filled", &input, || check::try_filled(len, 0.0f64, "len"))?;
        prop_assert_eq!(r.is_ok(), len < 10, "try_filled({})", len);

        for (name, f) in [
            ("norm_pdf", special::norm_pdf as fn(f64) -> f64),
            ("norm_cdf", special::norm_cdf),
            ("norm_sf", special::norm_sf),
            ("log_norm_cdf", special::log_norm_cdf),
            ("log_norm_pdf", special::log_norm_pdf),
        ] {
            let y = guard(name, &input, || f(v))?;
            prop_assert_eq!(y.is_nan(), v.is_nan(), "{}({}) = {}", name, v, y);
        }
        if !v.is_nan() {
            prop_assert!((0.0..=0.4).contains(&special::norm_pdf(v)));
            prop_assert!((0.0..=1.0).contains(&special::norm_cdf(v)));
            prop_assert!(special::log_norm_cdf(v) <= 0.0);
            prop_assert!(special::log_norm_cdf(v) > f64::NEG_INFINITY || v < -1e154);
        }
        let p = guard("norm_ppf", &input, || special::norm_ppf(v))?;
        let q = guard("norm_isf", &input, || special::norm_isf(v))?;
        if (0.0..=1.0).contains(&v) {
            prop_assert!(!p.is_nan() && !q.is_nan());
            prop_assert!(p.is_finite() || v == 0.0 || v == 1.0, "norm_ppf({v}) = {p}");
        } else {
            prop_assert!(p.is_nan() && q.is_nan());
        }
    }

    #[test]
    fn data_entry_points_never_panic(
        bytes in prop::collection::vec(any::<u8>(), 0..64),
        lines in prop::collection::vec(
            prop_oneof![
                Just("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  empty.txt".to_string()),
                Just("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  ../outside.txt".to_string()),
                Just("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  missing.gz".to_string()),
                Just("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  bad.gz".to_string()),
                "[ -~]{0,80}",
                "\\PC{0,20}",
            ],
            0..5,
        ),
        name in prop::sample::select(vec!["empty.txt", "missing.gz", "bad.gz", "", "..", "../outside.txt", "SHA256SUMS", "nope"]),
    ) {
        let input = (&bytes, &lines, name);
        prop_assert_eq!(guard("sha256_hex", &input, || sha256_hex(&bytes))?.len(), 64);
        let dir = std::env::temp_dir().join(format!("mlcore-hostile-data-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("SHA256SUMS"), lines.join("\n")).unwrap();
        std::fs::write(dir.join("empty.txt"), b"").unwrap();
        std::fs::write(dir.join("bad.gz"), b"").unwrap();
        let r = guard("Dataset::open", &input, || Dataset::open(&dir))?;
        if let Ok(ds) = r {
            let _ = guard("Dataset::read", &input, || ds.read(name))?;
            let _ = guard("Dataset::read_to_string", &input, || ds.read_to_string(name))?;
            let _ = guard("Dataset::verify_all", &input, || ds.verify_all())?;
            let _ = guard("Dataset::files", &input, || ds.files().count())?;
            let _ = guard("Dataset::expected_sha256", &input, || ds.expected_sha256(name).map(str::len))?;
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}

// ---------------------------------------------------------------------------
// Regression tests of the defects found by the hostile run (issue 21), each
// against a value computed independently of the code under test.

/// Was −0 (the squared deviations overflowed to ∞). The data are 1e200 times
/// `[1, −1, 0]`, and Pearson's r is scale-invariant: by hand, with
/// `dx = [1, −1, 0]`, `dy = [−1, 0, 1]`, r = −1/√(2·2) = −0.5.
#[test]
fn pearson_of_huge_values_is_minus_one_half() {
    let y = array![1.0, 2.0, 3.0];
    for scale in [1e200, f64::MAX, 1.0, 1e-200, 5e-324] {
        // Tiny values underflowed to a zero variance before.
        let r = stats::pearson(array![scale, -scale, 0.0].view(), y.view()).unwrap();
        assert!(
            (r + 0.5).abs() <= 2.0 * f64::EPSILON,
            "scale {scale}: r = {r}"
        );
    }
    // Slope of y = 3x + 1 on x = 1e200·[−1, 0, 1] is 3e-200 (by hand).
    let (slope, intercept) = stats::linear_fit(
        array![-1e200, 0.0, 1e200].view(),
        array![-2.0, 1.0, 4.0].view(),
    )
    .unwrap();
    assert!(((slope - 3e-200) / 3e-200).abs() < 1e-15 && (intercept - 1.0).abs() < 1e-15);
    // y = x on ±1e308 has slope 1 (x − x̄ overflowed before).
    let x = array![f64::MAX, -f64::MAX, -f64::MAX];
    assert_eq!(stats::linear_fit(x.view(), x.view()).unwrap().0, 1.0);
    assert!(matches!(
        stats::linear_fit(array![-1e-300, 1e-300].view(), array![-1e300, 1e300].view()),
        Err(Error::Overflow { what: "slope" })
    ));
}

/// Retried about 2·10⁸ times before: ln(1e-4/1e-10)/ln(1 + 1e-7) ≈ 1.4·10⁸
/// factorisations. Now rejected up front; the default schedule on −I tries
/// 1e-10, 1e-9, …, 1e-4 (7 retries, by hand) and reports 1e-4.
#[test]
fn cholesky_jittered_bounds_its_retries() {
    let minus_eye = -Array2::<f64>::eye(3);
    let slow = Jitter {
        growth: 1.0 + 1e-7,
        ..Jitter::default()
    };
    let start = std::time::Instant::now();
    assert!(matches!(
        linalg::cholesky_jittered(minus_eye.view(), slow),
        Err(Error::InvalidParameter {
            name: "jitter.growth",
            ..
        })
    ));
    assert!(start.elapsed().as_secs_f64() < 0.5);
    assert_eq!(Jitter::default().attempts(), 7);
    assert_eq!(slow.attempts(), linalg::MAX_JITTER_ATTEMPTS + 1);
    // 1e-10 · 1.1^k ≤ 1e-4 for k ≤ ln(1e6)/ln(1.1) = 144.95: 145 retries, accepted.
    let ok = Jitter {
        growth: 1.1,
        ..Jitter::default()
    };
    assert_eq!(ok.attempts(), 145);
    match linalg::cholesky_jittered(minus_eye.view(), Jitter::default()) {
        Err(Error::NotPositiveDefinite { jitter_tried, .. }) => {
            assert!((jitter_tried - 1e-4).abs() < 1e-16)
        }
        other => panic!("expected NotPositiveDefinite, got {other:?}"),
    }
    // A schedule whose jitter overflows stops instead of factorising ∞.
    let wild = Jitter {
        initial: 1.0,
        max: 1e300,
        growth: 1e100,
    };
    let huge = Array2::from_diag(&array![-f64::MAX, -f64::MAX]);
    assert!(matches!(
        linalg::cholesky_jittered(huge.view(), wild),
        Err(Error::NotPositiveDefinite { .. })
    ));
}

/// Returned ±∞ before (1/5e-324 overflows). LAPACK's dtrtrs, hence SciPy,
/// return inf here too; mlcore calls a subnormal pivot singular.
#[test]
fn solve_triangular_rejects_subnormal_pivots_and_overflow() {
    let b = array![1.0, 1.0];
    for pivot in [5e-324, -5e-324, 1e-310, 0.0] {
        let t = array![[1.0, 0.0], [0.5, pivot]];
        assert!(matches!(
            linalg::solve_triangular(t.view(), b.view(), Triangle::Lower),
            Err(Error::Singular { what: "t" })
        ));
    }
    // The smallest normal pivot is accepted: x = 1/2.2250738585072014e-308 = 4.49423283715579e307.
    let t = array![[f64::MIN_POSITIVE]];
    let x = linalg::solve_triangular(t.view(), array![1.0].view(), Triangle::Lower).unwrap();
    assert!((x[0] - 4.49423283715579e307).abs() / 4.49423283715579e307 < 1e-15);
    // ... but a solution beyond f64::MAX is a typed error: 10/MIN_POSITIVE = 4.5e308.
    assert!(matches!(
        linalg::solve_triangular(t.view(), array![10.0].view(), Triangle::Lower),
        Err(Error::Overflow { what: "x" })
    ));
    assert!(matches!(
        linalg::solve_spd(array![[1e-300]].view(), array![1e10].view()),
        Err(Error::Overflow { .. })
    ));
}

/// Overflowed (`n + 1`) before. (n + 1)(1 − α) = 2⁶⁴ · 0.9 = 16602069666338596454.4
/// (exact, in u128), so the rank is 16602069666338596455, up to the spacing
/// of doubles there (2048).
#[test]
fn conformal_rank_accepts_usize_max() {
    let k = stats::conformal_rank(usize::MAX, 0.1).unwrap();
    let exact: u128 = (1u128 << 64) * 9 / 10 + 1;
    assert!((k as u128).abs_diff(exact) <= 2048, "{k} vs {exact}");
    // The rank saturates rather than wrapping when it exceeds usize::MAX.
    assert_eq!(
        stats::conformal_rank(usize::MAX, 1e-300).unwrap(),
        usize::MAX
    );
    // A large but exact case (the former 1e-9 relative tolerance gave
    // 899999999101 here): ⌈(10¹² + 1)·0.9⌉ = 900000000001.
    assert_eq!(
        stats::conformal_rank(1_000_000_000_000, 0.1).unwrap(),
        900_000_000_001
    );
    // Exact rational ranks ⌈(n + 1)(1000 − j)/1000⌉ for α = j/1000, n up to 10¹¹.
    for n in [1usize, 19, 99, 999, 123_456, 10_000_000, 99_999_999_999] {
        for j in [1u128, 5, 10, 50, 100, 123, 250, 500, 900, 999] {
            let alpha = j as f64 / 1000.0;
            let num = (n as u128 + 1) * (1000 - j);
            let exact = num.div_ceil(1000);
            assert_eq!(
                stats::conformal_rank(n, alpha).unwrap() as u128,
                exact,
                "n = {n}, alpha = {alpha}"
            );
        }
    }
}

/// NaN (0·∞) and ∞ before, from differences and sums of values near f64::MAX.
#[test]
fn quantile_median_and_welford_survive_extreme_values() {
    let x = array![-f64::MAX, f64::MAX];
    assert_eq!(stats::quantile(x.view(), 0.0).unwrap(), -f64::MAX);
    assert_eq!(stats::quantile(x.view(), 1.0).unwrap(), f64::MAX);
    assert_eq!(stats::quantile(x.view(), 0.5).unwrap(), 0.0);
    assert_eq!(stats::median(x.view()).unwrap(), 0.0);
    // (1e308 + 1.5e308)/2 = 1.25e308, by hand.
    assert_eq!(
        stats::median(array![1e308, 1.5e308].view()).unwrap(),
        1.25e308
    );
    // The mean of values whose sum overflows: the scaled sum, by hand.
    assert_eq!(
        stats::mean(array![f64::MAX, f64::MAX].view()).unwrap(),
        f64::MAX
    );
    assert_eq!(stats::mean(x.view()).unwrap(), 0.0);
    let m = stats::mean(array![f64::MAX, f64::MAX, -f64::MAX].view()).unwrap();
    assert!((m - f64::MAX / 3.0).abs() <= f64::MAX * 1e-15);
    let w: Welford = [1e308, -1e308].into_iter().collect();
    assert_eq!(w.mean(), 0.0);
    assert_eq!(w.variance(), f64::INFINITY); // 2e616 > f64::MAX
    let w: Welford = [f64::MAX, -f64::MAX, -f64::MAX].into_iter().collect();
    assert!((w.mean() + f64::MAX / 3.0).abs() <= f64::MAX * 1e-15);
    assert!(Ecdf::new(x.view()).unwrap().eval(f64::NAN).is_nan());
}

/// faer's SVD did not converge on 1e300 entries, QR and eigh returned ∞/NaN
/// near f64::MAX, and a subnormal matrix got singular values 0. The 2 × 2
/// symmetric matrix [[a, b], [b, a]] has singular values and eigenvalues a ± b.
#[test]
fn decompositions_of_extreme_matrices() {
    let m = array![[1e300, 2e299], [2e299, 1e300]];
    let s = linalg::svd(m.view()).unwrap().s;
    assert!((s[0] - 1.2e300).abs() / 1.2e300 < 1e-15 && (s[1] - 8e299).abs() / 8e299 < 1e-15);
    let e = linalg::eigh(m.view()).unwrap().values;
    assert!((e[0] - 8e299).abs() / 8e299 < 1e-15 && (e[1] - 1.2e300).abs() / 1.2e300 < 1e-15);
    let sub = array![[5e-320, 1e-320], [1e-320, 5e-320]];
    let s = linalg::svd(sub.view()).unwrap().s;
    assert!(
        (s[0] - 6e-320).abs() <= 1e-322 && (s[1] - 4e-320).abs() <= 1e-322,
        "{s}"
    );
    // ‖(MAX, MAX)‖ = √2·MAX overflows: R₁₁ and the top eigenvalue 2·MAX are not representable.
    let top = Array2::from_elem((2, 2), f64::MAX);
    assert!(matches!(
        linalg::qr(top.view()),
        Err(Error::Overflow { what: "r" })
    ));
    assert!(matches!(
        linalg::eigh(top.view()),
        Err(Error::Overflow { .. })
    ));
    assert!(matches!(
        linalg::svd(top.view()),
        Err(Error::Overflow { .. })
    ));
    // pinv of diag(1e300, 1e-300): diag(1e-300, 1e300) up to the rank cutoff, which drops 1e-300.
    let p = linalg::pinv(array![[1e300, 0.0], [0.0, 1e-300]].view()).unwrap();
    assert_eq!(p, array![[1e-300, 0.0], [0.0, 0.0]]);
    // lstsq on a subnormal system: x = b/a = 1e-10/5e-320 = 2e309 overflows; 1e-300/5e-320 = 2e19.
    let a = array![[5e-320]];
    assert!(matches!(
        linalg::lstsq(a.view(), array![1e-10].view()),
        Err(Error::Overflow { .. })
    ));
    let x = linalg::lstsq(a.view(), array![1e-300].view()).unwrap().x;
    assert!((x[0] - 2e19).abs() / 2e19 < 1e-3, "{x}"); // 5e-320 carries ~4 digits
}

/// Sizes whose product overflows, or absurd ones, are typed errors.
#[test]
fn huge_sizes_are_typed_errors() {
    let mut rng = seeded(1);
    assert!(matches!(
        sampling::try_standard_normal((usize::MAX, 2), &mut rng),
        Err(Error::TooLarge { what: "shape", .. })
    ));
    assert!(matches!(
        sampling::try_standard_normal(1usize << 40, &mut rng),
        Err(Error::TooLarge { .. })
    ));
    // The same stream as the infallible version.
    let (mut r1, mut r2) = (seeded(5), seeded(5));
    assert_eq!(
        sampling::try_standard_normal((3, 4), &mut r1).unwrap(),
        sampling::standard_normal((3, 4), &mut r2)
    );
    assert!(matches!(
        check::alloc_len(&[1 << 33, 1 << 33], 8, "x"),
        Err(Error::TooLarge { .. })
    ));
    assert_eq!(check::alloc_len(&[3, 4, 5], 8, "x").unwrap(), 60);
    // An empty shape whose other dimensions overflow is refused too (ndarray
    // panics on it), while a small empty shape is fine.
    assert!(matches!(
        check::alloc_len(&[0, usize::MAX, 0], 8, "x"),
        Err(Error::TooLarge { .. })
    ));
    assert_eq!(check::alloc_len(&[0, 5], 8, "x").unwrap(), 0);
    // A draw of N(μ, Σ) that would overflow is refused up front.
    assert!(matches!(
        MultivariateNormal::from_cholesky(array![f64::MAX].view(), array![[1e300]].view()),
        Err(Error::Overflow { .. })
    ));
}
