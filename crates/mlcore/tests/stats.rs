//! Statistics: moments, quantiles, the conformal quantile's coverage, ECDF, correlations.

use mlcore::sampling::seeded;
use mlcore::stats::{self, Ecdf, Welford};
use ndarray::{Array1, array};
use proptest::prelude::*;
use rand::RngExt;

/// Known values computed with numpy 2 / scipy on the same inputs.
#[test]
fn known_values_match_numpy_and_scipy() {
    let x = array![1.0, 2.0, 3.0, 4.0, 5.0];
    let y = array![5.0, 6.0, 7.0, 8.0, 7.0];
    assert!((stats::pearson(x.view(), y.view()).unwrap() - 0.8320502943378436).abs() < 1e-14);
    assert!((stats::spearman(x.view(), y.view()).unwrap() - 0.8207826816681233).abs() < 1e-14);
    let x2 = array![2.5, -1.0, 3.3, 0.0, 7.1, 3.3, 4.0];
    let y2 = array![1.0, 0.5, 2.0, -3.0, 4.0, 2.5, 2.0];
    assert!((stats::pearson(x2.view(), y2.view()).unwrap() - 0.8119961828309973).abs() < 1e-14);
    assert!((stats::spearman(x2.view(), y2.view()).unwrap() - 0.8818181818181818).abs() < 1e-14);
    assert!((stats::quantile(x2.view(), 0.37).unwrap() - 2.676).abs() < 1e-12);
    assert!((stats::quantile(x2.view(), 0.9).unwrap() - 5.24).abs() < 1e-12);
    assert_eq!(
        stats::ranks(array![10.0, 20.0, 20.0, 30.0].view()).unwrap(),
        array![1.0, 2.5, 2.5, 4.0]
    );
}

/// The conformal rank: n = 19, α = 0.1 takes the 18th smallest; n = 8, α = 0.1
/// needs rank 9 > 8, so the threshold is +∞.
#[test]
fn conformal_quantile_known_ranks() {
    let scores: Array1<f64> = (1..=19).map(f64::from).collect();
    assert_eq!(stats::conformal_quantile(scores.view(), 0.1).unwrap(), 18.0);
    let few: Array1<f64> = (1..=8).map(f64::from).collect();
    assert_eq!(
        stats::conformal_quantile(few.view(), 0.1).unwrap(),
        f64::INFINITY
    );
    assert_eq!(stats::conformal_quantile(few.view(), 0.5).unwrap(), 5.0); // ⌈9·0.5⌉ = 5
}

/// Split-conformal validity: with exchangeable scores, a fresh score falls at
/// or below the threshold with probability ≥ 1 − α. 100 000 trials of n = 20
/// uniform calibration scores and one test score at α = 0.1; the exact
/// coverage is ⌈21·0.9⌉/21 = 0.9048, 5 standard errors above 0.9.
#[test]
fn conformal_quantile_covers_at_least_one_minus_alpha() {
    let (n, alpha, trials) = (20, 0.1, 100_000);
    let mut rng = seeded(31);
    let mut covered = 0u32;
    for _ in 0..trials {
        let cal: Array1<f64> = (0..n).map(|_| rng.random::<f64>()).collect();
        let q = stats::conformal_quantile(cal.view(), alpha).unwrap();
        covered += u32::from(rng.random::<f64>() <= q);
    }
    let coverage = f64::from(covered) / f64::from(trials);
    let exact = 19.0 / 21.0;
    let se = (exact * (1.0 - exact) / f64::from(trials)).sqrt();
    assert!(coverage >= 1.0 - alpha, "coverage {coverage}");
    assert!(
        (coverage - exact).abs() < 6.0 * se,
        "coverage {coverage}, exact {exact}"
    );
}

