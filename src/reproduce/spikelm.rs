//! `spikelm`: SpikeLM (Xing et al., ICML 2024).
//!
//! Claim: bi-directional elastic spikes `{−α, 0, α}` narrow the gap between
//! spiking and real-valued language models that earlier `{0, 1}`-spike SNNs
//! leave (GLUE: 28.3% → 6.7%). Small-scale reproduction (issue 26) on the
//! twelve vendored Shakespeare plays (`data/shakespeare`, SHA-checked; split
//! by play: ten train, Macbeth and Twelfth Night validate): the issue's
//! char-level masked-LM encoder (`d = 64`, 2 layers, 4 heads, FFN 256,
//! context 64) trained with AdamW, the ANN vs the ternary bi-spike vs the
//! unipolar `{0, α}` spike at the same `T`, data, steps and seeds;
//! validation bits per masked character, the gaps to the ANN, firing rates
//! and energy.
//!
//! Budgets. Quick: one seed, `T ∈ {1, 2}`, 120 steps of 4 windows per model
//! (figures only, the paired checks need ≥ 10 seeds and are `incomplete`;
//! 300 steps, the figure, took 135 s on the 2-core reference machine
//! under load, and these 120 steps still took 95 s against a 40 s budget:
//! see docs/perf.md). At that length every model is still near the unigram
//! entropy (about 5.1 bits per masked character), so the quick figures say
//! nothing about the gaps. Full: 10 seeds,
//! `T ∈ {1, 2, 4}`, 300 steps of 16 windows, the causal LM (ANN, bi-spike and
//! unipolar at `T = 4`) and fine-tuning each masked-LM model at `T = 4` (and
//! the ANN) on the 4-way `fortunes` classification (`data/fortunes`,
//! computers / people / politics / science, 80/20 split): several hours on
//! one core, not the 5 minutes the issue hoped for (docs/perf.md). The
//! neuron's known-value table and the firing rate's monotonicity in `k` are
//! decided at both budgets.

use crate::runner::{
    BoxError, Budget, Check, Context, Figure, Outcome, Plot, Relation, Reproduction, Series, median,
};
use candle_core::{Device, Tensor};
use mlcore::sampling::seeded;
use mlcore::stats::{Alternative, wilcoxon_signed_rank};
use ndarray::Array1;
use nncore::train::TrainConfig;
use rand::seq::SliceRandom;
use spikelm::classify::{SeqClassifier, tile};
use spikelm::corpus::Vocab;
use spikelm::data::{FORTUNE_CATEGORIES, PLAYS};
use spikelm::layers::SpikeSettings;
use spikelm::model::{LmConfig, Objective, SpikeLm};
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

/// One trained model's validation figures.
struct Run {
    bpc: f64,
    rate: f64,
    energy: f64,
}

/// The experiment's sizes at a budget.
struct Plan {
    seeds: usize,
    /// Time steps of the spiking models (bi-spike and unipolar at each).
    ts: Vec<usize>,
    steps: usize,
    batch: usize,
    eval_windows: usize,
    /// The causal LM and the fortunes fine-tuning (full only).
    extended: bool,
}

impl Plan {
    fn at(budget: Budget) -> Self {
        match budget {
            Budget::Full => Plan {
                seeds: SEEDS_NEEDED,
                ts: vec![1, 2, 4],
                steps: 300,
                batch: 16,
                eval_windows: 200,
                extended: true,
            },
            Budget::Quick => Plan {
                seeds: 1,
                ts: vec![1, 2],
                steps: QUICK_STEPS,
                batch: QUICK_BATCH,
                eval_windows: 48,
                extended: false,
            },
        }
    }
}

/// Optimiser steps per model at the quick budget.
const QUICK_STEPS: usize = 120;
/// Windows of 64 characters per step at the quick budget.
const QUICK_BATCH: usize = 4;
/// Validation plays (the other ten train).
pub const VALIDATION_PLAYS: [&str; 2] = ["macbeth", "twelfth_night"];

fn settings(t: usize, levels: Levels) -> SpikeSettings {
    SpikeSettings {
        neuron: NeuronConfig {
            t_steps: t,
            decay: 0.25,
            reset: ResetMode::Official,
            levels,
        },
        alpha: AlphaPolicy::default(),
    }
}

