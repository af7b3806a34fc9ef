//! The spec's known-value table of the elastic bi-spiking neuron (α = 1,
//! T = 4, λ = 0.25) in the three reset modes, and the official reset's scale
//! dependence (x = 0.45α at α = 1 and α = 0.2).
//! `cargo run --release --example spikelm_spike_table`
use candle_core::{Device, Tensor};
use spikelm::{AlphaPolicy, ElasticBiSpike, NeuronConfig, ResetMode};

fn spikes(reset: ResetMode, alpha: f32, x: f32) -> spikelm::Result<Vec<f32>> {
    let cfg = NeuronConfig {
        reset,
        ..NeuronConfig::default()
    };
    let n = ElasticBiSpike::new(cfg, AlphaPolicy::Fixed(vec![alpha; 4]))?;
    let xt = Tensor::new(&[[x], [x], [x], [x]], &Device::Cpu)?;
    Ok(n.forward(&xt)?.0.flatten_all()?.to_vec1::<f32>()?)
}

fn main() -> spikelm::Result<()> {
    println!(
        "{:>6}  {:<22} {:<22} {:<22}",
        "x", "official", "normalized", "symmetric"
    );
    for x in [0.30f32, -1.20, 2.00, 0.45, -0.45, 0.50] {
        let row = |r| spikes(r, 1.0, x).map(|s| format!("{s:?}"));
        println!(
            "{x:>6}  {:<22} {:<22} {:<22}",
            row(ResetMode::Official)?,
            row(ResetMode::Normalized)?,
            row(ResetMode::Symmetric)?
        );
    }
    println!("\nscale: x = 0.45·α, spikes / α");
    for reset in [
        ResetMode::Official,
        ResetMode::Normalized,
        ResetMode::Symmetric,
    ] {
        for alpha in [1.0f32, 0.2] {
            let s: Vec<f32> = spikes(reset, alpha, 0.45 * alpha)?
                .iter()
                .map(|v| v / alpha)
                .collect();
            println!("{reset:?} α = {alpha}: {s:?}");
        }
    }
    Ok(())
}
