//! Lossless encoding: spec properties 3 and 7, NumPy's lstsq recovery, γ
//! undone, duplicates, compressed mode.

use ndarray::Array2;
use proptest::prelude::*;
use proptest::test_runner::RngSeed;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::StandardNormal;
use ssm_universality::reconstruct::{Mode, Reconstructor, relative_error, state_map};
use ssm_universality::rnn::DiagLinearRnn;
use ssm_universality::spectrum::Spectrum;
use ssm_universality::vandermonde::cond2;
use ssm_universality::{C64, Error};
use std::f64::consts::TAU;

fn ones(n: usize) -> Array2<C64> {
    Array2::from_elem((n, 1), C64::new(1.0, 0.0))
}

proptest! {
    #![proptest_config(ProptestConfig { rng_seed: RngSeed::Fixed(3), ..ProptestConfig::with_cases(48) })]

    /// Spec property 3: roots of unity (N = L) or a ring [0.9, 1] with N = 8L, L ≤ 24:
    /// the relative reconstruction error from x_L is ≤ 1e-10·κ₂(V), with and without γ.
    #[test]
    fn reconstruction_error_at_most_1e_10_kappa(l in 1usize..=24, roots: bool, gamma: bool, seed: u64) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let (spec, n) = if roots {
            (Spectrum::RootsOfUnity { r: 0.9 }, l)
        } else {
            (Spectrum::LruRing { r_min: 0.9, r_max: 1.0, max_phase: TAU }, 8 * l)
        };
        let lam = spec.sample(n, &mut rng).unwrap();
        let kappa = cond2(&lam, l).unwrap();
        let rnn = DiagLinearRnn::new(lam, ones(n), gamma).unwrap();
        let v = Array2::from_shape_simple_fn((l, 1), || rng.sample::<f64, _>(StandardNormal));
        let rec = Reconstructor::fit(&rnn, l, 1e-13, Mode::Exact).unwrap();
        let v_hat = rec.reconstruct(rnn.final_state(v.view()).unwrap().view()).unwrap();
        let e = relative_error(&v_hat, &v).unwrap();
        prop_assert!(e <= 1e-10 * kappa, "L = {l}, κ = {kappa}: error {e}");
    }

    /// Spec property 7: the N = L·M block construction is injective for M ≤ 4: full
    /// rank L·M, and random inputs are recovered to 1e-10·κ(A).
    #[test]
    fn block_construction_injective(l in 1usize..=12, m in 1usize..=4, seed: u64) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let group = Spectrum::RootsOfUnity { r: 0.95 }.sample(l, &mut rng).unwrap();
        let rnn = DiagLinearRnn::block_for_channels(&group, m, true).unwrap();
        prop_assert_eq!(rnn.n(), l * m);
        let rec = Reconstructor::fit(&rnn, l, 1e-13, Mode::Exact).unwrap();
        prop_assert_eq!(rec.rank(), l * m);
        let v = Array2::from_shape_simple_fn((l, m), || rng.sample::<f64, _>(StandardNormal));
        let v_hat = rec.reconstruct(rnn.final_state(v.view()).unwrap().view()).unwrap();
        prop_assert!(relative_error(&v_hat, &v).unwrap() <= 1e-10 * rec.condition_number());
    }
}

/// NumPy: x = Vv with v ~ N(0,1)³², λ_j = 0.95·e^{2πij/32}; `np.linalg.lstsq(V, x)` recovers v
/// to 1.6e-15 relative (seed 0 of default_rng); the spec's bound is 1e-12.
#[test]
fn lstsq_recovery_like_numpy() {
    let lam: Vec<C64> = (0..32)
        .map(|j| C64::from_polar(0.95, TAU * j as f64 / 32.0))
        .collect();
    let rnn = DiagLinearRnn::new(lam, ones(32), false).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(0);
    let v = Array2::from_shape_simple_fn((32, 1), || rng.sample::<f64, _>(StandardNormal));
    let rec = Reconstructor::fit(&rnn, 32, 1e-14, Mode::Exact).unwrap();
    let e = relative_error(
        &rec.reconstruct(rnn.final_state(v.view()).unwrap().view())
            .unwrap(),
        &v,
    )
    .unwrap();
    assert!(e <= 1e-12, "{e}");
}

/// The state map reproduces the recurrence (A_k v = [Re x_k; Im x_k]) for M = 3.
#[test]
fn state_map_matches_recurrence() {
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    let lam = Spectrum::LruRing {
        r_min: 0.3,
        r_max: 1.0,
        max_phase: TAU,
    }
    .sample(7, &mut rng)
    .unwrap();
    let b = Array2::from_shape_simple_fn((7, 3), || {
        C64::new(rng.sample(StandardNormal), rng.sample(StandardNormal))
    });
    let rnn = DiagLinearRnn::new(lam, b, true).unwrap();
    let v = Array2::from_shape_simple_fn((5, 3), || rng.sample::<f64, _>(StandardNormal));
    let a = state_map(&rnn, 5).unwrap();
    let flat = ndarray::Array1::from(v.iter().copied().collect::<Vec<_>>());
    let y = a.dot(&flat);
    let x = rnn.final_state(v.view()).unwrap();
    for i in 0..7 {
        assert!((y[i] - x[i].re).abs() < 1e-13 && (y[7 + i] - x[i].im).abs() < 1e-13);
    }
}

/// Duplicate eigenvalues with one channel and too few states: DuplicateEigenvalues;
/// too few states: Underdetermined; compressed mode reports the recoverable lags.
#[test]
fn duplicates_underdetermined_and_compressed_mode() {
    let lam = vec![C64::new(0.5, 0.0), C64::new(0.5, 0.0), C64::new(-0.3, 0.0)];
    let rnn = DiagLinearRnn::new(lam, ones(3), false).unwrap();
    assert_eq!(
        Reconstructor::fit(&rnn, 3, 1e-12, Mode::Exact).unwrap_err(),
        Error::DuplicateEigenvalues { i: 0, j: 1 }
    );
    let lam = Spectrum::RealUniform { lo: 0.0, hi: 0.5 }
        .sample(4, &mut ChaCha8Rng::seed_from_u64(1))
        .unwrap();
    let rnn = DiagLinearRnn::new(lam, ones(4), false).unwrap();
    assert!(matches!(
        Reconstructor::fit(&rnn, 6, 1e-12, Mode::Exact),
        Err(Error::Underdetermined { needed: 6, .. })
    ));
    // Compressed: decaying eigenvalues |λ| ≤ 0.5 remember recent lags only.
    let lam: Vec<C64> = (0..16)
        .map(|j| C64::from_polar(0.5, TAU * j as f64 / 16.0))
        .collect();
    let rnn = DiagLinearRnn::new(lam, ones(16), true).unwrap();
    let rec = Reconstructor::fit(&rnn, 64, 1e-8, Mode::Compressed).unwrap();
    let lags = rec.recoverable_lags(1e-6).unwrap();
    assert!(
        lags[0].recoverable && lags[5].recoverable,
        "recent lags recoverable"
    );
    assert!(!lags[63].recoverable, "lag 63 decays as 0.5^63");
    assert!(
        lags.iter().filter(|l| l.recoverable).count() <= 16,
        "at most N coordinates"
    );
}
