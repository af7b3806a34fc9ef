//! A char-level masked LM on a seeded synthetic corpus (generated in code):
//! ANN vs SpikeLM ternary spikes at T = 1, 2 vs the unipolar {0, α}
//! baseline, with validation bits per masked character, firing rates and
//! energy. `cargo run --release --example spikelm_tiny_lm`
use mlcore::sampling::seeded;
use nncore::train::TrainConfig;
use spikelm::corpus::{Vocab, synthetic_corpus};
use spikelm::layers::SpikeSettings;
use spikelm::model::{LmConfig, SpikeLm};
use spikelm::{AlphaPolicy, EnergyModel, Levels, NeuronConfig, ResetMode};

fn main() -> spikelm::Result<()> {
    let mut rng = seeded(7);
    let text = synthetic_corpus(120_000, 300, &mut rng)?;
    let vocab = Vocab::from_text(&text)?;
    let ids = vocab.encode(&text)?;
    let (train, val) = ids.split_at(100_000);
    let steps = 150;
    let batch = 16;
    let settings = |t: usize, levels: Levels| SpikeSettings {
        neuron: NeuronConfig {
            t_steps: t,
            decay: 0.25,
            reset: ResetMode::Official,
            levels,
        },
        alpha: AlphaPolicy::default(),
    };
    let variants: Vec<(&str, Option<SpikeSettings>)> = vec![
        ("ANN", None),
        ("bi-spike T=1", Some(settings(1, Levels::Ternary))),
        ("bi-spike T=2", Some(settings(2, Levels::Ternary))),
        ("unipolar T=2", Some(settings(2, Levels::Unipolar))),
    ];
    println!(
        "{:<14} {:>8} {:>8} {:>10} {:>8}",
        "model", "bpc", "rate", "energy µJ", "seconds"
    );
    for (name, spiking) in variants {
        let mut cfg = LmConfig::small(vocab.len());
        cfg.layers = 1;
        cfg.d_model = 64;
        cfg.context = 64;
        cfg.spiking = spiking;
        let mut r = seeded(1);
        let mut model = SpikeLm::new(cfg, &mut r)?;
        let tc = TrainConfig {
            epochs: 1,
            batch_size: batch,
            learning_rate: 2e-3,
            progress: false,
            ..Default::default()
        };
        let start = std::time::Instant::now();
        model.train(train, &vocab, steps * batch, &tc, &mut r)?;
        let ev = model.evaluate(val, &vocab, 64, 99)?;
        println!(
            "{:<14} {:>8.3} {:>8.3} {:>10.2} {:>8.1}",
            name,
            ev.bits_per_char,
            ev.stats.rate(),
            ev.stats.energy_pj(&EnergyModel::default()) * 1e-6,
            start.elapsed().as_secs_f64()
        );
    }
    Ok(())
}
