//! `nncore`: the shared training core on real data. A 64→64→10 ReLU MLP
//! (PyTorch's `nn.Linear` initialisation, drawn on the host from a seeded
//! ChaCha8) is trained with candle-nn's AdamW on the vendored digits
//! (`data/digits`, UCI test set as scikit-learn 1.9.1 ships it) under a
//! seeded 80/20 split. Declared checks: the test accuracy on every one of
//! several seeds of weights and batch order (issue 22's 0.95, which
//! scikit-learn's `MLPClassifier` clears on the same split), the
//! per-step losses of the first epoch against PyTorch's from the same initial
//! weights and batch order (recorded by `scripts/compare/nncore.py`), and
//! bit-for-bit repeatability of a seeded run.
//!
//! The seeds are fixed constants, not the runner's master seed: the PyTorch
//! and scikit-learn figures below were recorded on exactly this split,
//! initialisation (seed 1) and batch order (seed 2); the accuracy runs add
//! seeds 3, 4, … for the weights and the order.

use crate::runner::{
    BoxError, Budget, Check, Context, Figure, Outcome, Plot, Relation, Reproduction, Series,
};
use candle_core::{D, DType, Device};
use mlcore::data::Dataset;
use mlcore::sampling::seeded;
use nncore::data::{ClassificationData, LastBatch, Split, train_test_split};
use nncore::models::Mlp;
use nncore::optim::{OptimizerKind, Schedule};
use nncore::params::ParamSet;
use nncore::train::{History, TrainConfig, fit};
use nncore::{metrics, readers};
use std::time::Instant;

/// The reproduction registered as `nncore`.
pub struct Nncore;

/// Seed of the train/test split.
pub const SPLIT_SEED: u64 = 0;
/// Seed of the initial weights.
pub const INIT_SEED: u64 = 1;
/// Seed of the batch order (one shuffle per epoch).
pub const ORDER_SEED: u64 = 2;
/// Fraction of the 1,797 digits held out for testing (360 test, 1,437 train).
pub const TEST_FRACTION: f64 = 0.2;
/// Layer sizes of the MLP.
pub const SIZES: [usize; 3] = [64, 64, 10];
/// Mini-batch size (the last, smaller batch of an epoch is kept).
pub const BATCH: usize = 32;
/// AdamW learning rate (constant).
pub const LR: f64 = 1e-3;
/// AdamW decoupled weight decay (PyTorch's default).
pub const WEIGHT_DECAY: f64 = 0.01;
/// Epochs of the accuracy runs at the quick and full budgets.
pub const EPOCHS: (usize, usize) = (30, 100);
/// Seeds (initial weights and batch order) of the accuracy runs at the quick
/// and full budgets; the split stays the recorded one.
pub const SEEDS: (u64, u64) = (10, 30);
/// The accuracy the claim needs (issue 22).
pub const ACCURACY_THRESHOLD: f64 = 0.95;
/// The largest per-step loss difference against PyTorch (issue 22).
pub const TORCH_TOL: f64 = 1e-5;

/// scikit-learn 1.9.1 `MLPClassifier(hidden_layer_sizes=(64,), solver="adam",
/// learning_rate_init=1e-3, batch_size=32, max_iter=30, random_state=0)` (its
/// default L2 `alpha = 1e-4`, Glorot initialisation, its own shuffling) on the
/// same split and scaling: its test accuracy (352 of 360), recorded by
/// `scripts/compare/nncore.py`.
pub const SKLEARN_MLP_ACCURACY: f64 = 0.9777777777777777;

