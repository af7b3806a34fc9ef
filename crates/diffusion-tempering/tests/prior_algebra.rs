//! Spec property 1: IWP algebra — `A(h)A(h') = A(h+h')`,
//! `Q(h+h') = A(h')Q(h)A(h')ᵀ + Q(h')`, `Q` symmetric PSD, and the Nordsieck
//! factorisation `A = T Ā T⁻¹`, `Q = T Q̄ Tᵀ`.

use diffusion_tempering::prior::Iwp;
use ndarray::Array2;
use proptest::prelude::*;

fn max_abs(a: &Array2<f64>) -> f64 {
    a.iter().fold(0.0f64, |m, v| m.max(v.abs()))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// `A(h)A(h') = A(h+h')` to 1e-12 (relative to the largest entry) and
    /// `Q(h+h') = A(h')Q(h)A(h')ᵀ + Q(h')` to 1e-10 relative, q ∈ 1..=5,
    /// h, h' ∈ [1e-3, 1].
    #[test]
    fn iwp_semigroup_within_1e12_and_noise_within_1e10(q in 1usize..=5, h in 1e-3f64..1.0, h2 in 1e-3f64..1.0) {
        let iwp = Iwp::new(q).unwrap();
        let (a1, q1) = iwp.transition(h).unwrap();
        let (a2, q2) = iwp.transition(h2).unwrap();
        let (a12, q12) = iwp.transition(h + h2).unwrap();
        let prod = a1.dot(&a2);
        let err = max_abs(&(&prod - &a12)) / max_abs(&a12);
        prop_assert!(err < 1e-12, "A err {err}");
        let comp = a2.dot(&q1).dot(&a2.t()) + &q2;
        for i in 0..=q {
            for j in 0..=q {
                let rel = (comp[[i, j]] - q12[[i, j]]).abs() / q12[[i, j]].abs();
                prop_assert!(rel < 1e-10, "Q[{i},{j}] rel err {rel}");
            }
        }
    }

    /// `Q(h)` is symmetric and positive semi-definite (smallest eigenvalue of
    /// the preconditioned `T⁻¹QT⁻ᵀ` ≥ −1e-12 of its largest).
    #[test]
    fn iwp_noise_symmetric_psd(q in 1usize..=5, h in 1e-3f64..1.0) {
        let iwp = Iwp::new(q).unwrap();
        let (_, qm) = iwp.transition(h).unwrap();
        let asym = max_abs(&(&qm - &qm.t())) / max_abs(&qm);
        prop_assert!(asym < 1e-15, "asymmetry {asym}");
        let t = iwp.preconditioner(h);
        let mut qb = qm.clone();
        for i in 0..=q { for j in 0..=q { qb[[i, j]] /= t[i] * t[j]; } }
        let e = mlcore::linalg::eigh(qb.view()).unwrap();
        let lo = e.values.iter().cloned().fold(f64::INFINITY, f64::min);
        let hi = e.values.iter().cloned().fold(0.0f64, f64::max);
        prop_assert!(lo >= -1e-12 * hi, "min eig {lo}");
    }

    /// Nordsieck factorisation: `A(h) = T Ā T⁻¹` and `Q(h) = T R̄ᵀR̄ Tᵀ`.
    #[test]
    fn nordsieck_factorisation_exact(q in 1usize..=5, h in 1e-3f64..1.0) {
        let iwp = Iwp::new(q).unwrap();
        let (a, qm) = iwp.transition(h).unwrap();
        let t = iwp.preconditioner(h);
        for i in 0..=q {
            for j in 0..=q {
                let ab = t[i] * iwp.a_bar(i, j) / t[j];
                prop_assert!((ab - a[[i, j]]).abs() <= 1e-12 * a[[i, j]].abs().max(1.0));
                let qb: f64 = (0..=q).map(|k| iwp.r_bar(k, i) * iwp.r_bar(k, j)).sum::<f64>() * t[i] * t[j];
                prop_assert!((qb - qm[[i, j]]).abs() <= 1e-10 * qm[[i, j]].abs());
            }
        }
    }
}

#[test]
fn invalid_orders_are_typed_errors() {
    use diffusion_tempering::Error;
    assert_eq!(Iwp::new(0), Err(Error::InvalidOrder { q: 0, max: 10 }));
    assert_eq!(Iwp::new(11), Err(Error::InvalidOrder { q: 11, max: 10 }));
    assert!(Iwp::new(3).unwrap().transition(-1.0).is_err());
}
