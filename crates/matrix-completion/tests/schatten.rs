//! Spec property tests 1 (variational identity, plain and weighted) and 7
//! (effective rank), plus known values of the quasi-norm.

use matrix_completion::schatten::*;
use mlcore::linalg::{pinv, qr};
use mlcore::sampling::{seeded, standard_normal};
use ndarray::{Array1, Array2};
use proptest::prelude::*;
use rand::RngExt;

fn low_rank(m: usize, n: usize, r: usize, seed: u64) -> Array2<f64> {
    let mut rng = seeded(seed);
    let u: Array2<f64> = standard_normal((m, r), &mut rng);
    let v: Array2<f64> = standard_normal((r, n), &mut rng);
    u.dot(&v)
}

/// Σσ^{2/L} from an SVD.
fn target(z: &Array2<f64>, l: usize) -> f64 {
    schatten_pow(z.view(), 2.0 / l as f64).unwrap()
}

/// Inserts random invertible matrices between consecutive factors:
/// `A₁M₁, M₁⁻¹A₂M₂, …, M_{L−1}⁻¹A_L` (same product).
fn refactor(f: &[Array2<f64>], seed: u64) -> Vec<Array2<f64>> {
    let mut rng = seeded(seed);
    let mut out = f.to_vec();
    for t in 0..f.len() - 1 {
        let k = f[t].ncols();
        let m: Array2<f64> = standard_normal((k, k), &mut rng) * rng.random_range(0.2..2.0)
            + Array2::<f64>::eye(k) * rng.random_range(0.0..2.0);
        let mi = pinv(m.view()).unwrap();
        out[t] = out[t].dot(&m);
        out[t + 1] = mi.dot(&out[t + 1]);
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Spec test 1: min_{Z = A₁⋯A_L} (1/L)Σ‖A_l‖_F² = Σσ^{2/L}: the balanced
    /// factorisation attains it within 1e-9 relative, and no random invertible
    /// re-factorisation goes below Σσ^{2/L}(1 − 1e-9).
    #[test]
    fn variational_identity_balanced_attains_and_refactorisations_never_beat_sum_sigma_2_over_l(
        m in 1usize..=12, n in 1usize..=12, r in 1usize..=5, l in 2usize..=4, seed in 0u64..1_000_000
    ) {
        let z = low_rank(m, n, r.min(m).min(n), seed);
        let t = target(&z, l);
        let f = balanced_factors(z.view(), l).unwrap();
        let zz = product(&f).unwrap();
        prop_assert!((&zz - &z).iter().all(|d| d.abs() <= 1e-9 * (1.0 + z.iter().map(|v| v.abs()).fold(0.0, f64::max))));
        let v = variational_value(&f).unwrap();
        prop_assert!((v - t).abs() <= 1e-9 * t, "balanced {v} vs Σσ^(2/L) {t}");
        for rep in 0..20 {
            let g = refactor(&f, seed * 31 + rep);
            let vg = variational_value(&g).unwrap();
            prop_assert!(vg >= t * (1.0 - 1e-9), "re-factorisation {vg} < {t}");
        }
    }

    /// Spec test 1, weighted: min (1/L)(‖D_r^{1/2}A₁‖² + Σ‖A_l‖² + ‖A_L D_c^{1/2}‖²)
    /// = ‖D_r^{1/2} Z D_c^{1/2}‖_{S_{2/L}}^{2/L}, for random positive D_r, D_c.
    #[test]
    fn weighted_variational_identity_equals_schatten_of_reweighted_matrix(
        m in 1usize..=12, n in 1usize..=12, r in 1usize..=5, l in 2usize..=4, seed in 0u64..1_000_000
    ) {
        let z = low_rank(m, n, r.min(m).min(n), seed);
        let mut rng = seeded(seed ^ 0xabc);
        let dr: Array1<f64> = (0..m).map(|_| rng.random_range(0.1..5.0)).collect();
        let dc: Array1<f64> = (0..n).map(|_| rng.random_range(0.1..5.0)).collect();
        let w = Array2::from_shape_fn((m, n), |(i, j)| dr[i].sqrt() * z[[i, j]] * dc[j].sqrt());
        let t = target(&w, l);
        let f = weighted_balanced_factors(z.view(), dr.view(), dc.view(), l).unwrap();
        let zz = product(&f).unwrap();
        let scale = 1.0 + z.iter().map(|v| v.abs()).fold(0.0, f64::max);
        prop_assert!((&zz - &z).iter().all(|d| d.abs() <= 1e-9 * scale));
        let v = weighted_variational_value(&f, dr.view(), dc.view()).unwrap();
        prop_assert!((v - t).abs() <= 1e-9 * t, "weighted balanced {v} vs {t}");
        for rep in 0..20 {
            let g = refactor(&f, seed * 17 + rep);
            let vg = weighted_variational_value(&g, dr.view(), dc.view()).unwrap();
            prop_assert!(vg >= t * (1.0 - 1e-9), "weighted re-factorisation {vg} < {t}");
        }
    }

    /// Spec test 7: r_eff(Z, p) = r within 1e-9 for isotropic rank-r matrices,
    /// p ∈ {0.5, 2/3, 1}.
    #[test]
    fn effective_rank_of_isotropic_rank_r_matrix_is_r(
        m in 5usize..=14, n in 5usize..=14, r in 1usize..=5, c in 0.1f64..10.0, seed in 0u64..1_000_000
    ) {
        let mut rng = seeded(seed);
        let u = qr(standard_normal::<_, _>((m, r), &mut rng).view()).unwrap().q;
        let v = qr(standard_normal::<_, _>((n, r), &mut rng).view()).unwrap().q;
        let z = u.dot(&v.t()) * c;
        for p in [0.5, 2.0 / 3.0, 1.0] {
            let re = effective_rank(z.view(), p).unwrap();
            prop_assert!((re - r as f64).abs() <= 1e-9 * r as f64, "p = {p}: r_eff = {re}, r = {r}");
        }
    }
}

/// Known values: diag(3, 4) has nuclear norm 7, S_2 = 5, S_{1/2} = (√3 + 2)².
#[test]
fn quasi_norm_known_values_on_diagonal_matrix() {
    let z = ndarray::array![[3.0, 0.0], [0.0, 4.0]];
    assert!((quasi_norm(z.view(), 1.0).unwrap() - 7.0).abs() < 1e-12);
    assert!((quasi_norm(z.view(), 2.0).unwrap() - 5.0).abs() < 1e-12);
    let s_half = (3f64.sqrt() + 2.0).powi(2);
    assert!((quasi_norm(z.view(), 0.5).unwrap() - s_half).abs() < 1e-10);
}

/// Effective rank never exceeds the rank, and is strictly below it for
/// unequal singular values.
#[test]
fn effective_rank_is_at_most_the_rank() {
    let z = ndarray::array![[3.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
    for p in [0.5, 1.0, 1.5] {
        let re = effective_rank(z.view(), p).unwrap();
        assert!(re < 2.0 && re > 1.0, "p = {p}: {re}");
    }
}

/// At depth 1 the balanced factorisation is Z and the value is ‖Z‖_F² = Σσ².
#[test]
fn depth_one_is_frobenius() {
    let z = low_rank(6, 4, 2, 3);
    let f = balanced_factors(z.view(), 1).unwrap();
    let fro: f64 = z.iter().map(|v| v * v).sum();
    assert!((variational_value(&f).unwrap() - fro).abs() < 1e-10 * fro);
    assert!((target(&z, 1) - fro).abs() < 1e-9 * fro);
}
