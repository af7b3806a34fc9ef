//! Spec property 1 (duality) and the KSVD helpers, against independent values.

use ndarray::{Array2, Axis, array, s};
use proptest::prelude::*;
use proptest::test_runner::RngSeed;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use svgp_ksvd::ksvd::{
    KernelSvd, attention_kernel, landmark_indices, landmark_weights, left_kernel_diag,
    primal_objective,
};

fn uniform(rows: usize, cols: usize, rng: &mut ChaCha8Rng) -> Array2<f64> {
    Array2::from_shape_fn((rows, cols), |_| rng.random_range(-1.0..1.0))
}

fn fro(a: &Array2<f64>) -> f64 {
    a.iter().map(|v| v * v).sum::<f64>().sqrt()
}

proptest! {
    #![proptest_config(ProptestConfig { rng_seed: RngSeed::Fixed(24), ..ProptestConfig::with_cases(256) })]

    /// Spec property 1: for N ∈ [4, 64], p ∈ [2, 32], s ≤ min(N, p), Φ ~ U(−1, 1):
    /// ‖KH_r − H_eΛ‖_F ≤ 1e-9‖K‖_F, ‖KᵀH_e − H_rΛ‖_F ≤ 1e-9‖K‖_F and
    /// |J| ≤ 1e-9·TrΛ at the SVD-derived primal solution; the singular values
    /// are the square roots of the eigenvalues of KᵀK (an independent eigensolver).
    #[test]
    fn duality_residual_below_1e9_and_j_zero(n in 4usize..=64, p in 2usize..=32, frac in 0.0f64..1.0, seed in any::<u64>()) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let s = 1 + ((n.min(p) - 1) as f64 * frac) as usize;
        let (pq, pk) = (uniform(n, p, &mut rng), uniform(n, p, &mut rng));
        let ksvd = KernelSvd::from_features(pq.view(), pk.view(), s).unwrap();
        let k = pq.dot(&pk.t());
        let lam = Array2::from_diag(&ksvd.lambda);
        let kf = fro(&k);
        prop_assert!(fro(&(k.dot(&ksvd.h_r) - ksvd.h_e.dot(&lam))) <= 1e-9 * kf);
        prop_assert!(fro(&(k.t().dot(&ksvd.h_e) - ksvd.h_r.dot(&lam))) <= 1e-9 * kf);
        let (w_e, w_r) = ksvd.primal_weights(pq.view(), pk.view()).unwrap();
        let j = primal_objective(w_e.view(), w_r.view(), ksvd.lambda.view(), pq.view(), pk.view()).unwrap();
        prop_assert!(j.abs() <= 1e-9 * ksvd.lambda.sum(), "J = {j}");
        // Independent: eigenvalues of KᵀK (ascending) are λ².
        let eig = mlcore::linalg::eigh(k.t().dot(&k).view()).unwrap();
        let top: Vec<f64> = eig.values.iter().rev().take(s).map(|v| v.max(0.0).sqrt()).collect();
        for (a, b) in top.iter().zip(&ksvd.lambda) {
            prop_assert!((a - b).abs() <= 1e-7 * ksvd.lambda[0], "{a} vs {b}");
        }
        // Orthonormal columns.
        let g = ksvd.h_e.t().dot(&ksvd.h_e) - Array2::<f64>::eye(s);
        prop_assert!(fro(&g) <= 1e-10 * s as f64);
    }

    /// The Nyström identity behind the e-branch: for new queries, the scores
    /// W_eᵀφ_q(x) of the primal weights equal H_rᵀk_x, and κ_e(x, x) − ‖e(x)‖²
    /// equals the squared-norm residual and is ≥ −1e-9·κ_e(x, x) (spec property 3).
    #[test]
    fn left_scores_match_primal_and_residual_nonnegative(n in 4usize..=40, p in 2usize..=12, seed in any::<u64>()) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let s = n.min(p);
        let (pq, pk) = (uniform(n, p, &mut rng), uniform(n, p, &mut rng));
        let ksvd = KernelSvd::from_features(pq.view(), pk.view(), s).unwrap();
        let (w_e, _) = ksvd.primal_weights(pq.view(), pk.view()).unwrap();
        let xq = uniform(5, p, &mut rng);
        let rows = xq.dot(&pk.t());
        let e = ksvd.left_scores(rows.view()).unwrap();
        let e_primal = xq.dot(&w_e);
        prop_assert!(fro(&(&e - &e_primal)) <= 1e-10 * (1.0 + fro(&e)));
        let diag = left_kernel_diag(rows.view()).unwrap();
        let res = ksvd.residual(rows.view()).unwrap();
        for i in 0..5 {
            let diff = diag[i] - e.row(i).dot(&e.row(i));
            prop_assert!(res[i] >= 0.0);
            prop_assert!(diff >= -1e-9 * diag[i]);
            // s = rank(K) = min(N, p): nothing of k_x is left outside span(H_r).
            prop_assert!(res[i] <= 1e-9 * diag[i], "residual {} of {}", res[i], diag[i]);
        }
    }
}

/// A closed-form case: K = diag(3, 2, 1) has singular values 3, 2, 1 and
/// H_e, H_r the (signed) unit vectors.
#[test]
fn diagonal_kernel_closed_form() {
    let k = Array2::from_diag(&array![2.0, 3.0, 1.0]);
    let ksvd = KernelSvd::from_kernel(k.view(), 2).unwrap();
    assert!((ksvd.lambda[0] - 3.0).abs() < 1e-14 && (ksvd.lambda[1] - 2.0).abs() < 1e-14);
    assert!((ksvd.h_e[[1, 0]].abs() - 1.0).abs() < 1e-14);
    assert!((ksvd.h_r[[0, 1]].abs() - 1.0).abs() < 1e-14);
    // Residual of row 2 (k = e₃) at s = 2: all of it, 1.
    let res = ksvd.residual(k.slice(s![2..3, ..])).unwrap();
    assert!((res[0] - 1.0).abs() < 1e-14);
}

/// The attention kernel normalises rows: entries are cosines, |K_ij| ≤ 1,
/// and a hand case gives cos 45°.
#[test]
fn attention_kernel_is_cosine() {
    let q = array![[3.0, 0.0], [1.0, 1.0]];
    let k = array![[0.0, 2.0], [5.0, 5.0]];
    let kk = attention_kernel(q.view(), k.view()).unwrap();
    let h = std::f64::consts::FRAC_1_SQRT_2;
    let expect = array![[0.0, h], [h, 1.0]];
    assert!(fro(&(kk - expect)) < 1e-15);
}

/// torch.linspace(0, 16, 16, dtype=int) on 17 tokens: 0..=14 then 16.
#[test]
fn landmarks_match_linspace() {
    let idx = landmark_indices(17, 16).unwrap();
    let mut expect: Vec<usize> = (0..15).collect();
    expect.push(16);
    assert_eq!(idx, expect);
    assert_eq!(
        landmark_indices(64, 10).unwrap(),
        vec![0, 7, 14, 21, 28, 35, 42, 49, 56, 63]
    );
    assert_eq!(landmark_indices(5, 1).unwrap(), vec![0]);
    // W = X̃ᵀW̃ selects those rows.
    let x = Array2::from_shape_fn((5, 2), |(i, j)| (i * 2 + j) as f64);
    let wt = array![[1.0], [1.0]];
    let w = landmark_weights(x.view(), wt.view()).unwrap();
    let sel = x.select(Axis(0), &[0, 4]);
    assert_eq!(w, sel.t().dot(&wt));
}