/// The texts: training and validation streams (plays joined by blank
/// lines), and the fortunes when asked.
struct Texts {
    train: String,
    val: String,
    fortunes: Vec<(String, usize)>,
}

fn load(ctx: &Context, with_fortunes: bool) -> Result<Texts, BoxError> {
    let plays = spikelm::data::shakespeare(&ctx.dataset("shakespeare")?, &PLAYS)?;
    let (mut train, mut val) = (String::new(), String::new());
    for (name, text) in plays {
        let dst = if VALIDATION_PLAYS.contains(&name.as_str()) {
            &mut val
        } else {
            &mut train
        };
        dst.push_str(&text);
        dst.push_str("\n\n");
    }
    let fortunes = if with_fortunes {
        spikelm::data::fortunes(&ctx.dataset("fortunes")?)?
    } else {
        Vec::new()
    };
    Ok(Texts {
        train,
        val,
        fortunes,
    })
}

fn train_config(batch: usize) -> TrainConfig {
    TrainConfig {
        epochs: 1,
        batch_size: batch,
        learning_rate: 2e-3,
        progress: false,
        ..Default::default()
    }
}

/// Trains one model and evaluates it on the validation stream.
#[allow(clippy::too_many_arguments)]
fn train_one(
    plan: &Plan,
    vocab: &Vocab,
    train: &[u32],
    val: &[u32],
    objective: Objective,
    spiking: Option<SpikeSettings>,
    seed: u64,
) -> Result<(SpikeLm, Run), BoxError> {
    let cfg = LmConfig {
        objective,
        spiking,
        ..LmConfig::small(vocab.len())
    };
    let mut rng = seeded(seed);
    let mut model = SpikeLm::new(cfg, &mut rng)?;
    model.train(
        train,
        vocab,
        plan.steps * plan.batch,
        &train_config(plan.batch),
        &mut rng,
    )?;
    let ev = model.evaluate(val, vocab, plan.eval_windows, 7)?;
    let run = Run {
        bpc: ev.bits_per_char,
        rate: ev.stats.rate(),
        energy: ev.stats.energy_pj(&EnergyModel::default()),
    };
    Ok((model, run))
}

/// Fine-tunes `lm` on 80% of the fortunes (4 classes) and returns the
/// accuracy on the other 20% (the same split for every model of a seed).
fn fine_tune(
    lm: SpikeLm,
    vocab: &Vocab,
    fortunes: &[(String, usize)],
    seed: u64,
) -> Result<f64, BoxError> {
    let context = lm.config().context;
    let sep = vocab.encode(" ")?[0];
    let mut items: Vec<(Vec<u32>, usize)> = fortunes
        .iter()
        .map(|(q, y)| Ok((tile(&vocab.encode(q)?, sep, context)?, *y)))
        .collect::<Result<_, BoxError>>()?;
    let mut rng = seeded(seed ^ 0xF0F0);
    items.shuffle(&mut rng);
    let cut = items.len() * 4 / 5;
    let (tr, te) = items.split_at(cut);
    let split =
        |v: &[(Vec<u32>, usize)]| -> (Vec<Vec<u32>>, Vec<usize>) { v.iter().cloned().unzip() };
    let ((xs, ys), (xt, yt)) = (split(tr), split(te));
    let mut clf = SeqClassifier::new(lm, FORTUNE_CATEGORIES.len(), &mut rng)?;
    let tc = TrainConfig {
        epochs: 2,
        learning_rate: 1e-3,
        ..train_config(16)
    };
    clf.fine_tune(&xs, &ys, &tc, &mut rng)?;
    Ok(clf.accuracy(&xt, &yt)?.0)
}

