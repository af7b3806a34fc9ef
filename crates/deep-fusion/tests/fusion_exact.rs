//! Property tests 1 and the concrete 3→4→2 case of the spec: the fused
//! network equals the combination of its parts.

use candle_core::DType;
use deep_fusion::{
    Activation, Combine, CrossInit, FuseOptions, Mlp, exactness_certificate, fuse, fuse_many,
    self_fuse,
};
use ndarray::{Array1, Array2, array};
use proptest::prelude::*;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn acts() -> [Activation; 3] {
    [Activation::Relu, Activation::Tanh, Activation::Gelu]
}

/// Independent reference: a plain f64 forward pass on ndarray.
fn reference_forward(
    layers: &[(Array2<f64>, Array1<f64>)],
    act: Activation,
    x: &[f64],
) -> Vec<f64> {
    let mut h = Array1::from(x.to_vec());
    for (i, (w, b)) in layers.iter().enumerate() {
        h = w.dot(&h) + b;
        if i + 1 < layers.len() {
            h.mapv_inplace(|z| match act {
                Activation::Relu => z.max(0.0),
                Activation::Tanh => z.tanh(),
                Activation::Gelu => z * mlcore::special::norm_cdf(z),
            });
        }
    }
    h.to_vec()
}

fn probe(rng: &mut ChaCha8Rng, n: usize, d: usize) -> Array2<f64> {
    Array2::from_shape_fn((n, d), |_| rng.random_range(-2.0..2.0))
}

/// The spec's concrete case: f, g 3→4→2 tanh with seeded weights;
/// F(x) = ½(f(x) + g(x)) to 1e-15 at x = (0.1, −0.2, 0.3), against an
/// independent ndarray forward pass of f and g.
#[test]
fn three_four_two_tanh_exact_to_1e_15() {
    let mut rng = ChaCha8Rng::seed_from_u64(342);
    let f = Mlp::random(&[3, 4, 2], Activation::Tanh, DType::F64, &mut rng).unwrap();
    let g = Mlp::random(&[3, 4, 2], Activation::Tanh, DType::F64, &mut rng).unwrap();
    let fused = fuse(&f, &g, &FuseOptions::default(), &mut rng).unwrap();
    assert_eq!(fused.mlp.sizes(), vec![3, 8, 2]);
    let x = [0.1, -0.2, 0.3];
    let fx = reference_forward(&f.to_arrays().unwrap(), Activation::Tanh, &x);
    let gx = reference_forward(&g.to_arrays().unwrap(), Activation::Tanh, &x);
    let big = fused
        .mlp
        .forward_array(Array2::from_shape_vec((1, 3), x.to_vec()).unwrap().view())
        .unwrap();
    for o in 0..2 {
        let want = 0.5 * (fx[o] + gx[o]);
        assert!(
            (big[[0, o]] - want).abs() <= 1e-15,
            "{} vs {want}",
            big[[0, o]]
        );
    }
}

