//! `spikelm`: SpikeLM (Xing et al., ICML 2024).
//!
//! Claim: bi-directional elastic spikes `{−α, 0, α}` narrow the gap between
//! spiking and real-valued language models that earlier `{0, 1}`-spike SNNs
//! leave (GLUE: 28.3% → 6.7%). Small-scale reproduction (issue 26) on a
//! **seeded synthetic corpus generated in code** (`spikelm::corpus::synthetic_corpus`:
//! a Zipfian lexicon of 300 pronounceable words with preferred successors;
//! the vendored Shakespeare plays are not in this repository): a
//! char-level masked-LM encoder trained with AdamW, the ANN vs the ternary
//! bi-spike vs the unipolar `{0, α}` spike at the same `T`, data, steps and
//! seeds; validation bits per masked character, the gaps to the ANN, firing
//! rates and energy.
//!
//! Budgets: quick trains one seed of a 1-layer `d = 32` encoder at `T = 1`
//! for 150 steps (figures only: at that length all three models are still
//! near the unigram entropy, about 4.1 bits, and a 3-seed run took 392 s
//! under a load average of 16; the paired checks need ≥ 10 seeds and are
//! `incomplete`); full
//! trains 10 seeds of the encoder (`d = 64`, 2 layers, 4 heads,
//! context 64) at `T = 2`. The neuron's known-value table and the firing
//! rate's monotonicity in `k` are decided at both.

use crate::runner::{
    BoxError, Budget, Check, Context, Figure, Outcome, Plot, Relation, Reproduction, Series, median,
};
use candle_core::{Device, Tensor};
use mlcore::sampling::seeded;
use mlcore::stats::{Alternative, wilcoxon_signed_rank};
use ndarray::Array1;
use nncore::train::TrainConfig;
use spikelm::corpus::{Vocab, synthetic_corpus};
use spikelm::layers::SpikeSettings;
use spikelm::model::{LmConfig, SpikeLm};
use spikelm::{AlphaPolicy, ElasticBiSpike, EnergyModel, Levels, NeuronConfig, ResetMode};

/// The reproduction registered as `spikelm`.
pub struct SpikeLmRepro;

/// The bi-spike's share of the unipolar gap the paper reports: 6.7 / 28.3 (GLUE gaps).
pub const PAPER_SHARE: f64 = 6.7 / 28.3;
/// Seeds the paired checks need (issue 26: ≥ 10).
pub const SEEDS_NEEDED: usize = 10;

/// The spec's known-value table (α = 1, T = 4, λ = 0.25): x, official spikes, symmetric spikes.
const TABLE: [(f32, [f32; 4], [f32; 4]); 6] = [
    (0.30, [0.0; 4], [0.0; 4]),
    (-1.20, [-1.0; 4], [-1.0; 4]),
    (2.00, [1.0; 4], [1.0; 4]),
    (0.45, [0.0, 1.0, 0.0, 1.0], [0.0, 1.0, 0.0, 1.0]),
    (-0.45, [0.0, -1.0, -1.0, -1.0], [0.0, -1.0, 0.0, -1.0]),
    (0.50, [0.0, 1.0, 0.0, 1.0], [0.0, 1.0, 0.0, 1.0]),
];

fn table_mismatches() -> Result<usize, BoxError> {
    let mut bad = 0;
    for (x, official, symmetric) in TABLE {
        for (reset, want) in [
            (ResetMode::Official, official),
            (ResetMode::Normalized, official),
            (ResetMode::Symmetric, symmetric),
        ] {
            let cfg = NeuronConfig {
                reset,
                ..NeuronConfig::default()
            };
            let n = ElasticBiSpike::new(cfg, AlphaPolicy::Fixed(vec![1.0; 4]))?;
            let xt = Tensor::new(&[[x], [x], [x], [x]], &Device::Cpu)?;
            let got = n.forward(&xt)?.0.flatten_all()?.to_vec1::<f32>()?;
            bad += got.iter().zip(&want).filter(|(a, b)| a != b).count();
        }
    }
    Ok(bad)
}