proptest! {
    /// The rank k = ⌈(n+1)(1−α)⌉ is the smallest with k/(n+1) ≥ 1 − α: the
    /// threshold is the least conservative one with the guarantee.
    #[test]
    fn conformal_rank_is_the_smallest_valid_one(n in 1usize..400, alpha in 0.001f64..0.999) {
        let scores: Array1<f64> = (1..=n).map(|i| i as f64).collect();
        let q = stats::conformal_quantile(scores.view(), alpha).unwrap();
        let level = 1.0 - alpha;
        if q.is_infinite() {
            prop_assert!((n as f64) / (n as f64 + 1.0) < level);
        } else {
            let k = q as usize;
            prop_assert!(k as f64 / (n as f64 + 1.0) >= level - 1e-12);
            prop_assert!((k as f64 - 1.0) / (n as f64 + 1.0) < level);
        }
    }

    /// Welford agrees with the two-pass formulas, and merging two halves equals one pass.
    #[test]
    fn welford_matches_two_pass(x in prop::collection::vec(-1e6f64..1e6, 2..200), split in 0usize..200) {
        let w: Welford = x.iter().copied().collect();
        let n = x.len() as f64;
        let mean = x.iter().sum::<f64>() / n;
        let var = x.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0);
        prop_assert!((w.mean() - mean).abs() <= 1e-9 * (1.0 + mean.abs()));
        prop_assert!((w.variance() - var).abs() <= 1e-9 * (1.0 + var));
        let split = split.min(x.len());
        let mut a: Welford = x[..split].iter().copied().collect();
        let b: Welford = x[split..].iter().copied().collect();
        a.merge(&b);
        prop_assert_eq!(a.count(), w.count());
        prop_assert!((a.mean() - mean).abs() <= 1e-9 * (1.0 + mean.abs()));
        prop_assert!((a.variance() - var).abs() <= 1e-9 * (1.0 + var));
    }

    /// Pairwise summation is exact whenever every partial sum is representable:
    /// multiples of 2⁻²⁰ below 2²⁰ in magnitude, fewer than 2¹² of them, so
    /// that every partial sum is a multiple of 2⁻²⁰ below 2³² (53 bits). The
    /// reference is the integer sum of the numerators. Lengths cross the
    /// sequential (< 8), blocked (≤ 128) and recursive (> 128) paths.
    #[test]
    fn pairwise_sum_is_exact_on_representable_partial_sums(
        k in prop::collection::vec(-(1i64 << 40)..(1i64 << 40), 0..1000),
        start in 0usize..3,
    ) {
        let x: Vec<f64> = k.iter().map(|&k| k as f64 / (1u64 << 20) as f64).collect();
        let start = start.min(x.len());
        let exact: i64 = k[start..].iter().sum();
        prop_assert_eq!(stats::pairwise_sum(&x[start..]), exact as f64 / (1u64 << 20) as f64);
        if x.len() > start {
            let m = stats::mean(Array1::from(x[start..].to_vec()).view()).unwrap();
            let want = exact as f64 / (1u64 << 20) as f64 / (x.len() - start) as f64;
            prop_assert!((m - want).abs() <= 1e-15 * want.abs(), "{} vs {}", m, want);
        }
    }

    /// `mean_axis` is `mean` of every column (Axis(0)) and of every row (Axis(1)),
    /// on a column-major (non-contiguous rows) matrix too.
    #[test]
    fn mean_axis_is_the_mean_of_each_lane(
        r in 1usize..40, c in 1usize..40, seed in any::<u64>(), fortran in any::<bool>(),
    ) {
        let mut rng = seeded(seed);
        let a = ndarray::Array2::from_shape_fn((r, c), |_| rng.random_range(-1e3..1e3));
        let a = if fortran { a.reversed_axes().as_standard_layout().reversed_axes().to_owned() } else { a };
        let cols = stats::mean_axis(a.view(), ndarray::Axis(0)).unwrap();
        let rows = stats::mean_axis(a.view(), ndarray::Axis(1)).unwrap();
        prop_assert_eq!(cols.len(), c);
        prop_assert_eq!(rows.len(), r);
        for j in 0..c {
            prop_assert_eq!(cols[j], stats::mean(a.column(j)).unwrap());
        }
        for i in 0..r {
            prop_assert_eq!(rows[i], stats::mean(a.row(i)).unwrap());
        }
    }

    /// Quantiles are monotone in q, hit the extremes at 0 and 1, and the ECDF
    /// at the type-7 q-quantile counts at least the ⌊(n−1)q⌋ + 1 order
    /// statistics it interpolates from.
    #[test]
    fn quantile_and_ecdf_are_consistent(x in prop::collection::vec(-100f64..100.0, 1..100), q1 in 0f64..=1.0, q2 in 0f64..=1.0) {
        let a = Array1::from(x.clone());
        let (lo, hi) = if q1 <= q2 { (q1, q2) } else { (q2, q1) };
        prop_assert!(stats::quantile(a.view(), lo).unwrap() <= stats::quantile(a.view(), hi).unwrap());
        let min = x.iter().copied().fold(f64::INFINITY, f64::min);
        let max = x.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        prop_assert_eq!(stats::quantile(a.view(), 0.0).unwrap(), min);
        prop_assert_eq!(stats::quantile(a.view(), 1.0).unwrap(), max);
        let ecdf = Ecdf::new(a.view()).unwrap();
        let below = ((x.len() - 1) as f64 * hi).floor() + 1.0;
        prop_assert!(ecdf.eval(stats::quantile(a.view(), hi).unwrap()) >= below / x.len() as f64);
        prop_assert_eq!(ecdf.eval(max), 1.0);
        prop_assert_eq!(ecdf.eval(min - 1.0), 0.0);
    }

    /// Correlations lie in [−1, 1], are symmetric, and Spearman is invariant
    /// under strictly increasing transforms.
    #[test]
    fn correlations_are_bounded_and_rank_invariant(x in prop::collection::vec(-10f64..10.0, 3..60), seed in any::<u64>()) {
        let mut rng = seeded(seed);
        let a = Array1::from(x);
        let b: Array1<f64> = a.mapv(|v| v + rng.random::<f64>() * 5.0);
        prop_assume!(a.iter().any(|&v| v != a[0]) && b.iter().any(|&v| v != b[0]));
        let r = stats::pearson(a.view(), b.view()).unwrap();
        prop_assert!((-1.0..=1.0).contains(&r));
        prop_assert!((r - stats::pearson(b.view(), a.view()).unwrap()).abs() < 1e-12);
        let rho = stats::spearman(a.view(), b.view()).unwrap();
        let rho_exp = stats::spearman(a.mapv(f64::exp).view(), b.view()).unwrap();
        prop_assert!((rho - rho_exp).abs() < 1e-12);
    }
}

