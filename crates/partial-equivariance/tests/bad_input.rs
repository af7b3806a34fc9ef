//! Hostile inputs at every public entry point: typed errors, never a panic.

use ndarray::{Array1, Array3};
use partial_equivariance::Error;
use partial_equivariance::basis::{
    HarmonicKernel, KernelBasis, KernelParams, RelaxedBasis, WignerEckartBasis,
};
use partial_equivariance::decompose::{decompose, tensor_product};
use partial_equivariance::diagnostics::{equivariance_error, equivariance_spectrum, project};
use partial_equivariance::error::band_limit;
use partial_equivariance::field::FieldType;
use partial_equivariance::fit::{FitConfig, fit, von_mises_mixture};
use partial_equivariance::fourier::BandLimitedLikelihood;
use partial_equivariance::group::{CompactGroup, Irrep, Planar, PlanarElement};
use proptest::prelude::*;
use proptest::test_runner::RngSeed;
use rand::SeedableRng;

fn hostile() -> impl Strategy<Value = f64> {
    prop_oneof![
        Just(f64::NAN),
        Just(f64::INFINITY),
        Just(f64::NEG_INFINITY),
        Just(1e308),
        Just(-1e308),
        Just(0.0),
        -10.0f64..10.0,
    ]
}

fn group_of(i: usize, n: usize) -> Planar {
    match i % 4 {
        0 => Planar::So2,
        1 => Planar::O2,
        2 => Planar::Cyclic(n),
        _ => Planar::Dihedral(n),
    }
}

#[test]
fn typed_errors_named_by_the_issue() {
    assert_eq!(band_limit(-1), Err(Error::NegativeBandLimit { value: -1 }));
    assert_eq!(band_limit(3), Ok(3));
    let so2 = Planar::So2;
    let t = Array1::zeros(so2.feature_len(2));
    assert!(matches!(
        BandLimitedLikelihood::new(so2, t.view(), 2, 2, 4),
        Err(Error::BandLimitTooHigh { l: 2, grid: 4 })
    ));
    assert!(matches!(
        BandLimitedLikelihood::new(so2, t.view(), 2, 1, 64),
        Err(Error::BandLimitOrder { .. })
    ));
    let mut bad = t.clone();
    bad[1] = f64::NAN;
    assert!(matches!(
        BandLimitedLikelihood::new(so2, bad.view(), 2, 2, 64),
        Err(Error::NonFinite { .. })
    ));
    let p = BandLimitedLikelihood::new(so2, t.view(), 2, 2, 64).unwrap();
    let q = BandLimitedLikelihood::uniform(Planar::O2, 2, 2, 64).unwrap();
    let _ = (&p, &q);
    let q2 = BandLimitedLikelihood::uniform(Planar::Cyclic(4), 2, 2, 0).unwrap();
    let pc = BandLimitedLikelihood::uniform(Planar::Cyclic(5), 2, 2, 0).unwrap();
    assert!(matches!(pc.kl(&q2), Err(Error::GroupMismatch { .. })));
    let params = KernelParams::new(4, 2);
    let f = FieldType::trivial(so2);
    assert!(matches!(
        WignerEckartBasis::new(&f, &f, &params),
        Err(Error::EvenKernelSize { size: 4 })
    ));
    assert!(matches!(
        FieldType::new(so2, vec![]),
        Err(Error::ZeroFields { .. })
    ));
    let g = FieldType::trivial(Planar::O2);
    assert!(matches!(
        WignerEckartBasis::new(&f, &g, &KernelParams::new(3, 1)),
        Err(Error::GroupMismatch { .. })
    ));
    let lik_o2 = BandLimitedLikelihood::uniform(Planar::O2, 1, 1, 16).unwrap();
    assert!(matches!(
        RelaxedBasis::new(&f, &f, &KernelParams::new(3, 1), &lik_o2),
        Err(Error::GroupMismatch { .. })
    ));
    assert!(matches!(
        fit(so2, &[], &FitConfig::default()),
        Err(Error::Empty { .. })
    ));
    let obs = [PlanarElement::rotation(0.3)];
    let neg = FitConfig {
        prior_precision: -1.0,
        ..FitConfig::default()
    };
    assert!(matches!(
        fit(so2, &obs, &neg),
        Err(Error::NegativeWeight { .. })
    ));
    assert!(matches!(
        FieldType::sign(so2),
        Err(Error::InvalidIrrep { .. })
    ));
    let k = Array3::zeros((1, 1, 9));
    assert!(matches!(
        equivariance_error(k.view(), &f, &f, &PlanarElement::rotation(0.3)),
        Err(Error::NotAGridSymmetry { .. })
    ));
    let quarter = PlanarElement::rotation(std::f64::consts::FRAC_PI_2);
    assert!(matches!(
        equivariance_error(
            k.view(),
            &FieldType::trivial(Planar::Cyclic(3)),
            &FieldType::trivial(Planar::Cyclic(3)),
            &quarter
        ),
        Err(Error::InvalidElement { .. })
    ));
}

