//! Property tests of the decompositions: every factorisation reconstructs its
//! input to `1e-10 · ‖A‖` over random shapes (1×1, tall, wide, rank-deficient).

use mlcore::linalg::{self, Triangle};
use mlcore::sampling::{seeded, standard_normal};
use ndarray::{Array2, ArrayView2, s};
use proptest::prelude::*;

/// Relative tolerance of every reconstruction bound below.
const TOL: f64 = 1e-10;

fn fro(a: ArrayView2<'_, f64>) -> f64 {
    a.iter().map(|v| v * v).sum::<f64>().sqrt()
}

/// `‖X − Y‖_F ≤ TOL · scale`, with a floor for the all-zero matrix.
fn close(x: ArrayView2<'_, f64>, y: ArrayView2<'_, f64>, scale: f64) -> bool {
    x.shape() == y.shape() && fro((&x - &y).view()) <= TOL * scale.max(f64::MIN_POSITIVE)
}

fn identity_close(q: ArrayView2<'_, f64>) -> bool {
    let qtq = q.t().dot(&q);
    close(
        qtq.view(),
        Array2::eye(q.ncols()).view(),
        (q.ncols() as f64).sqrt(),
    )
}

/// A random `m × n` matrix; `kind` 1 makes it rank-deficient (rank ≤ r), 2 scales it to 1e6.
fn matrix(m: usize, n: usize, kind: u8, r: usize, seed: u64) -> Array2<f64> {
    let mut rng = seeded(seed);
    match kind {
        1 => {
            let r = r.clamp(1, m.min(n));
            standard_normal((m, r), &mut rng).dot(&standard_normal((r, n), &mut rng))
        }
        2 => standard_normal((m, n), &mut rng) * 1e6,
        _ => standard_normal((m, n), &mut rng),
    }
}

fn shape() -> impl Strategy<Value = (usize, usize, u8, usize, u64)> {
    (1usize..40, 1usize..40, 0u8..3, 1usize..6, any::<u64>())
}

fn spd(n: usize, seed: u64) -> Array2<f64> {
    let b = standard_normal((n, n), &mut seeded(seed));
    b.dot(&b.t()) + Array2::<f64>::eye(n) * 1e-3
}