/// PyTorch 2.15.0 (CPU, `f32`) per-step training losses of the first epoch
/// from the same initial weights, batch order and AdamW settings, recorded by
/// `scripts/compare/nncore.py`.
pub const TORCH_EPOCH1_LOSSES: [f64; 45] = [
    2.3051435947418213,
    2.314896583557129,
    2.2717490196228027,
    2.268126964569092,
    2.267082691192627,
    2.312915802001953,
    2.291076183319092,
    2.2879621982574463,
    2.2463696002960205,
    2.2789125442504883,
    2.244813919067383,
    2.2411434650421143,
    2.246807813644409,
    2.2453250885009766,
    2.223837375640869,
    2.2209980487823486,
    2.2405641078948975,
    2.2517921924591064,
    2.230970621109009,
    2.2127885818481445,
    2.186859607696533,
    2.190256357192993,
    2.190767526626587,
    2.137122631072998,
    2.187919855117798,
    2.101121664047241,
    2.0917422771453857,
    2.1885159015655518,
    2.1587295532226562,
    2.1259706020355225,
    2.11991286277771,
    2.1302435398101807,
    2.1117608547210693,
    2.069993019104004,
    2.095952033996582,
    2.0158493518829346,
    2.1319639682769775,
    2.098588466644287,
    2.052943229675293,
    2.0626769065856934,
    1.9850177764892578,
    1.9798861742019653,
    2.0136919021606445,
    2.0745768547058105,
    2.0049657821655273,
];

/// The digits, pixels scaled to `[0, 1]`, and the seeded split.
pub struct Digits {
    /// All 1,797 examples.
    pub all: ClassificationData,
    /// The split's indices.
    pub split: Split,
    /// Training examples (in the split's order).
    pub train: ClassificationData,
    /// Test examples.
    pub test: ClassificationData,
}

/// Loads `data/digits` and splits it with [`SPLIT_SEED`].
///
/// # Errors
/// A missing or altered data file (named with its expected SHA-256), a parse error.
pub fn digits(dataset: &Dataset) -> Result<Digits, BoxError> {
    let all = readers::digits(dataset)?.scaled(1.0 / 16.0)?;
    let split = train_test_split(all.len(), TEST_FRACTION, &mut seeded(SPLIT_SEED))?;
    let train = all.subset(&split.train)?;
    let test = all.subset(&split.test)?;
    Ok(Digits {
        all,
        split,
        train,
        test,
    })
}

/// The MLP with its initial weights drawn from [`INIT_SEED`].
///
/// # Errors
/// candle errors.
pub fn initial_mlp(device: &Device) -> Result<(Mlp, ParamSet), BoxError> {
    let mut params = ParamSet::new();
    let mlp = Mlp::new(&SIZES, "fc", &mut params, &mut seeded(INIT_SEED), device)?;
    Ok((mlp, params))
}

/// The training configuration: AdamW (β = 0.9, 0.999, ε = 1e-8, λ = 0.01),
/// constant rate [`LR`], batch [`BATCH`], no clipping, no early stopping.
pub fn config(epochs: usize) -> TrainConfig {
    TrainConfig {
        epochs,
        batch_size: BATCH,
        last_batch: LastBatch::Keep,
        learning_rate: LR,
        optimizer: OptimizerKind::AdamW {
            beta1: 0.9,
            beta2: 0.999,
            eps: 1e-8,
            weight_decay: WEIGHT_DECAY,
        },
        schedule: Schedule::Constant,
        clip_norm: None,
        early_stopping: None,
        progress: false,
    }
}

/// A trained run: the network, its history and the wall-clock seconds.
pub struct Run {
    /// The trained network.
    pub mlp: Mlp,
    /// Its parameters.
    pub params: ParamSet,
    /// Per-epoch and per-step losses.
    pub history: History,
    /// Training time in seconds.
    pub seconds: f64,
}

/// Trains a fresh MLP for `epochs` with mean cross-entropy on the training
/// part, from the recorded seeds ([`INIT_SEED`], [`ORDER_SEED`]).
///
/// # Errors
/// nncore and candle errors.
pub fn train(data: &Digits, epochs: usize, device: &Device) -> Result<Run, BoxError> {
    train_seeded(data, epochs, 0, device)
}

