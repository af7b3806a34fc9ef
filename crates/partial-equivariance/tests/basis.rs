//! Property tests of the kernel bases, the decomposition and the numeric projection.

use ndarray::{Array1, Array2};
use partial_equivariance::basis::{
    HarmonicKernel, KernelBasis, KernelParams, RelaxedBasis, WignerEckartBasis,
};
use partial_equivariance::decompose::{kron, tensor_product};
use partial_equivariance::diagnostics::{equivariance_error, equivariance_spectrum, project};
use partial_equivariance::field::FieldType;
use partial_equivariance::fourier::{BandLimitedLikelihood, oversampled_resolution};
use partial_equivariance::group::{CompactGroup, Irrep, Planar, PlanarElement};
use proptest::prelude::*;
use proptest::test_runner::RngSeed;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::f64::consts::FRAC_PI_2;

fn config(cases: u32, seed: u64) -> ProptestConfig {
    ProptestConfig {
        rng_seed: RngSeed::Fixed(seed),
        ..ProptestConfig::with_cases(cases)
    }
}

fn max_abs(a: impl IntoIterator<Item = f64>) -> f64 {
    a.into_iter().fold(0.0, |m, v| m.max(v.abs()))
}

/// Field types with irreps of frequency ≤ 1 (plus sign where it exists).
fn fields(group: Planar) -> Vec<FieldType> {
    let mut out = vec![FieldType::trivial(group)];
    if group.has_flip() {
        out.push(FieldType::sign(group).unwrap());
    }
    let one = if group.has_flip() {
        Irrep::new(1, 1)
    } else {
        Irrep::new(0, 1)
    };
    if group.irrep_dim(one).is_ok() {
        out.push(FieldType::irrep(group, one).unwrap());
        out.push(FieldType::new(group, vec![Irrep::TRIVIAL, one]).unwrap());
    }
    out
}

const GROUPS: [Planar; 4] = [
    Planar::So2,
    Planar::O2,
    Planar::Cyclic(4),
    Planar::Dihedral(4),
];

/// ρ(g) Q = Q (⊕ψ)(g) with Q orthogonal, and the SO(2) closed form
/// ψ_a ⊗ ψ_b = ψ_{|a−b|} ⊕ ψ_{a+b} (two trivials when a = b).
#[test]
fn tensor_product_decomposition_is_exact() {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    for group in [
        Planar::So2,
        Planar::O2,
        Planar::Cyclic(5),
        Planar::Cyclic(6),
        Planar::Dihedral(6),
    ] {
        let irreps = group.irreps(3);
        for &a in &irreps {
            for &b in &irreps {
                let dec = tensor_product(&group, a, b).unwrap();
                let q = &dec.q;
                let dev = max_abs(q.t().dot(q) - Array2::<f64>::eye(q.nrows()));
                assert!(dev < 1e-12, "{group:?} {a} {b}: QᵀQ defect {dev}");
                for _ in 0..5 {
                    use rand::RngExt;
                    let g = {
                        let n = group.order_n();
                        let k: usize = rng.random_range(0..64);
                        let angle = match n {
                            Some(n) => 2.0 * std::f64::consts::PI * (k % n) as f64 / n as f64,
                            None => rng.random_range(0.0..6.3),
                        };
                        PlanarElement {
                            angle,
                            flip: group.has_flip() && rng.random_bool(0.5),
                        }
                    };
                    let rho = kron(
                        &group.irrep_matrix(a, &g).unwrap(),
                        &group.irrep_matrix(b, &g).unwrap(),
                    );
                    let mut bd = Array2::zeros(rho.dim());
                    for blk in &dec.blocks {
                        let m = group.irrep_matrix(blk.irrep, &g).unwrap();
                        bd.slice_mut(ndarray::s![
                            blk.offset..blk.offset + blk.dim,
                            blk.offset..blk.offset + blk.dim
                        ])
                        .assign(&m);
                    }
                    let err = max_abs(rho.dot(q) - q.dot(&bd));
                    assert!(err < 1e-12, "{group:?} {a}⊗{b}: {err}");
                }
                if group == Planar::So2 && a.m > 0 && b.m > 0 {
                    let ms: Vec<usize> = dec.blocks.iter().map(|b| b.irrep.m).collect();
                    let mut want = vec![a.m.abs_diff(b.m), a.m + b.m];
                    if a.m == b.m {
                        want = vec![0, 0, 2 * a.m];
                    }
                    assert_eq!(ms, want, "{a}⊗{b}");
                }
            }
        }
    }
}

