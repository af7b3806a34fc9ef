//! Elastic frequency encoding: the firing rate of the bi-spiking neuron for
//! α = k·mean|u| with k ∈ {1, 1.5, 2, 3} on standard normal inputs, at T = 1
//! and T = 4 (official reset). `cargo run --release --example spikelm_firing_rate_vs_k`
use candle_core::Device;
use mlcore::sampling::seeded;
use spikelm::{AlphaPolicy, ElasticBiSpike, NeuronConfig};

fn main() -> spikelm::Result<()> {
    let mut rng = seeded(1);
    println!(
        "{:>4} {:>10} {:>10} {:>10} {:>10}",
        "k", "rate T=1", "rate T=4", "+ frac", "− frac"
    );
    for k in [1.0f32, 1.5, 2.0, 3.0] {
        let mut row = Vec::new();
        let mut last = None;
        for t in [1usize, 4] {
            let x = nncore::init::normal(&[t, 10_000], 0.0, 1.0, &mut rng, &Device::Cpu)?;
            let cfg = NeuronConfig {
                t_steps: t,
                ..NeuronConfig::default()
            };
            let mut n = ElasticBiSpike::new(
                cfg,
                AlphaPolicy::MeanAbs {
                    k,
                    freeze_after_first: true,
                },
            )?;
            let stats = n.forward_init(&x)?.1;
            row.push(stats.rate());
            last = Some(stats);
        }
        let s = last.unwrap_or_default();
        println!(
            "{k:>4} {:>10.4} {:>10.4} {:>10.4} {:>10.4}",
            row[0],
            row[1],
            s.pos_frac(),
            s.neg_frac()
        );
    }
    Ok(())
}