/// As [`train`] with the initial weights from seed `INIT_SEED + 2·r` and the
/// batch order from `ORDER_SEED + 2·r` (`r = 0` is the recorded run).
///
/// # Errors
/// nncore and candle errors.
pub fn train_seeded(
    data: &Digits,
    epochs: usize,
    r: u64,
    device: &Device,
) -> Result<Run, BoxError> {
    let mut params = ParamSet::new();
    let mlp = Mlp::new(
        &SIZES,
        "fc",
        &mut params,
        &mut seeded(INIT_SEED + 2 * r),
        device,
    )?;
    let start = Instant::now();
    let history = fit(
        &params,
        data.train.len(),
        &config(epochs),
        &mut seeded(ORDER_SEED + 2 * r),
        |idx| {
            let (x, y) = data
                .train
                .batch(idx, device)
                .map_err(candle_core::Error::wrap)?;
            candle_nn::loss::cross_entropy(&mlp.forward(&x)?, &y)
        },
        None,
    )?;
    Ok(Run {
        mlp,
        params,
        history,
        seconds: start.elapsed().as_secs_f64(),
    })
}

/// Softmax probabilities of the network on `data`, in `f64`.
///
/// # Errors
/// candle errors.
pub fn probabilities(
    mlp: &Mlp,
    data: &ClassificationData,
    device: &Device,
) -> Result<ndarray::Array2<f64>, BoxError> {
    let idx: Vec<usize> = (0..data.len()).collect();
    let (x, _) = data.batch(&idx, device)?;
    let p = candle_nn::ops::softmax(&mlp.forward(&x)?.to_dtype(DType::F64)?, D::Minus1)?;
    let rows = p.to_vec2::<f64>()?;
    let k = rows.first().map_or(0, Vec::len);
    Ok(ndarray::Array2::from_shape_vec(
        (rows.len(), k),
        rows.into_iter().flatten().collect(),
    )?)
}

/// The largest `|Rust − PyTorch|` over the recorded first-epoch losses.
pub fn max_torch_difference(rust: &[f64]) -> f64 {
    if rust.len() < TORCH_EPOCH1_LOSSES.len() || TORCH_EPOCH1_LOSSES.is_empty() {
        return f64::INFINITY;
    }
    rust.iter()
        .zip(TORCH_EPOCH1_LOSSES)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max)
}

