//! One KEP-SVGP attention layer (f64, untrained, seeded) on a random
//! sequence: the mean deterministic token variance for in-distribution
//! tokens and for the same tokens scaled 5× (the data-dependent primal
//! weights W_e = X̃ᵀW̃_e grow with the input, so the variance grows ×25).
//! `cargo run --release --example svgp_ksvd_attention_uncertainty`
use candle_core::{DType, Device, Tensor};
use nncore::params::ParamSet;
use svgp_ksvd::attention::{KepConfig, KepSvgpAttention};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut rng = mlcore::sampling::seeded(2);
    let dev = Device::Cpu;
    let mut params = ParamSet::new();
    let cfg = KepConfig {
        s: 8,
        rank_multi: 2,
        ..KepConfig::default()
    };
    let layer = KepSvgpAttention::new(
        &mut params,
        "kep",
        (64, 4, 17),
        cfg,
        DType::F64,
        &mut rng,
        &dev,
    )?;
    let x = Tensor::randn(0.0f64, 1.0, (4, 17, 64), &dev)?;
    for (label, scale) in [("in-distribution", 1.0), ("5× scaled", 5.0)] {
        let out = layer.forward(&(&x * scale)?, None::<&mut mlcore::sampling::WorkspaceRng>)?;
        let v = out.variance.mean_all()?.to_scalar::<f64>()?;
        println!("{label:16} mean token variance = {v:.4}");
    }
    Ok(())
}
