//! Property tests 2 and 3 of the spec: transformer fusion is exact to
//! 1e-10 with grouped norms or for self-fusion with a joint norm, and a
//! joint norm on different models is not exact (documented negative test).

use candle_core::{DType, Device, Tensor};
use deep_fusion::transformer::{
    NormKind, NormMode, TinyTransformer, TransformerConfig, fuse_transformer,
};
use deep_fusion::{Activation, Combine, Error};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn config(heads: usize, norm: NormKind) -> TransformerConfig {
    TransformerConfig {
        vocab: 11,
        heads,
        head_dim: 4,
        d_ff: 4 * heads * 4,
        layers: 2,
        max_len: 9,
        norm,
        activation: Activation::Gelu,
        eps: 1e-5,
    }
}

fn ids(rng: &mut ChaCha8Rng) -> Tensor {
    let v: Vec<u32> = (0..3 * 9).map(|_| rng.random_range(0..11u32)).collect();
    Tensor::from_vec(v, (3, 9), &Device::Cpu).unwrap()
}

fn dev(fused: &TinyTransformer, f: &TinyTransformer, g: &TinyTransformer, x: &Tensor) -> f64 {
    let want = ((f.forward(x).unwrap() + g.forward(x).unwrap()).unwrap() * 0.5).unwrap();
    (fused.forward(x).unwrap() - want)
        .unwrap()
        .abs()
        .unwrap()
        .max_all()
        .unwrap()
        .to_scalar::<f64>()
        .unwrap()
}

/// Property 3: Grouped fusion of different models (2 and 3 heads) is exact
/// to 1e-10, for LayerNorm and RMSNorm; so is a chain small → medium → large.
#[test]
fn grouped_transformer_fusion_exact_1e_10() {
    for norm in [NormKind::LayerNorm, NormKind::RmsNorm] {
        let mut rng = ChaCha8Rng::seed_from_u64(21);
        let f = TinyTransformer::random(&config(2, norm), DType::F64, &mut rng).unwrap();
        let g = TinyTransformer::random(&config(3, norm), DType::F64, &mut rng).unwrap();
        let x = ids(&mut rng);
        let fg = fuse_transformer(&f, &g, NormMode::Grouped, Combine::Average).unwrap();
        assert_eq!(fg.config().heads, 5);
        assert_eq!(fg.norm_groups(), &[8, 12]);
        let d = dev(&fg, &f, &g, &x);
        assert!(d <= 1e-10, "{norm:?}: {d}");
        let h = TinyTransformer::random(&config(2, norm), DType::F64, &mut rng).unwrap();
        let k = TinyTransformer::random(&config(1, norm), DType::F64, &mut rng).unwrap();
        let hk = fuse_transformer(&h, &k, NormMode::Grouped, Combine::Average).unwrap();
        let large = fuse_transformer(&fg, &hk, NormMode::Grouped, Combine::Average).unwrap();
        assert!(dev(&large, &fg, &hk, &x) <= 1e-10);
    }
}

/// Property 2: Joint norm is exact for self-fusion (LayerNorm and RMSNorm).
#[test]
fn joint_self_fusion_exact_1e_10() {
    for norm in [NormKind::LayerNorm, NormKind::RmsNorm] {
        let mut rng = ChaCha8Rng::seed_from_u64(22);
        let f = TinyTransformer::random(&config(2, norm), DType::F64, &mut rng).unwrap();
        let x = ids(&mut rng);
        let ff = fuse_transformer(&f, &f, NormMode::Joint, Combine::Average).unwrap();
        assert_eq!(ff.norm_groups(), &[16]);
        let d = dev(&ff, &f, &f, &x);
        assert!(d <= 1e-10, "{norm:?}: {d}");
    }
}

/// Property 2, negative: Joint norm on two different models is not exact.
#[test]
fn joint_on_different_models_is_not_exact() {
    for norm in [NormKind::LayerNorm, NormKind::RmsNorm] {
        let mut rng = ChaCha8Rng::seed_from_u64(23);
        let f = TinyTransformer::random(&config(2, norm), DType::F64, &mut rng).unwrap();
        let g = TinyTransformer::random(&config(2, norm), DType::F64, &mut rng).unwrap();
        let x = ids(&mut rng);
        let fg = fuse_transformer(&f, &g, NormMode::Joint, Combine::Average).unwrap();
        let d = dev(&fg, &f, &g, &x);
        assert!(d > 1e-4, "{norm:?}: {d}");
    }
}

/// Typed errors: head dimension, norm kind, depth.
#[test]
fn transformer_fusion_errors_are_typed() {
    let mut rng = ChaCha8Rng::seed_from_u64(24);
    let f = TinyTransformer::random(&config(2, NormKind::LayerNorm), DType::F64, &mut rng).unwrap();
    let mut c = config(2, NormKind::LayerNorm);
    c.head_dim = 8;
    let g = TinyTransformer::random(&c, DType::F64, &mut rng).unwrap();
    assert!(matches!(
        fuse_transformer(&f, &g, NormMode::Grouped, Combine::Average),
        Err(Error::HeadDimMismatch { left: 4, right: 8 })
    ));
    let g = TinyTransformer::random(&config(2, NormKind::RmsNorm), DType::F64, &mut rng).unwrap();
    assert!(matches!(
        fuse_transformer(&f, &g, NormMode::Grouped, Combine::Average),
        Err(Error::NormKindMismatch { .. })
    ));
    let mut c = config(2, NormKind::LayerNorm);
    c.layers = 3;
    let g = TinyTransformer::random(&c, DType::F64, &mut rng).unwrap();
    assert!(matches!(
        fuse_transformer(&f, &g, NormMode::Grouped, Combine::Average),
        Err(Error::ArchitectureMismatch {
            layer: 2,
            left: 2,
            right: 3
        })
    ));
    let bad = Tensor::from_vec(vec![11u32, 0, 0], (1, 3), &Device::Cpu).unwrap();
    assert!(matches!(
        f.forward(&bad),
        Err(Error::InvalidParameter { .. })
    ));
    let long = Tensor::zeros((1, 10), DType::U32, &Device::Cpu).unwrap();
    assert!(matches!(f.forward(&long), Err(Error::Shape { .. })));
}