impl Reproduction for Nncore {
    fn id(&self) -> &'static str {
        "nncore"
    }

    fn paper(&self) -> &'static str {
        "nncore, the shared neural-training core (candle; AdamW of Loshchilov & Hutter, ICLR 2019)"
    }

    fn claim(&self) -> &'static str {
        "A 64→64→10 MLP trained with nncore's loop on the vendored digits reaches at least 95% test accuracy on every seed, \
         its per-step losses match PyTorch's from the same initial weights and batch order to 1e-5, and a seeded \
         run repeats bit for bit."
    }

    fn run(&self, ctx: &Context) -> Result<Outcome, BoxError> {
        let (epochs, seeds) = match ctx.budget() {
            Budget::Quick => (EPOCHS.0, SEEDS.0),
            Budget::Full => (EPOCHS.1, SEEDS.1),
        };
        ctx.set_steps(3);
        let device = Device::Cpu;
        let data = digits(&ctx.dataset("digits")?)?;
        let mut checks = Vec::new();
        let mut figures = Vec::new();

        ctx.set_message("first epoch, twice, against PyTorch");
        let a = train(&data, 1, &device)?;
        let b = train(&data, 1, &device)?;
        ctx.step();
        let differing = a
            .history
            .step_losses
            .iter()
            .zip(&b.history.step_losses)
            .filter(|(x, y)| x.to_bits() != y.to_bits())
            .count()
            + a.history
                .step_losses
                .len()
                .abs_diff(b.history.step_losses.len());
        checks.push(Check::new(
            "first-epoch step losses differing between two runs with the same seeds",
            differing as f64,
            Relation::AtMost,
            0.0,
            "issue 22 and the workspace conventions: same seed, bitwise-equal losses",
        ));
        let diff = max_torch_difference(&a.history.step_losses);
        checks.push(Check::new(
            format!(
                "max |Rust − PyTorch| per-step loss over the first epoch ({} steps, f32)",
                TORCH_EPOCH1_LOSSES.len()
            ),
            diff,
            Relation::AtMost,
            TORCH_TOL,
            "issue 22 (tolerance 1e-5); PyTorch 2.15.0 CPU losses recorded by scripts/compare/nncore.py",
        ));

        ctx.set_message(format!("{epochs} epochs × {seeds} seeds"));
        let labels = data.test.y();
        let mut accuracies = Vec::new();
        let mut recorded = None;
        for r in 0..seeds {
            let run = train_seeded(&data, epochs, r, &device)?;
            let probs = probabilities(&run.mlp, &data.test, &device)?;
            accuracies.push(metrics::accuracy(probs.view(), labels)?);
            if r == 0 {
                recorded = Some((run, probs));
            }
        }
        ctx.step();
        let worst = accuracies.iter().copied().fold(f64::INFINITY, f64::min);
        let mean = accuracies.iter().sum::<f64>() / accuracies.len() as f64;
        checks.push(
            Check::new(
                format!(
                    "worst test accuracy over {seeds} seeds of weights and batch order, {epochs} epochs ({} test digits)",
                    labels.len()
                ),
                worst,
                Relation::AtLeast,
                ACCURACY_THRESHOLD,
                format!(
                    "issue 22 (0.95, checked on every seed); scikit-learn 1.9.1 MLPClassifier reaches {SKLEARN_MLP_ACCURACY:.4} on the same split (scripts/compare/nncore.py)"
                ),
            )
            .with_seeds(seeds as usize),
        );
        let (run, probs) = recorded.ok_or("no seed ran")?;
        figures.push(Figure::new(
            format!("mean test accuracy over {seeds} seeds"),
            mean,
        ));
        figures.push(Figure::new(
            "test accuracy, recorded seeds (split 0, weights 1, order 2)",
            accuracies[0],
        ));
        figures.push(Figure::new(
            "scikit-learn MLPClassifier test accuracy, same split",
            SKLEARN_MLP_ACCURACY,
        ));
        figures.push(Figure::new(
            "test NLL (nats), recorded seeds",
            metrics::nll(probs.view(), labels)?,
        ));
        figures.push(Figure::new(
            "test ECE (15 bins), recorded seeds",
            metrics::ece(probs.view(), labels, metrics::ECE_BINS)?.ece,
        ));
        figures.push(Figure::new(
            "test Brier score, recorded seeds",
            metrics::brier(probs.view(), labels)?,
        ));
        let steps = run.history.step_losses.len();
        figures.push(Figure::new("optimiser steps per run", steps as f64));
        figures.push(Figure::new(
            "training time per step (ms)",
            1e3 * run.seconds / steps.max(1) as f64,
        ));
        ctx.step();

        let rust_series: Vec<(f64, f64)> = a
            .history
            .step_losses
            .iter()
            .enumerate()
            .map(|(i, &l)| (i as f64, l))
            .collect();
        let torch_series: Vec<(f64, f64)> = TORCH_EPOCH1_LOSSES
            .iter()
            .enumerate()
            .map(|(i, &l)| (i as f64, l))
            .collect();
        let epoch_series: Vec<(f64, f64)> = run
            .history
            .epochs
            .iter()
            .map(|e| ((e.epoch + 1) as f64, e.train_loss))
            .collect();
        Ok(Outcome {
            checks,
            figures,
            plots: vec![
                Plot {
                    title: "first epoch: per-step training loss, Rust (candle) vs PyTorch".into(),
                    x_label: "optimiser step".into(),
                    y_label: "cross-entropy".into(),
                    series: vec![
                        Series::line("nncore (candle)", rust_series),
                        Series::points("PyTorch (recorded)", torch_series),
                    ],
                    log_x: false,
                    log_y: false,
                },
                Plot {
                    title: "mean training loss per epoch".into(),
                    x_label: "epoch".into(),
                    y_label: "cross-entropy".into(),
                    series: vec![Series::line("nncore (candle)", epoch_series)],
                    log_x: false,
                    log_y: true,
                },
            ],
            notes: vec![
                "Seeds are fixed (split 0, weights 1, batch order 2), not the runner's master seed: the PyTorch and \
                 scikit-learn figures were recorded on exactly this setting. The accuracy runs use weight seeds \
                 1, 3, 5, … and batch-order seeds 2, 4, 6, … on the same split."
                    .into(),
            ],
        })
    }
}