/// The real regular representation of C_N / D_N holds each irrep ψ
/// d_ψ / dim End(ψ) times: the 2-d irreps of C_N (complex type) once, those
/// of D_N (real type) twice, every 1-d irrep once.
#[test]
fn regular_representation_multiplicities() {
    for group in [
        Planar::Cyclic(4),
        Planar::Cyclic(5),
        Planar::Dihedral(4),
        Planar::Dihedral(3),
    ] {
        let f = FieldType::regular(group, 0).unwrap();
        for p in group.irreps(8) {
            let count = f.irreps().iter().filter(|&&q| q == p).count();
            let d = group.irrep_dim(p).unwrap();
            let want = if group.has_flip() { d } else { 1 };
            assert_eq!(count, want, "{group:?} {p}");
        }
    }
}

/// Every Wigner–Eckart element is equivariant under the grid symmetries of
/// the group (90° rotations, and the flip) to 1e-10; the scalar→scalar
/// basis has one element per ring (isotropic kernels).
#[test]
fn wigner_eckart_elements_are_equivariant() {
    let params = KernelParams::new(5, 3);
    for group in GROUPS {
        let mut types = fields(group);
        if group.order_n().is_some() {
            types.push(FieldType::regular(group, 0).unwrap());
        }
        for fin in &types {
            for fout in &types {
                let we = WignerEckartBasis::new(fin, fout, &params).unwrap();
                if fin.irreps() == [Irrep::TRIVIAL] && fout.irreps() == [Irrep::TRIVIAL] {
                    assert_eq!(we.basis().len(), 3, "{group:?}");
                }
                for e in we.basis().elements().outer_iter() {
                    let mut syms = vec![
                        PlanarElement::rotation(FRAC_PI_2),
                        PlanarElement::rotation(3.0 * FRAC_PI_2),
                    ];
                    if group.has_flip() {
                        syms.push(PlanarElement::flipped(FRAC_PI_2));
                    }
                    for h in syms {
                        let err = equivariance_error(e, fin, fout, &h).unwrap();
                        assert!(err < 1e-10, "{group:?}: {err}");
                    }
                }
            }
        }
    }
}