/// The median is the middle order statistic (odd n) or the mean of the two
/// middle ones (even n), and equals the type-7 quantile at 0.5.
#[test]
fn median_matches_the_half_quantile() {
    use mlcore::stats::{median, quantile};
    let odd = ndarray::array![5.0, 1.0, 3.0];
    let even = ndarray::array![4.0, 1.0, 3.0, 10.0];
    assert_eq!(median(odd.view()).unwrap(), 3.0);
    assert_eq!(median(even.view()).unwrap(), 3.5);
    assert_eq!(
        median(even.view()).unwrap(),
        quantile(even.view(), 0.5).unwrap()
    );
    let empty = ndarray::Array1::<f64>::zeros(0);
    assert!(median(empty.view()).is_err());
}

#[test]
fn linear_fit_recovers_an_exact_line_and_matches_numpy() {
    let x = array![0.0, 1.0, 2.0, 3.0];
    let (b, a) = stats::linear_fit(x.view(), x.mapv(|v| 2.5 * v - 1.0).view()).unwrap();
    assert!((b - 2.5).abs() < 1e-15 && (a + 1.0).abs() < 1e-15);
    // numpy.polyfit([1, 2, 4, 7], [3, 1, 4, 1], 1) = [-1/6, 17/6]
    let (b, a) = stats::linear_fit(
        array![1.0, 2.0, 4.0, 7.0].view(),
        array![3.0, 1.0, 4.0, 1.0].view(),
    )
    .unwrap();
    assert!((b + 1.0 / 6.0).abs() < 1e-15);
    assert!((a - 17.0 / 6.0).abs() < 1e-14);
    assert!(stats::linear_fit(array![1.0, 1.0].view(), array![1.0, 2.0].view()).is_err());
    assert!(stats::linear_fit(array![1.0, 2.0].view(), array![1.0].view()).is_err());
}

