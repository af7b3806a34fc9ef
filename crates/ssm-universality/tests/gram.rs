//! Spec property 6: concentration of V^H V / N around E[V^H V]/N = diag(E|λ|^{2j}).
//!
//! Entries `(V^H V/N)_{jl} = (1/N) Σᵢ conj(λᵢ)^j λᵢ^l` are means of N iid terms of
//! modulus ≤ 1. For the ring [0.9, 1] with phases uniform in 2π, the real and
//! imaginary parts of each term have variance ≤ ½ and lie within 2 of their mean.
//! Bernstein: P(|part − E| ≥ t) ≤ 2 exp(−N t² / (2(½ + 2t/3))). A union bound over
//! the 16² entries × 2 parts at failure 1e-6 gives t* solving
//! N t² = E(1 + 4t/3), E = ln(1024 / 1e-6); the modulus bound is √2·t* (≈ 6.6/√N
//! at N = 20 000). The spec's Hoeffding-based 6/√N has failure probability near
//! 0.1 (issue 31): it is asserted on the pinned seeds only.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use ssm_universality::spectrum::Spectrum;
use ssm_universality::vandermonde::vandermonde;
use std::f64::consts::TAU;

fn bernstein_bound(n: f64) -> f64 {
    let e = (1024.0f64 / 1e-6).ln();
    let a = 4.0 * e / 3.0;
    let t = (a + (a * a + 4.0 * n * e).sqrt()) / (2.0 * n);
    2f64.sqrt() * t
}

/// E|λ|^{2j} for |λ|² ~ U[0.81, 1] (independent closed form).
fn moment(j: usize) -> f64 {
    (1.0 - 0.81f64.powi(j as i32 + 1)) / ((j as f64 + 1.0) * 0.19)
}

#[test]
fn gram_concentrates_within_bernstein_bound() {
    let n = 20_000usize;
    let spec = Spectrum::LruRing {
        r_min: 0.9,
        r_max: 1.0,
        max_phase: TAU,
    };
    let bound = bernstein_bound(n as f64);
    assert!(bound < 6.7 / (n as f64).sqrt());
    for seed in [1u64, 2, 3] {
        let lam = spec
            .sample(n, &mut ChaCha8Rng::seed_from_u64(seed))
            .unwrap();
        let v = vandermonde(&lam, 16).unwrap();
        let g = v.t().mapv(|z| z.conj()).dot(&v) / ssm_universality::C64::new(n as f64, 0.0);
        let mut worst = 0.0f64;
        for j in 0..16 {
            for l in 0..16 {
                let expect = if j == l { moment(j) } else { 0.0 };
                worst = worst.max((g[[j, l]] - expect).norm());
            }
        }
        assert!(
            worst <= bound,
            "seed {seed}: max deviation {worst} > Bernstein {bound}"
        );
        // The spec's 6/√N, on these pinned seeds.
        assert!(worst <= 6.0 / (n as f64).sqrt(), "seed {seed}: {worst}");
    }
}

/// gram_expectation equals the independent closed form for the ring and for real U[lo, hi].
#[test]
fn gram_expectation_closed_forms() {
    let g = Spectrum::LruRing {
        r_min: 0.9,
        r_max: 1.0,
        max_phase: TAU,
    }
    .gram_expectation(16)
    .unwrap();
    for (j, gj) in g.iter().enumerate() {
        assert!((gj - moment(j)).abs() < 1e-13);
    }
    // Real U[-0.5, 1]: E λ^{2j} = (1^{2j+1} − (−0.5)^{2j+1}) / ((2j+1)·1.5).
    let g = Spectrum::RealUniform { lo: -0.5, hi: 1.0 }
        .gram_expectation(8)
        .unwrap();
    for (j, gj) in g.iter().enumerate() {
        let p = 2 * j as i32 + 1;
        let e = (1.0 - (-0.5f64).powi(p)) / (f64::from(p) * 1.5);
        assert!((gj - e).abs() < 1e-14);
    }
    // Phase-restricted ring: off-diagonal E[e^{iθ}] = (e^{iφ} − 1)/(iφ) ≠ 0.
    let phi = std::f64::consts::PI / 10.0;
    let gm = Spectrum::LruRing {
        r_min: 1.0,
        r_max: 1.0,
        max_phase: phi,
    }
    .gram_expectation_matrix(2)
    .unwrap();
    let e =
        (ssm_universality::C64::from_polar(1.0, phi) - 1.0) / ssm_universality::C64::new(0.0, phi);
    assert!((gm[[0, 1]] - e).norm() < 1e-14);
}

/// The LRU (ν, θ) parameterisation round-trips and γ = √(1 − |λ|²).
#[test]
fn lru_parameterisation() {
    let spec = Spectrum::LruRing {
        r_min: 0.5,
        r_max: 0.99,
        max_phase: TAU,
    };
    let p = spec
        .sample_lru(100, &mut ChaCha8Rng::seed_from_u64(3))
        .unwrap();
    let lam = p.lambda();
    for ((l, g), th) in lam.iter().zip(p.gamma()).zip(&p.theta) {
        assert!(l.norm() >= 0.5 - 1e-12 && l.norm() <= 0.99 + 1e-12);
        assert!((g - (1.0 - l.norm_sqr()).sqrt()).abs() < 1e-12);
        assert!(*th >= 0.0 && *th < TAU);
    }
    let q = ssm_universality::spectrum::LruParams::from_lambda(&lam).unwrap();
    for (a, b) in q.lambda().iter().zip(&lam) {
        assert!((a - b).norm() < 1e-12);
    }
}