/// The fused weights have the block form of Eq. 5: row-stacked input layer,
/// block-diagonal hidden layers with zero cross blocks, halved output.
#[test]
fn fused_weights_have_the_eq5_block_form() {
    let w1f = array![[1.0, 2.0], [3.0, 4.0]];
    let w1g = array![[5.0, 6.0]];
    let w2f = array![[1.0, -1.0], [0.5, 0.25]];
    let w2g = array![[2.0], [3.0]];
    let w3f = array![[1.0, 2.0]];
    let w3g = array![[4.0, 8.0]];
    let f = Mlp::from_arrays(
        &[
            (w1f, array![0.1, 0.2]),
            (w2f, array![0.3, 0.4]),
            (w3f, array![1.0]),
        ],
        Activation::Relu,
        DType::F64,
    )
    .unwrap();
    let g = Mlp::from_arrays(
        &[
            (w1g, array![0.5]),
            (w2g, array![0.6, 0.7]),
            (w3g, array![3.0]),
        ],
        Activation::Relu,
        DType::F64,
    )
    .unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(0);
    let fused = fuse(&f, &g, &FuseOptions::default(), &mut rng).unwrap();
    let a = fused.mlp.to_arrays().unwrap();
    assert_eq!(a[0].0, array![[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]);
    assert_eq!(a[0].1, array![0.1, 0.2, 0.5]);
    assert_eq!(
        a[1].0,
        array![
            [1.0, -1.0, 0.0],
            [0.5, 0.25, 0.0],
            [0.0, 0.0, 2.0],
            [0.0, 0.0, 3.0]
        ]
    );
    assert_eq!(a[2].0, array![[0.5, 1.0, 2.0, 4.0]]);
    assert_eq!(a[2].1, array![2.0]);
    assert_eq!(fused.parts, vec![vec![2, 1], vec![2, 2]]);
}

/// A one-layer network (no hidden layer) fuses to the combined affine map.
#[test]
fn depth_one_fuses_to_the_combined_affine_map() {
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let f = Mlp::random(&[4, 3], Activation::Tanh, DType::F64, &mut rng).unwrap();
    let g = Mlp::random(&[4, 3], Activation::Tanh, DType::F64, &mut rng).unwrap();
    let opts = FuseOptions {
        combine: Combine::Weighted(0.3),
        ..Default::default()
    };
    let fused = fuse(&f, &g, &opts, &mut rng).unwrap();
    let p = probe(&mut rng, 7, 4);
    let c = exactness_certificate(&fused, &[&f, &g], p.view()).unwrap();
    assert!(c.max_rel <= 1e-12, "{c:?}");
}

/// Gaussian cross blocks break exactness by an amount that grows with σ
/// (a negative check: the certificate is not blind).
#[test]
fn gaussian_cross_blocks_are_not_exact() {
    let mut rng = ChaCha8Rng::seed_from_u64(6);
    let f = Mlp::random(&[5, 16, 16, 3], Activation::Tanh, DType::F64, &mut rng).unwrap();
    let g = Mlp::random(&[5, 16, 16, 3], Activation::Tanh, DType::F64, &mut rng).unwrap();
    let p = probe(&mut rng, 32, 5);
    let mut devs = Vec::new();
    for sigma in [1e-3, 1e-1] {
        let opts = FuseOptions {
            cross_init: CrossInit::Gaussian { sigma },
            ..Default::default()
        };
        let fused = fuse(&f, &g, &opts, &mut rng).unwrap();
        assert!(!fused.cross_zero);
        devs.push(
            exactness_certificate(&fused, &[&f, &g], p.view())
                .unwrap()
                .max_abs,
        );
    }
    assert!(devs[0] > 1e-8 && devs[1] > 10.0 * devs[0], "{devs:?}");
}

/// f32 networks fuse too; the certificate is then at f32 precision.
#[test]
fn f32_fusion_is_exact_at_f32_precision() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let f = Mlp::random(&[6, 20, 4], Activation::Gelu, DType::F32, &mut rng).unwrap();
    let fused = self_fuse(&f, &FuseOptions::default(), &mut rng).unwrap();
    let p = probe(&mut rng, 16, 6);
    let c = exactness_certificate(&fused, &[&f, &f], p.view()).unwrap();
    assert!(c.max_rel <= 1e-5, "{c:?}");
    assert_eq!(fused.mlp.dtype(), DType::F32);
}