fn paired_p(a: &[f64], b: &[f64]) -> f64 {
    wilcoxon_signed_rank(
        Array1::from(a.to_vec()).view(),
        Array1::from(b.to_vec()).view(),
        Alternative::Less,
    )
    .map(|w| w.p_value)
    .unwrap_or(1.0)
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
        let plan = Plan::at(ctx.budget());
        let seeds = plan.seeds;
        let texts = load(ctx, plan.extended)?;
        let mut all = texts.train.clone();
        all.push_str(&texts.val);
        for (q, _) in &texts.fortunes {
            all.push_str(q);
        }
        let vocab = Vocab::from_text(&all)?;
        let train = vocab.encode(&texts.train)?;
        let val = vocab.encode(&texts.val)?;
        let t_max = *plan.ts.last().unwrap_or(&1);
        // Model 0 is the ANN; then (bi-spike, unipolar) at each T.
        let mut variants: Vec<Option<SpikeSettings>> = vec![None];
        for &t in &plan.ts {
            variants.push(Some(settings(t, Levels::Ternary)));
            variants.push(Some(settings(t, Levels::Unipolar)));
        }
        let extra = if plan.extended { 3 } else { 0 };
        ctx.set_steps((seeds * (variants.len() + extra)) as u64);
        let masked = Objective::MaskedLm { mask_prob: 0.15 };
        let mut runs: Vec<Vec<Run>> = (0..variants.len()).map(|_| Vec::new()).collect();
        let mut causal: Vec<Vec<f64>> = vec![Vec::new(); 3];
        let mut accuracy: Vec<Vec<f64>> = vec![Vec::new(); 3];
        let last = variants.len() - 2; // bi-spike at T_max; unipolar is last + 1
        for seed in 0..seeds {
            let s = ctx.seed() + seed as u64;
            for (v, spiking) in variants.iter().enumerate() {
                ctx.set_message(format!("seed {seed}, masked LM {v}"));
                let (model, run) =
                    train_one(&plan, &vocab, &train, &val, masked, spiking.clone(), s)?;
                runs[v].push(run);
                if plan.extended && (v == 0 || v >= last) {
                    let i = if v == 0 { 0 } else { v - last + 1 };
                    accuracy[i].push(fine_tune(model, &vocab, &texts.fortunes, s)?);
                }
                ctx.step();
            }
            if plan.extended {
                for (i, v) in [0, last, last + 1].into_iter().enumerate() {
                    ctx.set_message(format!("seed {seed}, causal LM {i}"));
                    let spiking = variants[v].clone();
                    let (_, run) =
                        train_one(&plan, &vocab, &train, &val, Objective::Causal, spiking, s)?;
                    causal[i].push(run.bpc);
                    ctx.step();
                }
            }
        }
        let col = |v: usize, f: fn(&Run) -> f64| runs[v].iter().map(f).collect::<Vec<f64>>();
        let bpc = |v: usize| col(v, |r| r.bpc);
        let ann = bpc(0);
        let gaps = |v: usize| -> Vec<f64> { bpc(v).iter().zip(&ann).map(|(b, a)| b - a).collect() };
        let (gap_bi, gap_uni) = (gaps(last), gaps(last + 1));
        let share = median(&gap_bi) / median(&gap_uni);
        let few = seeds < SEEDS_NEEDED;
        let why = format!(
            "the quick budget trains {seeds} seed(s); the paired test needs ≥ {SEEDS_NEEDED}: run --budget full"
        );
        let p = paired_p(&gap_bi, &gap_uni);
        let mut checks = vec![
            Check::new(
                format!("bi-spike gap to the ANN < unipolar gap at T = {t_max} (one-sided Wilcoxon p, paired seeds; masked bits per char)"),
                p,
                Relation::PValueBelow,
                0.05,
                "paper (Table 2; issue 26): SpikeLM narrows the gap of previous {0,1}-spike SNNs",
            )
            .with_seeds(seeds)
            .undecided_if(few, why.clone()),
            Check::new(
                format!("bi-spike share of the unipolar gap at T = {t_max} (median gaps)"),
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
        let mut figures = vec![Figure::new(
            "ANN bits per masked char (median)",
            median(&ann),
        )];
        let (mut bi_line, mut uni_line, mut ann_line) = (Vec::new(), Vec::new(), Vec::new());
        for (i, &t) in plan.ts.iter().enumerate() {
            let (b, u) = (1 + 2 * i, 2 + 2 * i);
            let tf = t as f64;
            bi_line.push((tf, median(&bpc(b))));
            uni_line.push((tf, median(&bpc(u))));
            ann_line.push((tf, median(&ann)));
            figures.extend([
                Figure::new(
                    format!("bi-spike T={t} bits per masked char (median)"),
                    median(&bpc(b)),
                ),
                Figure::new(
                    format!("unipolar T={t} bits per masked char (median)"),
                    median(&bpc(u)),
                ),
                Figure::new(
                    format!("bi-spike T={t} gap to ANN (median)"),
                    median(&gaps(b)),
                ),
                Figure::new(
                    format!("unipolar T={t} gap to ANN (median)"),
                    median(&gaps(u)),
                ),
                Figure::new(
                    format!("bi-spike T={t} firing rate (median)"),
                    median(&col(b, |r| r.rate)),
                ),
                Figure::new(
                    format!("unipolar T={t} firing rate (median)"),
                    median(&col(u, |r| r.rate)),
                ),
                Figure::new(
                    format!("energy ANN / bi-spike T={t} (median, 0.9 / 4.6 pJ)"),
                    median(&col(0, |r| r.energy)) / median(&col(b, |r| r.energy)),
                ),
            ]);
        }
        if plan.extended {
            let cg = |i: usize| -> Vec<f64> {
                causal[i]
                    .iter()
                    .zip(&causal[0])
                    .map(|(b, a)| b - a)
                    .collect()
            };
            figures.extend([
                Figure::new("causal LM: ANN bits per char (median)", median(&causal[0])),
                Figure::new(
                    format!("causal LM: bi-spike T={t_max} gap to ANN (median)"),
                    median(&cg(1)),
                ),
                Figure::new(
                    format!("causal LM: unipolar T={t_max} gap to ANN (median)"),
                    median(&cg(2)),
                ),
                Figure::new(
                    "causal LM: one-sided Wilcoxon p (bi gap < unipolar gap)",
                    paired_p(&cg(1), &cg(2)),
                ),
                Figure::new(
                    "fortunes 4-way accuracy, ANN (median)",
                    median(&accuracy[0]),
                ),
                Figure::new(
                    format!("fortunes 4-way accuracy, bi-spike T={t_max} (median)"),
                    median(&accuracy[1]),
                ),
                Figure::new(
                    format!("fortunes 4-way accuracy, unipolar T={t_max} (median)"),
                    median(&accuracy[2]),
                ),
            ]);
        }
        for (k, r) in &rk {
            figures.push(Figure::new(format!("T = 1 firing rate at k = {k}"), *r));
        }
        let plots = vec![
            Plot {
                title: "SpikeLM: validation bits per masked character vs T (Shakespeare)".into(),
                x_label: "time steps T".into(),
                y_label: "bits per masked char (median over seeds)".into(),
                series: vec![
                    Series::line("bi-spike {−α, 0, α}", bi_line),
                    Series::line("unipolar {0, α}", uni_line),
                    Series::line("ANN", ann_line),
                ],
                ..Default::default()
            },
            Plot {
                title: "SpikeLM: firing rate vs k (T = 1, Gaussian input)".into(),
                x_label: "k (α = k·mean|u|)".into(),
                y_label: "firing rate".into(),
                series: vec![Series::line("ternary", rk.clone())],
                ..Default::default()
            },
        ];
        let notes = vec![
            format!(
                "Data: twelve Shakespeare plays (data/shakespeare, shakespeare 0.6, CC BY 2.5), split by play: {} training characters from ten plays, {} validation characters from {} (the first {} windows of 64 evaluated).",
                train.len(),
                val.len(),
                VALIDATION_PLAYS.join(" and "),
                plan.eval_windows
            ),
            format!(
                "Model: d = 64, 2 layers, 4 heads, FFN 256, context 64, masked LM (15%, 80/10/10); {} AdamW steps of {} windows per model; T ∈ {:?}; official reset, λ = 0.25, α = 2·mean|u| frozen after the first batch; {} seed(s), the same data, steps and seeds for every model.",
                plan.steps, plan.batch, plan.ts, seeds
            ),
        ];
        Ok(Outcome {
            checks,
            figures,
            plots,
            notes,
        })
    }
}
