//! Inputs and outputs of the elastic bi-spiking neuron for the PyTorch
//! oracle of `scripts/compare/spikelm.py`, and CPU timings of the neuron and
//! `SpikeLinear` (T = 4, 128×768 → 768) against a dense f32 layer.
//!
//! `cargo run --release --example spikelm_oracle_io -- <out.json>` writes,
//! for T = 1..=8, the three reset modes and the ternary and unipolar levels,
//! seeded random inputs `[T, 257]` (uniform in ±2.5, with exact ties
//! `±α/2` and `±α` mixed in), amplitudes in [0.2, 2] and the candle
//! neuron's spikes, all as f32 bit patterns; then prints the medians of five
//! thread-CPU-time measurements (run it with `RAYON_NUM_THREADS=1` to time
//! one thread, as the script does).
use candle_core::{Device, Tensor};
use mlcore::timing::thread_cpu_seconds;
use nncore::params::ParamSet;
use rand::RngExt;

use spikelm::layers::{SpikeLinear, SpikeSettings};
use spikelm::{AlphaPolicy, ElasticBiSpike, Levels, NeuronConfig, ResetMode};

fn bits(v: &[f32]) -> Vec<u32> {
    v.iter().map(|x| x.to_bits()).collect()
}

fn median_cpu(mut f: impl FnMut() -> spikelm::Result<()>) -> spikelm::Result<f64> {
    f()?; // warm-up
    let mut times = Vec::new();
    for _ in 0..5 {
        let start = thread_cpu_seconds().unwrap_or(f64::NAN);
        f()?;
        times.push(thread_cpu_seconds().unwrap_or(f64::NAN) - start);
    }
    times.sort_by(f64::total_cmp);
    Ok(times[2])
}

fn main() -> spikelm::Result<()> {
    let out = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "spikelm_oracle_io.json".into());
    let mut rng = mlcore::sampling::seeded(26);
    let n = 257;
    let mut cases = Vec::new();
    for t in 1..=8usize {
        for (reset, rname) in [
            (ResetMode::Official, "official"),
            (ResetMode::Normalized, "normalized"),
            (ResetMode::Symmetric, "symmetric"),
        ] {
            for (levels, lname) in [(Levels::Ternary, "ternary"), (Levels::Unipolar, "unipolar")] {
                let alphas: Vec<f32> = (0..t).map(|_| rng.random_range(0.2f32..2.0)).collect();
                let x: Vec<f32> = (0..t * n)
                    .map(|i| {
                        let a = alphas[i / n];
                        match rng.random_range(0..8u32) {
                            0 => a * 0.5,
                            1 => -a * 0.5,
                            2 => a,
                            3 => -a,
                            _ => rng.random_range(-2.5f32..2.5),
                        }
                    })
                    .collect();
                let cfg = NeuronConfig {
                    t_steps: t,
                    decay: 0.25,
                    reset,
                    levels,
                };
                let neuron = ElasticBiSpike::new(cfg, AlphaPolicy::Fixed(alphas.clone()))?;
                let xt = Tensor::from_vec(x.clone(), (t, n), &Device::Cpu)?;
                let s = neuron.forward(&xt)?.0.flatten_all()?.to_vec1::<f32>()?;
                cases.push(serde_json::json!({
                    "t": t, "reset": rname, "levels": lname, "n": n,
                    "alphas": bits(&alphas), "x": bits(&x), "spikes": bits(&s),
                }));
            }
        }
    }
    let n_cases = cases.len();
    std::fs::write(&out, serde_json::Value::Array(cases).to_string())
        .map_err(|e| spikelm::Error::Parse(e.to_string()))?;

    // Timing: T = 4, 128×768 inputs, 768 → 768 layer.
    let (t, rows, d) = (4usize, 128usize, 768usize);
    let x = nncore::init::normal(&[t, rows, d], 0.0, 1.0, &mut rng, &Device::Cpu)?;
    let settings = SpikeSettings {
        neuron: NeuronConfig::default(),
        alpha: AlphaPolicy::Fixed(vec![2.0 * 0.7979; 4]),
    };
    let mut params = ParamSet::new();
    let layer = SpikeLinear::new(&mut params, "l", d, d, Some(&settings), &mut rng)?;
    let neuron = ElasticBiSpike::new(settings.neuron, settings.alpha.clone())?;
    let w = layer.weight().as_tensor().clone();
    let neuron_s = median_cpu(|| neuron.forward(&x).map(drop))?;
    let spike_linear_s = median_cpu(|| layer.forward(&x).map(drop))?;
    let dense_s = median_cpu(|| Ok(x.broadcast_matmul(&w).map(drop)?))?;
    let xv = x.flatten_all()?.to_vec1::<f32>()?;
    let reference_s = median_cpu(|| {
        spikelm::neuron::reference_forward(&settings.neuron, &[2.0 * 0.7979; 4], &xv).map(drop)
    })?;
    println!(
        "{}",
        serde_json::json!({
            "cases": n_cases,
            "neuron_s": neuron_s,
            "reference_neuron_s": reference_s,
            "spike_linear_s": spike_linear_s,
            "dense_linear_s": dense_s,
        })
    );
    Ok(())
}
