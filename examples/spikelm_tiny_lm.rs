//! A char-level masked LM on the vendored Shakespeare plays (trained on
//! Hamlet, validated on Macbeth): ANN vs SpikeLM ternary spikes at T = 1, 2
//! vs the unipolar {0, α} baseline, with validation bits per masked
//! character, firing rates and energy.
//! `cargo run --release --example spikelm_tiny_lm`
use mlcore::data::{Dataset, workspace_data_dir};
use mlcore::sampling::seeded;
use nncore::train::TrainConfig;
use spikelm::corpus::Vocab;
use spikelm::layers::SpikeSettings;
use spikelm::model::{LmConfig, SpikeLm};
use spikelm::{AlphaPolicy, EnergyModel, Levels, NeuronConfig, ResetMode};

fn main() -> spikelm::Result<()> {
    let ds = Dataset::open(workspace_data_dir().join("shakespeare"))?;
    let plays = spikelm::data::shakespeare(&ds, &["hamlet", "macbeth"])?;
    let vocab = Vocab::from_text(&format!("{}{}", plays[0].1, plays[1].1))?;
    let (train, val) = (vocab.encode(&plays[0].1)?, vocab.encode(&plays[1].1)?);
    let (train, val) = (train.as_slice(), val.as_slice());
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