/// Chains small → medium → large: fusing fused networks stays exact.
#[test]
fn fusion_chains_stay_exact() {
    let mut rng = ChaCha8Rng::seed_from_u64(8);
    let nets: Vec<Mlp> = (0..4)
        .map(|_| Mlp::random(&[3, 5, 5, 2], Activation::Tanh, DType::F64, &mut rng).unwrap())
        .collect();
    let o = FuseOptions::default();
    let m1 = fuse(&nets[0], &nets[1], &o, &mut rng).unwrap();
    let m2 = fuse(&nets[2], &nets[3], &o, &mut rng).unwrap();
    let large = fuse(&m1.mlp, &m2.mlp, &o, &mut rng).unwrap();
    assert_eq!(large.mlp.sizes(), vec![3, 20, 20, 2]);
    let all = fuse_many(&[&nets[0], &nets[1], &nets[2], &nets[3]], &o, &mut rng).unwrap();
    let p = probe(&mut rng, 10, 3);
    let c = exactness_certificate(&large, &[&m1.mlp, &m2.mlp], p.view()).unwrap();
    assert!(c.max_rel <= 1e-12);
    let c =
        exactness_certificate(&all, &[&nets[0], &nets[1], &nets[2], &nets[3]], p.view()).unwrap();
    assert!(c.max_rel <= 1e-12);
    // The chain equals the flat fusion of four: both are the average of four.
    let (a, b) = (
        large.mlp.forward_array(p.view()).unwrap(),
        all.mlp.forward_array(p.view()).unwrap(),
    );
    assert!((a - b).mapv(f64::abs).iter().all(|d| *d <= 1e-12));
}

fn arb_case() -> impl Strategy<Value = (usize, Vec<usize>, Vec<usize>, usize, u64, usize)> {
    (
        1usize..=5,
        1usize..=4,
        1usize..=4,
        0usize..3,
        any::<u64>(),
        0usize..3,
    )
        .prop_flat_map(|(hidden, d_in, d_out, act, seed, comb)| {
            (
                Just(hidden),
                proptest::collection::vec(1usize..=64, hidden),
                proptest::collection::vec(1usize..=64, hidden),
                Just(act),
                Just(seed ^ ((d_in as u64) << 8) ^ ((d_out as u64) << 16)),
                Just(comb),
            )
        })
}

proptest! {
    #![proptest_config(ProptestConfig {
        rng_seed: proptest::test_runner::RngSeed::Fixed(2024),
        ..ProptestConfig::with_cases(48)
    })]

    /// Property test 1 (spec): for depth 1..5 hidden layers, widths 1..64,
    /// ReLU / tanh / GELU and every `Combine`,
    /// |F(x) − Σcᵢfᵢ(x)| ≤ 1e-12·(1 + |f(x)| + |g(x)|) (f64).
    #[test]
    fn fuse_exact_1e_12_depth_1_to_5_widths_1_to_64(case in arb_case()) {
        let (hidden, wf, wg, act, seed, comb) = case;
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let (d_in, d_out) = (1 + (seed % 4) as usize, 1 + ((seed >> 3) % 4) as usize);
        let sizes = |w: &[usize]| {
            let mut s = vec![d_in];
            s.extend_from_slice(w);
            s.push(d_out);
            s
        };
        let act = acts()[act];
        let f = Mlp::random(&sizes(&wf), act, DType::F64, &mut rng).unwrap();
        let g = Mlp::random(&sizes(&wg), act, DType::F64, &mut rng).unwrap();
        prop_assert_eq!(f.depth(), hidden + 1);
        let combine = [Combine::Average, Combine::Sum, Combine::Weighted(0.25)][comb];
        let fused = fuse(&f, &g, &FuseOptions { combine, ..Default::default() }, &mut rng).unwrap();
        let p = probe(&mut rng, 9, d_in);
        let cert = exactness_certificate(&fused, &[&f, &g], p.view()).unwrap();
        prop_assert!(cert.max_rel <= 1e-12, "{:?}", cert);
        // And against the ndarray reference of f and g (independent of candle).
        let (fa, ga) = (f.to_arrays().unwrap(), g.to_arrays().unwrap());
        {
            let c = combine.weights(2).unwrap();
            let big = fused.mlp.forward_array(p.view()).unwrap();
            for (r, row) in p.outer_iter().enumerate() {
                let fx = reference_forward(&fa, act, row.as_slice().unwrap());
                let gx = reference_forward(&ga, act, row.as_slice().unwrap());
                for o in 0..d_out {
                    let want = c[0] * fx[o] + c[1] * gx[o];
                    let tol = 1e-12 * (1.0 + fx[o].abs() + gx[o].abs());
                    prop_assert!((big[[r, o]] - want).abs() <= tol);
                }
            }
        }
    }
}