#[test]
fn power_law_exponent_reads_growth_rates() {
    let pts: Vec<(f64, f64)> = [0.1, 0.05, 0.02, 0.01]
        .iter()
        .map(|&e: &f64| (e, 3.0 * e.powf(-2.0)))
        .collect();
    assert!((stats::power_law_exponent(&pts).unwrap() + 2.0).abs() < 1e-12);
    let sqrt: Vec<(f64, f64)> = (1..6)
        .map(|k| (f64::from(k) * 1000.0, f64::from(k * 1000).sqrt()))
        .collect();
    assert!((stats::power_law_exponent(&sqrt).unwrap() - 0.5).abs() < 1e-12);
    assert!(stats::power_law_exponent(&[(1.0, 1.0), (2.0, 0.0)]).is_err());
    assert!(stats::power_law_exponent(&[(1.0, 1.0)]).is_err());
}

/// Pairwise summation's error stays near `ε log n` where the sequential sum's
/// grows like `ε n`: `n` copies of 0.1 sum to `n · 0.1` (the double nearest
/// 0.1, times n, rounded once), to within 64 ε of the total.
#[test]
fn pairwise_sum_error_grows_slowly() {
    for n in [10usize, 1000, 1 << 20, 3_000_001] {
        let x = vec![0.1; n];
        let exact = 0.1 * n as f64; // one rounding of the exact product
        let err = (stats::pairwise_sum(&x) - exact).abs();
        assert!(err <= 64.0 * f64::EPSILON * exact, "n = {n}: error {err}");
    }
    // The sequential sum of 2²⁰ copies is off by ~1e-6 relative: the contrast is real.
    let seq = vec![0.1; 1 << 20].iter().fold(0.0, |a, v| a + v);
    assert!((seq - 0.1 * (1u64 << 20) as f64).abs() > 1e4 * f64::EPSILON * 1e5);
    // numpy: np.mean([1, 2, 3, 4.5]) = 2.625; the empty and NaN cases are typed errors.
    assert_eq!(
        stats::mean(array![1.0, 2.0, 3.0, 4.5].view()).unwrap(),
        2.625
    );
    assert!(matches!(
        stats::mean(Array1::<f64>::zeros(0).view()),
        Err(mlcore::Error::Empty { .. })
    ));
    assert!(matches!(
        stats::mean(array![1.0, f64::NAN].view()),
        Err(mlcore::Error::NonFinite { index: 1, .. })
    ));
    assert!(matches!(
        stats::mean_axis(
            ndarray::Array2::<f64>::zeros((0, 3)).view(),
            ndarray::Axis(0)
        ),
        Err(mlcore::Error::Empty { .. })
    ));
}

/// Welford's standard deviations and sum of squared deviations against a
/// hand computation: x = [2, 4, 4, 4, 5, 5, 7, 9] has mean 5, Σ(x − x̄)² = 32.
#[test]
fn welford_std_devs_by_hand() {
    let w: Welford = [2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]
        .into_iter()
        .collect();
    assert_eq!(w.sum_squared_deviations(), 32.0);
    assert_eq!(w.population_std_dev(), 2.0);
    assert!((w.std_dev() - (32.0f64 / 7.0).sqrt()).abs() < 1e-15);
    let c: Welford = [3.25; 5].into_iter().collect();
    assert_eq!((c.mean(), c.sum_squared_deviations()), (3.25, 0.0));
}