/// The reconstruction check has teeth: a QR whose `Q` is off by 1e-7 in one entry fails it.
#[test]
fn broken_decomposition_is_caught() {
    let a = matrix(12, 7, 0, 0, 3);
    let f = linalg::qr(a.view()).unwrap();
    assert!(close(a.view(), f.q.dot(&f.r).view(), fro(a.view())));
    let mut q = f.q.clone();
    q[[4, 2]] += 1e-7;
    assert!(!close(a.view(), q.dot(&f.r).view(), fro(a.view())));
    let mut s = linalg::svd(a.view()).unwrap();
    s.s[6] *= 1.0 + 1e-8;
    let usv = (&s.u * &s.s).dot(&s.vt);
    assert!(!close(a.view(), usv.view(), fro(a.view())));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// ‖A − QR‖ ≤ 1e-10‖A‖, QᵀQ = I, R upper triangular.
    #[test]
    fn qr_reconstructs_within_1e_10((m, n, kind, r, seed) in shape()) {
        let a = matrix(m, n, kind, r, seed);
        let f = linalg::qr(a.view()).unwrap();
        let k = m.min(n);
        prop_assert_eq!(f.q.dim(), (m, k));
        prop_assert_eq!(f.r.dim(), (k, n));
        prop_assert!(close(a.view(), f.q.dot(&f.r).view(), fro(a.view())));
        prop_assert!(identity_close(f.q.view()));
        for ((i, j), v) in f.r.indexed_iter() {
            prop_assert!(j >= i || *v == 0.0);
        }
    }

    /// ‖A − UΣVᵀ‖ ≤ 1e-10‖A‖, orthonormal factors, σ non-negative and non-increasing.
    #[test]
    fn svd_reconstructs_within_1e_10((m, n, kind, r, seed) in shape()) {
        let a = matrix(m, n, kind, r, seed);
        let f = linalg::svd(a.view()).unwrap();
        let usv = (&f.u * &f.s).dot(&f.vt);
        prop_assert!(close(a.view(), usv.view(), fro(a.view())));
        prop_assert!(identity_close(f.u.view()));
        prop_assert!(identity_close(f.vt.t()));
        prop_assert!(f.s.iter().all(|&s| s >= 0.0));
        prop_assert!(f.s.windows(2).into_iter().all(|w| w[0] >= w[1]));
        if kind == 1 {
            prop_assert!(f.rank() <= r.clamp(1, m.min(n)));
        }
    }

    /// ‖A − LLᵀ‖ ≤ 1e-10‖A‖ for SPD A, L lower triangular with a positive diagonal;
    /// log det A = 2 Σ log Lᵢᵢ agrees with Σ log λᵢ.
    #[test]
    fn cholesky_reconstructs_within_1e_10(n in 1usize..40, seed in any::<u64>()) {
        let a = spd(n, seed);
        let l = linalg::cholesky(a.view()).unwrap();
        prop_assert!(close(a.view(), l.dot(&l.t()).view(), fro(a.view())));
        for ((i, j), v) in l.indexed_iter() {
            let ok = if j > i { *v == 0.0 } else if i == j { *v > 0.0 } else { true };
            prop_assert!(ok);
        }
        let logdet = linalg::logdet_spd(a.view()).unwrap();
        let from_eig: f64 = linalg::eigh(a.view()).unwrap().values.iter().map(|l| l.ln()).sum();
        prop_assert!((logdet - from_eig).abs() <= 1e-8 * (1.0 + logdet.abs()));
    }

    /// ‖AV − VΛ‖ ≤ 1e-10‖A‖ for symmetric A, VᵀV = I, λ ascending.
    #[test]
    fn eigh_satisfies_av_eq_v_lambda_within_1e_10(n in 1usize..40, kind in 0u8..3, r in 1usize..6, seed in any::<u64>()) {
        let b = matrix(n, n, kind, r, seed);
        let a = &b + &b.t();
        let f = linalg::eigh(a.view()).unwrap();
        let av = a.dot(&f.vectors);
        let vl = &f.vectors * &f.values;
        prop_assert!(close(av.view(), vl.view(), fro(a.view())));
        prop_assert!(identity_close(f.vectors.view()));
        prop_assert!(f.values.windows(2).into_iter().all(|w| w[0] <= w[1]));
    }

    /// Σᵢ τᵢ = rank A and 0 ≤ τᵢ ≤ 1 for the leverage scores.
    #[test]
    fn leverage_scores_sum_to_rank((m, n, kind, r, seed) in shape()) {
        let a = matrix(m, n, kind, r, seed);
        let tau = linalg::leverage_scores(a.view()).unwrap();
        let rank = linalg::svd(a.view()).unwrap().rank();
        let expected_rank = if kind == 1 { r.clamp(1, m.min(n)) } else { m.min(n) };
        prop_assert_eq!(rank, expected_rank);
        prop_assert!((tau.sum() - rank as f64).abs() <= 1e-9 * rank as f64);
        prop_assert!(tau.iter().all(|&t| (-1e-12..=1.0 + 1e-12).contains(&t)));
    }

    /// The least-squares solution satisfies the normal equations Aᵀ(Ax − b) = 0,
    /// and A⁺ satisfies the four Moore–Penrose conditions.
    #[test]
    fn lstsq_and_pinv_satisfy_their_defining_equations((m, n, kind, r, seed) in shape()) {
        let a = matrix(m, n, kind, r, seed);
        let b = standard_normal((m, 2), &mut seeded(seed ^ 1));
        let sol = linalg::lstsq(a.view(), b.view()).unwrap();
        let normal = a.t().dot(&(a.dot(&sol.x) - &b));
        let s1 = sol.singular_values[0];
        prop_assert!(fro(normal.view()) <= 1e-8 * s1 * s1 * fro(b.view()).max(1.0) * fro(sol.x.view()).max(1.0));
        let p = linalg::pinv(a.view()).unwrap();
        let scale = fro(a.view()) * fro(p.view()) * fro(a.view());
        prop_assert!(fro((a.dot(&p).dot(&a) - &a).view()) <= 1e-8 * scale);
        let ap = a.dot(&p);
        prop_assert!(fro((&ap - &ap.t()).view()) <= 1e-8 * fro(ap.view()));
        let pa = p.dot(&a);
        prop_assert!(fro((&pa - &pa.t()).view()) <= 1e-8 * fro(pa.view()));
    }

    /// Triangular and SPD solves leave residuals ‖Ax − b‖ ≤ 1e-10 ‖A‖‖x‖ (well-conditioned A).
    #[test]
    fn solves_have_small_residuals(n in 1usize..40, seed in any::<u64>()) {
        let a = spd(n, seed) + Array2::<f64>::eye(n) * n as f64;
        let b = standard_normal(n, &mut seeded(seed ^ 7));
        let x = linalg::solve_spd(a.view(), b.view()).unwrap();
        prop_assert!((a.dot(&x) - &b).iter().all(|r| r.abs() <= TOL * fro(a.view()) * x.iter().map(|v| v.abs()).sum::<f64>()));
        let l = linalg::cholesky(a.view()).unwrap();
        let y = linalg::solve_triangular(l.view(), b.view(), Triangle::Lower).unwrap();
        let z = linalg::solve_triangular(l.t(), y.view(), Triangle::Upper).unwrap();
        prop_assert!((&z - &x).iter().all(|d| d.abs() <= 1e-8 * (1.0 + x.iter().map(|v| v.abs()).fold(0.0, f64::max))));
        let bm = standard_normal((n, 3), &mut seeded(seed ^ 9));
        let xm = linalg::solve_spd(a.view(), bm.view()).unwrap();
        prop_assert!(close(a.dot(&xm).view(), bm.view(), fro(a.view()) * fro(xm.view())));
    }
}