/// Spec: for uniform θ the relaxed basis equals the Wigner–Eckart basis —
/// its trivial-ψ elements are the WE elements scaled by the ridge factor
/// N/(N + 1e-8) (to 1e-12), every other element is 0 (1e-12), and random
/// relaxed kernels have 90° equivariance error < 1e-10.
#[test]
fn uniform_theta_gives_wigner_eckart() {
    let params = KernelParams::new(5, 3);
    for group in GROUPS {
        let lik = BandLimitedLikelihood::uniform(
            group,
            2,
            4.min(group.max_frequency().unwrap_or(4)),
            oversampled_resolution(4),
        )
        .unwrap();
        let n = lik.grid().len() as f64;
        let scale = n / (n + 1e-8);
        let types = fields(group);
        for fin in &types {
            for fout in &types {
                let we = WignerEckartBasis::new(fin, fout, &params).unwrap();
                let rb = RelaxedBasis::new(fin, fout, &params, &lik).unwrap();
                let mut k = 0;
                for (label, el) in rb
                    .basis()
                    .labels()
                    .iter()
                    .zip(rb.basis().elements().outer_iter())
                {
                    if label.psi == Irrep::TRIVIAL {
                        let w = we.basis().elements().index_axis(ndarray::Axis(0), k);
                        assert!(max_abs((&el - &(&w * scale)).into_iter()) < 1e-12);
                        k += 1;
                    } else {
                        assert!(
                            max_abs(el.iter().copied()) < 1e-12,
                            "{group:?} {}",
                            label.psi
                        );
                    }
                }
                assert_eq!(k, we.basis().len());
                let mut rng = ChaCha8Rng::seed_from_u64(7);
                let w = Array1::from_shape_fn(rb.basis().len(), |_| {
                    rand_distr::Distribution::sample(&rand_distr::StandardNormal, &mut rng)
                });
                let kern = rb.basis().kernel(w.view()).unwrap();
                if we.basis().is_empty() {
                    // No equivariant kernel exists (e.g. scalar → sign for O(2)): the relaxed kernel is 0.
                    assert!(max_abs(kern.iter().copied()) < 1e-12);
                } else {
                    let err = equivariance_error(
                        kern.view(),
                        fin,
                        fout,
                        &PlanarElement::rotation(FRAC_PI_2),
                    )
                    .unwrap();
                    assert!(err < 1e-10, "{group:?}: {err}");
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(config(12, 0x000b_a515))]

    /// Spec: the Fourier-domain c_{jJ} = Q·blockdiag(λ̂) matches the numeric
    /// projection ∫ λ(h)(h⋆k) dh (256-angle quadrature, kernel evaluated at
    /// the rotated points) to 1e-6, for L ≤ 4.
    #[test]
    fn relaxed_basis_matches_numeric_projection_1e6(gi in 0usize..4, l in 0usize..5,
        raw in prop::collection::vec(-1.0f64..1.0, 1..20), seed in 0u64..1000) {
        let group = GROUPS[gi];
        let params = KernelParams::new(5, 2);
        let cap = group.max_frequency().unwrap_or(8);
        let l = l.min(cap);
        // T = B_j ⊗ ψ_o ⊗ ψ_i has frequency ≤ 2 + 1 + 1.
        let l_out = 4.min(cap).max(l);
        let k = group.feature_len(l);
        let theta = Array1::from_shape_fn(k, |i| raw[i % raw.len()]);
        let lik = BandLimitedLikelihood::new(group, theta.view(), l, l_out, oversampled_resolution(l_out)).unwrap();
        let types = fields(group);
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let fin = &types[types.len() - 1];
        let fout = &types[(seed as usize) % types.len()];
        let hk = HarmonicKernel::random(fin, fout, &params, &mut rng).unwrap();
        let rb = RelaxedBasis::new(fin, fout, &params, &lik).unwrap();
        let via_basis = rb.basis().kernel(rb.weights_for(&hk).unwrap().view()).unwrap();
        let numeric = project(&hk, &lik, 256).unwrap();
        let err = max_abs(&via_basis - &numeric);
        prop_assert!(err < 1e-6, "{group:?} L={l}: {err}");
    }
}

/// Spec: a logit with only frequencies ≡ 0 mod 4 on SO(2) gives an exactly
/// C_4-equivariant relaxed kernel (90° error < 1e-10), while frequency 1
/// does not (error > 1e-3).
#[test]
fn mod_n_logits_give_exact_cn_equivariance() {
    let group = Planar::So2;
    let params = KernelParams::new(7, 4);
    let l = 8;
    let fin = FieldType::new(group, vec![Irrep::TRIVIAL, Irrep::new(0, 1)]).unwrap();
    let fout = FieldType::new(group, vec![Irrep::new(0, 2), Irrep::TRIVIAL]).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let mut errs = Vec::new();
    for freqs in [vec![4usize, 8], vec![1]] {
        let mut theta = Array1::zeros(group.feature_len(l));
        for &m in &freqs {
            theta[2 * m - 1] = 1.1;
            theta[2 * m] = -0.6;
        }
        let lik = BandLimitedLikelihood::new(group, theta.view(), l, l, 96).unwrap();
        let rb = RelaxedBasis::new(&fin, &fout, &params, &lik).unwrap();
        let w = Array1::from_shape_fn(rb.basis().len(), |_| {
            rand_distr::Distribution::sample(&rand_distr::StandardNormal, &mut rng)
        });
        let kern = rb.basis().kernel(w.view()).unwrap();
        errs.push(
            equivariance_error(
                kern.view(),
                &fin,
                &fout,
                &PlanarElement::rotation(FRAC_PI_2),
            )
            .unwrap(),
        );
    }
    assert!(errs[0] < 1e-10, "mod-4 logits: {}", errs[0]);
    assert!(errs[1] > 1e-3, "frequency-1 logits: {}", errs[1]);
}

/// The equivariance spectrum of a Wigner–Eckart kernel is all trivial
/// (fraction > 1 − 1e-9); of an unconstrained random kernel it is not.
#[test]
fn spectrum_separates_equivariant_kernels() {
    let group = Planar::So2;
    let params = KernelParams::new(5, 2);
    let f = FieldType::new(group, vec![Irrep::TRIVIAL, Irrep::new(0, 1)]).unwrap();
    let we = WignerEckartBasis::new(&f, &f, &params).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let w = Array1::from_shape_fn(we.basis().len(), |_| {
        rand_distr::Distribution::sample(&rand_distr::StandardNormal, &mut rng)
    });
    let kern = we.basis().kernel(w.view()).unwrap();
    let sp = equivariance_spectrum(kern.view(), &f, &f, &params).unwrap();
    assert!(sp.invariant_fraction() > 1.0 - 1e-9, "{sp:?}");
    assert!(sp.residual < 1e-18);
    let full = KernelBasis::unconstrained(&f, &f, &params).unwrap();
    let w = Array1::from_shape_fn(full.len(), |_| {
        rand_distr::Distribution::sample(&rand_distr::StandardNormal, &mut rng)
    });
    let kern = full.kernel(w.view()).unwrap();
    let sp = equivariance_spectrum(kern.view(), &f, &f, &params).unwrap();
    assert!(sp.invariant_fraction() < 0.5, "{sp:?}");
}