proptest! {
    #![proptest_config(ProptestConfig { rng_seed: RngSeed::Fixed(0xbad_0028), ..ProptestConfig::with_cases(24) })]

    #[test]
    fn hostile_inputs_never_panic(
        gi in 0usize..4, n in 0usize..9, l in 0usize..12, l_out in 0usize..12, res in 0usize..24,
        vals in prop::collection::vec(hostile(), 0..24), size in 0usize..6, maxf in 0usize..6,
        sigma in hostile(), j in 0u8..3, m in 0usize..6, flip in any::<bool>(), seed in 0u64..100,
    ) {
        let group = match Planar::cyclic(n.max(1)) { Ok(_) => group_of(gi, n.max(1)), Err(_) => Planar::So2 };
        let _ = Planar::cyclic(n);
        let _ = Planar::dihedral(n);
        let theta = Array1::from(vals.clone());
        let _ = BandLimitedLikelihood::new(group, theta.view(), l, l_out, res);
        let lik = BandLimitedLikelihood::uniform(group, l.min(3), l_out.min(3).max(l.min(3)), res);
        let psi = Irrep::new(j, m);
        let _ = group.irrep_dim(psi);
        let g = PlanarElement { angle: vals.first().copied().unwrap_or(0.3), flip };
        let _ = group.irrep_matrix(psi, &g);
        let _ = group.features(&g, l);
        let _ = group.fourier_block(psi, &vals);
        let _ = group.haar_grid(res);
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let _ = group.near_identity(5, sigma, &mut rng);
        let _ = tensor_product(&group, psi, Irrep::new(0, l % 3));
        let _ = decompose(&group, n, |_| Ok(ndarray::Array2::<f64>::eye(n.max(1))), 1);
        if let Ok(lik) = &lik {
            let _ = lik.density(&g);
            let _ = lik.logit(&g);
            let _ = lik.band_limited_density(&g);
            let _ = lik.fourier(psi);
            let _ = lik.kl(lik);
            let _ = lik.kl_grad(lik);
            let _ = lik.alignment_loss(&[g]);
            let _ = lik.alignment_grad(&[g]);
            let mut l2 = lik.clone();
            let _ = l2.set_theta(theta.view());
        }
        let params = KernelParams { size, max_frequency: maxf, sigma };
        let fin = FieldType::new(group, vec![Irrep::TRIVIAL]);
        let fout = FieldType::new(group, vec![psi]);
        let _ = FieldType::regular(group, m % 3);
        let _ = FieldType::with_change_of_basis(group, vec![Irrep::TRIVIAL], ndarray::Array2::from_elem((1, 1), vals.first().copied().unwrap_or(2.0)));
        if let (Ok(fin), Ok(fout)) = (&fin, &fout) {
            let _ = WignerEckartBasis::new(fin, fout, &params);
            let _ = KernelBasis::unconstrained(fin, fout, &params);
            let _ = HarmonicKernel::random(fin, fout, &params, &mut rng);
            #[allow(clippy::collapsible_if)]
            if let Ok(lik) = &lik {
                if let Ok(rb) = RelaxedBasis::new(fin, fout, &params, lik) {
                    let _ = rb.basis().kernel(theta.view());
                    let w = Array3::from_shape_fn((2, 2, vals.len()), |(_, _, k)| vals[k]);
                    let _ = rb.basis().expand_layer(w.view());
                    let _ = rb.basis().expand_layer(Array3::zeros((0, 1, rb.basis().len())).view());
                    if let Ok(hk) = HarmonicKernel::random(fin, fout, &params, &mut rng) {
                        let _ = rb.weights_for(&hk);
                        let _ = project(&hk, lik, res);
                        let _ = hk.evaluate([sigma, 0.0]);
                    }
                }
            }
            let k = Array3::from_shape_fn((fout.dim(), fin.dim(), size * size), |(_, _, p)| vals.get(p).copied().unwrap_or(1.0));
            let _ = equivariance_error(k.view(), fin, fout, &g);
            if size % 2 == 1 && size <= 5 {
                let _ = equivariance_spectrum(k.view(), fin, fout, &params);
            }
        }
        let obs: Vec<PlanarElement> = vals.iter().map(|&a| PlanarElement { angle: a, flip }).collect();
        let cfg = FitConfig { band_limit: l.min(4), band_limit_out: l_out.min(4), resolution: Some(res), prior_precision: sigma, max_iter: 20, tol: 1e-6 };
        let _ = fit(group, &obs, &cfg);
        let _ = von_mises_mixture(&vals, sigma, 10, &mut rng);
    }
}
