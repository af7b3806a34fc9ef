//! Fusion exactness: fuses the spec's 3→4→2 tanh pair and prints
//! max |F(x) − ½(f(x) + g(x))| at x = (0.1, −0.2, 0.3) (≈ 1e-16), then the
//! certificate of deeper pairs of different widths for ReLU, tanh and GELU,
//! f64 and f32, and of a transformer pair with joint and grouped norms.
//!
//! `cargo run --release --example deep_fusion_fuse_check [-- --export FILE]`
//! (`--export` writes the 3→4→2 pair, the fused weights and F(x) as JSON for
//! `scripts/compare/deep_fusion.py`).

use candle_core::{DType, Device, Tensor};
use deep_fusion::transformer::{
    NormKind, NormMode, TinyTransformer, TransformerConfig, fuse_transformer,
};
use deep_fusion::{Activation, Combine, FuseOptions, Mlp, exactness_certificate, fuse};
use mlcore::sampling::seeded;
use ndarray::Array2;
use rand::RngExt;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut rng = seeded(342);
    let f = Mlp::random(&[3, 4, 2], Activation::Tanh, DType::F64, &mut rng)?;
    let g = Mlp::random(&[3, 4, 2], Activation::Tanh, DType::F64, &mut rng)?;
    let fused = fuse(&f, &g, &FuseOptions::default(), &mut rng)?;
    let x = Array2::from_shape_vec((1, 3), vec![0.1, -0.2, 0.3])?;
    let c = exactness_certificate(&fused, &[&f, &g], x.view())?;
    println!(
        "3→4→2 tanh at x = (0.1, −0.2, 0.3): F(x) = {:?}, max |F − ½(f + g)| = {:e}",
        fused.mlp.forward_array(x.view())?.row(0).to_vec(),
        c.max_abs
    );
    for act in [Activation::Relu, Activation::Tanh, Activation::Gelu] {
        for dtype in [DType::F64, DType::F32] {
            let f = Mlp::random(&[10, 64, 17, 64, 5], act, dtype, &mut rng)?;
            let g = Mlp::random(&[10, 3, 64, 40, 5], act, dtype, &mut rng)?;
            let fused = fuse(&f, &g, &FuseOptions::default(), &mut rng)?;
            let probe = Array2::from_shape_fn((256, 10), |_| rng.random_range(-3.0..3.0));
            let c = exactness_certificate(&fused, &[&f, &g], probe.view())?;
            println!(
                "{:>4} {dtype:?}: sizes {:?}, max |F − ½(f+g)| = {:.3e}, relative {:.3e}",
                act.name(),
                fused.mlp.sizes(),
                c.max_abs,
                c.max_rel
            );
        }
    }
    for norm in [NormKind::LayerNorm, NormKind::RmsNorm] {
        let cfg = |heads| TransformerConfig {
            vocab: 30,
            heads,
            head_dim: 8,
            d_ff: 64,
            layers: 2,
            max_len: 16,
            norm,
            activation: Activation::Gelu,
            eps: 1e-5,
        };
        let f = TinyTransformer::random(&cfg(2), DType::F64, &mut rng)?;
        let g = TinyTransformer::random(&cfg(4), DType::F64, &mut rng)?;
        let ids: Vec<u32> = (0..2 * 16).map(|_| rng.random_range(0..30u32)).collect();
        let ids = Tensor::from_vec(ids, (2, 16), &Device::Cpu)?;
        let want = ((f.forward(&ids)? + g.forward(&ids)?)? * 0.5)?;
        for mode in [NormMode::Grouped, NormMode::Joint] {
            let fg = fuse_transformer(&f, &g, mode, Combine::Average)?;
            let d = (fg.forward(&ids)? - &want)?
                .abs()?
                .max_all()?
                .to_scalar::<f64>()?;
            println!(
                "transformer {norm:?} {mode:?} (different models): max |logits − ½(f + g)| = {d:.3e}"
            );
        }
        let ff = fuse_transformer(&f, &f, NormMode::Joint, Combine::Average)?;
        let d = (ff.forward(&ids)? - f.forward(&ids)?)?
            .abs()?
            .max_all()?
            .to_scalar::<f64>()?;
        println!("transformer {norm:?} Joint self-fusion: max |logits − f| = {d:.3e}");
    }
    Ok(())
}