/// Firing rate at T = 1 for k ∈ {1, 1.5, 2, 3} on 20,000 standard normal inputs.
fn rates_vs_k() -> Result<Vec<(f64, f64)>, BoxError> {
    let mut rng = seeded(26);
    let x = nncore::init::normal(&[1, 20_000], 0.0, 1.0, &mut rng, &Device::Cpu)?;
    let mut out = Vec::new();
    for k in [1.0f32, 1.5, 2.0, 3.0] {
        let cfg = NeuronConfig {
            t_steps: 1,
            ..NeuronConfig::default()
        };
        let mut n = ElasticBiSpike::new(
            cfg,
            AlphaPolicy::MeanAbs {
                k,
                freeze_after_first: true,
            },
        )?;
        out.push((f64::from(k), n.forward_init(&x)?.1.rate()));
    }
    Ok(out)
}

struct Run {
    bpc: f64,
    rate: f64,
    energy: f64,
}

impl Reproduction for SpikeLmRepro {
    fn id(&self) -> &'static str {
        "spikelm"
    }
    fn paper(&self) -> &'static str {
        "SpikeLM: Towards General Spike-Driven Language Modeling via Elastic Bi-Spiking Mechanisms (Xing et al., ICML 2024)"
    }
    fn claim(&self) -> &'static str {
        "Bi-directional elastic spikes {−α, 0, α} narrow the spiking-vs-ANN language-modelling gap left by {0, 1} spikes (GLUE gap 28.3% → 6.7%)."
    }

    fn run(&self, ctx: &Context) -> Result<Outcome, BoxError> {
        let full = ctx.budget() == Budget::Full;
        let (seeds, t, steps, d, layers, context) = if full {
            (10usize, 2usize, 300usize, 64usize, 2usize, 64usize)
        } else {
            (1, 1, 150, 32, 1, 32)
        };
        let batch = 16;
        let mut data_rng = seeded(2024);
        let text = synthetic_corpus(150_000, 300, &mut data_rng)?;
        let vocab = Vocab::from_text(&text)?;
        let ids = vocab.encode(&text)?;
        let (train, val) = ids.split_at(130_000);
        let settings = |levels| SpikeSettings {
            neuron: NeuronConfig {
                t_steps: t,
                decay: 0.25,
                reset: ResetMode::Official,
                levels,
            },
            alpha: AlphaPolicy::default(),
        };
        let variants = [
            None,
            Some(settings(Levels::Ternary)),
            Some(settings(Levels::Unipolar)),
        ];
        ctx.set_steps((seeds * variants.len()) as u64);
        let mut runs: Vec<Vec<Run>> = (0..3).map(|_| Vec::new()).collect();
        for seed in 0..seeds {
            for (v, spiking) in variants.iter().enumerate() {
                let cfg = LmConfig {
                    d_model: d,
                    layers,
                    context,
                    spiking: spiking.clone(),
                    ..LmConfig::small(vocab.len())
                };
                let mut rng = seeded(ctx.seed() + seed as u64);
                let mut model = SpikeLm::new(cfg, &mut rng)?;
                let tc = TrainConfig {
                    epochs: 1,
                    batch_size: batch,
                    learning_rate: 2e-3,
                    progress: false,
                    ..Default::default()
                };
                model.train(train, &vocab, steps * batch, &tc, &mut rng)?;
                let ev = model.evaluate(val, &vocab, 96, 7)?;
                runs[v].push(Run {
                    bpc: ev.bits_per_char,
                    rate: ev.stats.rate(),
                    energy: ev.stats.energy_pj(&EnergyModel::default()),
                });
                ctx.step();
            }
        }
        let col = |v: usize, f: fn(&Run) -> f64| runs[v].iter().map(f).collect::<Vec<f64>>();
        let (ann, bi, uni) = (col(0, |r| r.bpc), col(1, |r| r.bpc), col(2, |r| r.bpc));
        let gap_bi: Vec<f64> = bi.iter().zip(&ann).map(|(b, a)| b - a).collect();
        let gap_uni: Vec<f64> = uni.iter().zip(&ann).map(|(u, a)| u - a).collect();
        let share = median(&gap_bi) / median(&gap_uni);
        let few = seeds < SEEDS_NEEDED;
        let why = format!(
            "the quick budget trains {seeds} seeds; the paired test needs ≥ {SEEDS_NEEDED}: run --budget full"
        );
        let p = wilcoxon_signed_rank(
            Array1::from(gap_bi.clone()).view(),
            Array1::from(gap_uni.clone()).view(),
            Alternative::Less,
        )
        .map(|w| w.p_value)
        .unwrap_or(1.0);
        let mut checks = vec![
            Check::new(
                "bi-spike gap to the ANN < unipolar gap (one-sided Wilcoxon p, paired seeds)",
                p,
                Relation::PValueBelow,
                0.05,
                "paper (Table 2; issue 26): SpikeLM narrows the gap of previous {0,1}-spike SNNs",
            )
            .with_seeds(seeds)
            .undecided_if(few, why.clone()),
            Check::new(
                "bi-spike share of the unipolar gap (median gaps)",
                share,
                Relation::AtMost,
                PAPER_SHARE,
                "paper: GLUE gap 28.3% (LIF-BERT) → 6.7% (SpikeLM), 6.7/28.3",
            )
            .with_seeds(seeds)
            .undecided_if(few, why),
        ];
        checks.push(Check::new(
            "known-value table mismatches (3 reset modes × 6 rows × 4 steps)",
            table_mismatches()? as f64,
            Relation::AtMost,
            0.0,
            "spec: known-value table of the official update",
        ));
        let rk = rates_vs_k()?;
        let rise = rk
            .windows(2)
            .map(|w| w[1].1 - w[0].1)
            .fold(f64::NEG_INFINITY, f64::max);
        checks.push(Check::new(
            "largest rise of the T = 1 firing rate between consecutive k ∈ {1, 1.5, 2, 3}",
            rise,
            Relation::AtMost,
            0.0,
            "paper §4.2 / spec property 8: a larger k gives fewer spikes",
        ));
        let mut figures = vec![
            Figure::new("ANN bits per masked char (median)", median(&ann)),
            Figure::new(
                format!("bi-spike T={t} bits per masked char (median)"),
                median(&bi),
            ),
            Figure::new(
                format!("unipolar T={t} bits per masked char (median)"),
                median(&uni),
            ),
            Figure::new("bi-spike gap to ANN (median)", median(&gap_bi)),
            Figure::new("unipolar gap to ANN (median)", median(&gap_uni)),
            Figure::new("bi-spike firing rate (median)", median(&col(1, |r| r.rate))),
            Figure::new("unipolar firing rate (median)", median(&col(2, |r| r.rate))),
            Figure::new(
                "energy ANN / bi-spike (median, 0.9 / 4.6 pJ)",
                median(&col(0, |r| r.energy)) / median(&col(1, |r| r.energy)),
            ),
        ];
        for (k, r) in &rk {
            figures.push(Figure::new(format!("T = 1 firing rate at k = {k}"), *r));
        }
        let plots = vec![Plot {
            title: "SpikeLM: firing rate vs k (T = 1, Gaussian input)".into(),
            x_label: "k (α = k·mean|u|)".into(),
            y_label: "firing rate".into(),
            series: vec![Series::line("ternary", rk.clone())],
            ..Default::default()
        }];
        let notes = vec![
            "Data: a seeded synthetic corpus generated in code (spikelm::corpus::synthetic_corpus), not the issue's Shakespeare plays, which are not vendored here.".into(),
            format!("Model: d = {d}, {layers} layer(s), 4 heads, context {context}, {steps} AdamW steps of batch {batch}, T = {t}, official reset, α = 2·mean|u| frozen after the first batch."),
        ];
        Ok(Outcome {
            checks,
            figures,
            plots,
            notes,
        })
    }
}