/// Non-contiguous and transposed inputs give the same answers as contiguous ones.
#[test]
fn strided_and_transposed_views_agree() {
    let big = matrix(20, 30, 0, 0, 11);
    let strided = big.slice(s![..;2, ..;3]).to_owned();
    let f1 = linalg::svd(big.slice(s![..;2, ..;3])).unwrap();
    let f2 = linalg::svd(strided.view()).unwrap();
    assert_eq!(f1.s, f2.s);
    let ft = linalg::svd(strided.t()).unwrap();
    assert!((&ft.s - &f2.s).iter().all(|d| d.abs() < 1e-12));
}

/// A PSD, rank-deficient kernel matrix fails plain Cholesky and factorises
/// with the smallest jitter of the schedule that works, which is reported.
#[test]
fn cholesky_jitter_reports_the_jitter_used() {
    let x = matrix(30, 3, 0, 0, 5);
    let k = x.dot(&x.t()); // rank 3, 30 × 30
    assert!(matches!(
        linalg::cholesky(k.view()),
        Err(mlcore::Error::NotPositiveDefinite { .. })
    ));
    let f = linalg::cholesky_jittered(k.view(), linalg::Jitter::default()).unwrap();
    assert!(f.jitter > 0.0);
    let shifted = &k + &(Array2::<f64>::eye(30) * f.jitter);
    assert!(close(
        shifted.view(),
        f.l.dot(&f.l.t()).view(),
        fro(k.view())
    ));
    // An SPD matrix needs no jitter.
    let a = spd(10, 1);
    assert_eq!(
        linalg::cholesky_jittered(a.view(), linalg::Jitter::default())
            .unwrap()
            .jitter,
        0.0
    );
    // A negative definite matrix exhausts the schedule and says how far it went.
    let neg = Array2::<f64>::eye(4) * -1.0;
    match linalg::cholesky_jittered(neg.view(), linalg::Jitter::default()) {
        Err(mlcore::Error::NotPositiveDefinite { jitter_tried, .. }) => {
            assert!((jitter_tried - 1e-4).abs() < 1e-12)
        }
        other => panic!("expected NotPositiveDefinite, got {other:?}"),
    }
}

/// Known values (numpy.linalg on the same inputs).
#[test]
fn known_values() {
    let a = ndarray::array![
        [4.0, 12.0, -16.0],
        [12.0, 37.0, -43.0],
        [-16.0, -43.0, 98.0]
    ];
    let l = linalg::cholesky(a.view()).unwrap();
    let expected = ndarray::array![[2.0, 0.0, 0.0], [6.0, 1.0, 0.0], [-8.0, 5.0, 3.0]];
    assert!((&l - &expected).iter().all(|d| d.abs() < 1e-12));
    assert!((linalg::logdet_spd(a.view()).unwrap() - 36f64.ln()).abs() < 1e-12);
    let e = linalg::eigh(ndarray::array![[2.0, 1.0], [1.0, 2.0]].view()).unwrap();
    assert!((e.values[0] - 1.0).abs() < 1e-14 && (e.values[1] - 3.0).abs() < 1e-14);
    let s = linalg::svd(ndarray::array![[3.0, 0.0], [4.0, 5.0]].view()).unwrap();
    assert!((s.s[0] - 45f64.sqrt()).abs() < 1e-12 && (s.s[1] - 5f64.sqrt()).abs() < 1e-12);
    // Leverage of a column of ones: every row 1/m.
    let ones = Array2::<f64>::ones((5, 1));
    let tau = linalg::leverage_scores(ones.view()).unwrap();
    assert!(tau.iter().all(|t| (t - 0.2).abs() < 1e-14));
}
