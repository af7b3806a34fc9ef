//! Spec property 2 (`states()` equals the explicit sum Σ Λ^j B̃ v_{k−j}), the
//! final state, γ normalisation, the stable mode and the stack.

use ndarray::{Array1, Array2};
use proptest::prelude::*;
use proptest::test_runner::RngSeed;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::StandardNormal;
use ssm_universality::mlp::{Activation, Layer, PositionwiseMlp, Stack};
use ssm_universality::rnn::{DiagLinearRnn, real_features};
use ssm_universality::spectrum::Spectrum;
use ssm_universality::{C64, Error};
use std::f64::consts::TAU;

fn random_rnn(n: usize, m: usize, gamma: bool, rng: &mut ChaCha8Rng) -> DiagLinearRnn {
    let lam = Spectrum::LruRing {
        r_min: 0.5,
        r_max: 1.0,
        max_phase: TAU,
    }
    .sample(n, rng)
    .unwrap();
    let b = Array2::from_shape_simple_fn((n, m), || {
        C64::new(rng.sample(StandardNormal), rng.sample(StandardNormal))
    });
    DiagLinearRnn::new(lam, b, gamma).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { rng_seed: RngSeed::Fixed(2), ..ProptestConfig::with_cases(48) })]

    /// Spec property 2: x_k = Σ_{j=0}^{k−1} Λ^j B̃ v_{k−j} (powers by powi, an independent
    /// evaluation) to 1e-12 relative to Σ_j ‖Λ^j B̃ v_{k−j}‖, L ≤ 128, with and without γ.
    #[test]
    fn states_equal_explicit_sum(n in 1usize..40, m in 1usize..4, l in 1usize..=128, gamma: bool, seed: u64) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let rnn = random_rnn(n, m, gamma, &mut rng);
        let v = Array2::from_shape_simple_fn((l, m), || rng.sample::<f64, _>(StandardNormal));
        let x = rnn.states(v.view()).unwrap();
        let gam: Vec<f64> = rnn.lambda().iter().map(|z| if gamma { (1.0 - z.norm_sqr()).sqrt() } else { 1.0 }).collect();
        for k in 1..=l {
            for i in 0..n {
                let (mut s, mut scale) = (C64::new(0.0, 0.0), 0.0f64);
                for j in 0..k {
                    let mut bv = C64::new(0.0, 0.0);
                    for c in 0..m {
                        bv += rnn.b()[[i, c]] * gam[i] * v[[k - 1 - j, c]];
                    }
                    let term = rnn.lambda()[i].powi(j as i32) * bv;
                    s += term;
                    scale += term.norm();
                }
                prop_assert!((x[[k - 1, i]] - s).norm() <= 1e-12 * scale.max(f64::MIN_POSITIVE),
                    "k = {k}, i = {i}: {} vs {s}", x[[k - 1, i]]);
            }
        }
        let last = rnn.final_state(v.view()).unwrap();
        for i in 0..n {
            prop_assert!((last[i] - x[[l - 1, i]]).norm() <= 1e-13 * (1.0 + last[i].norm()));
        }
    }
}

/// A wide scan (N = 600: the parallel block path with the default feature) is bit-identical
/// to the plain recurrence evaluated state by state.
#[test]
fn large_scan_matches_sequential_recurrence() {
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    let rnn = random_rnn(600, 2, true, &mut rng);
    let v = Array2::from_shape_simple_fn((400, 2), || rng.sample::<f64, _>(StandardNormal));
    let x = rnn.states(v.view()).unwrap();
    let bt = rnn.b_effective();
    let mut h = Array1::from_elem(600, C64::new(0.0, 0.0));
    for k in 0..400 {
        for i in 0..600 {
            h[i] = rnn.lambda()[i] * h[i] + bt[[i, 0]] * v[[k, 0]] + bt[[i, 1]] * v[[k, 1]];
            assert_eq!(
                h[i],
                x[[k, i]],
                "bit-identical recurrence at k = {k}, i = {i}"
            );
        }
    }
}

/// Stable mode rejects |λ| > 1; the unchecked mode accepts it without γ and rejects it with γ.
#[test]
fn stable_mode() {
    let lam = vec![C64::new(0.5, 0.0), C64::new(0.0, 1.2)];
    let b = Array2::from_elem((2, 1), C64::new(1.0, 0.0));
    assert_eq!(
        DiagLinearRnn::new(lam.clone(), b.clone(), false).unwrap_err(),
        Error::UnstableEigenvalue { i: 1, modulus: 1.2 }
    );
    let r = DiagLinearRnn::new_unchecked_stability(lam.clone(), b.clone(), false).unwrap();
    let x = r.states(Array2::ones((3, 1)).view()).unwrap();
    // λ = 1.2i: x_3 = 1 + 1.2i + (1.2i)² = −0.44 + 1.2i.
    assert!((x[[2, 1]] - C64::new(-0.44, 1.2)).norm() < 1e-14);
    assert!(DiagLinearRnn::new_unchecked_stability(lam, b, true).is_err());
    // Overflow in unchecked mode is a typed error, not an infinity.
    let big = DiagLinearRnn::new_unchecked_stability(
        vec![C64::new(1e10, 0.0)],
        Array2::from_elem((1, 1), C64::new(1.0, 0.0)),
        false,
    )
    .unwrap();
    assert!(matches!(
        big.states(Array2::ones((40, 1)).view()),
        Err(Error::NonFinite { .. })
    ));
}

/// The stack recurrence → MLP → recurrence equals composing the pieces by hand.
#[test]
fn stack_composes_layers() {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let r1 = random_rnn(6, 2, true, &mut rng);
    let mlp = PositionwiseMlp::random(12, 10, 3, Activation::Tanh, &mut rng).unwrap();
    let r2 = random_rnn(5, 3, false, &mut rng);
    let stack = Stack::new(vec![
        Layer::Recurrence(r1.clone()),
        Layer::Mlp(mlp.clone()),
        Layer::Recurrence(r2.clone()),
    ])
    .unwrap();
    let v = Array2::from_shape_simple_fn((20, 2), || rng.sample::<f64, _>(StandardNormal));
    let y = stack.forward(v.view()).unwrap();
    let h = mlp
        .forward(real_features(r1.states(v.view()).unwrap().view()).view())
        .unwrap();
    let expect = real_features(r2.states(h.view()).unwrap().view());
    assert_eq!(y, expect);
    assert!(matches!(
        Stack::new(vec![Layer::Recurrence(r1), Layer::Recurrence(r2)]),
        Err(Error::DimensionMismatch { .. })
    ));
    // Causality: changing v_20 leaves outputs 1..19 unchanged.
    let mut v2 = v.clone();
    v2[[19, 0]] += 1.0;
    let y2 = stack.forward(v2.view()).unwrap();
    assert_eq!(
        y.slice(ndarray::s![..19, ..]),
        y2.slice(ndarray::s![..19, ..])
    );
}
