//! The digits experiment of the runner: the same ViT with softmax or
//! KEP-SVGP (Sum, Concat) attention in its last block, the same split,
//! seed, epochs and metric code; in-distribution metrics, five severities
//! of rotation and of Gaussian noise, and OOD detection against texture crops.

use crate::attention::{Combine, KepConfig};
use crate::error::{Error, Result};
use crate::evaluate::{self, Metrics, OodMetrics};
use crate::model::{LastAttention, Vit, VitConfig};
use crate::shift;
use candle_core::{DType, Device};
use ndarray::{Array2, ArrayView2, Axis};
use nncore::data::{ClassificationData, train_test_split};
use nncore::train::TrainConfig;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// The three attention variants compared.
pub const VARIANTS: [&str; 3] = ["softmax", "kep-sum", "kep-concat"];

/// Settings of one run; `Default` is the digits setting (depth 2,
/// width 64, 4 heads, `s = 8`, `rank_multi = 2`, 30 epochs, batch 64,
/// AdamW `1e-3`, 10 inference samples, 20 % test split, 300 OOD crops).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DigitsConfig {
    /// Training epochs.
    pub epochs: usize,
    /// Mini-batch size.
    pub batch_size: usize,
    /// AdamW learning rate.
    pub learning_rate: f64,
    /// Rank `s`.
    pub s: usize,
    /// Landmarks per rank.
    pub rank_multi: usize,
    /// Sampled passes averaged at test time.
    pub samples: usize,
    /// Test fraction of the split.
    pub test_fraction: f64,
    /// OOD crops per texture.
    pub ood_crops: usize,
    /// `η_ksvd` of the Sum variant (the code: 1) and the Concat one (10).
    pub eta_ksvd: (f64, f64),
    /// `η_kl` (the code: 1).
    pub eta_kl: f64,
}

impl Default for DigitsConfig {
    fn default() -> Self {
        Self {
            epochs: 30,
            batch_size: 64,
            learning_rate: 1e-3,
            s: 8,
            rank_multi: 2,
            samples: 10,
            test_fraction: 0.2,
            ood_crops: 100,
            eta_ksvd: (1.0, 10.0),
            eta_kl: 1.0,
        }
    }
}

/// The measurements of one variant.
#[derive(Debug, Clone, PartialEq)]
pub struct VariantResult {
    /// One of [`VARIANTS`].
    pub name: &'static str,
    /// In-distribution metrics.
    pub clean: Metrics,
    /// Metrics under rotation, severities 1..=5.
    pub rotation: Vec<Metrics>,
    /// Metrics under Gaussian noise, severities 1..=5.
    pub noise: Vec<Metrics>,
    /// OOD detection against the texture crops.
    pub ood: OodMetrics,
    /// Mean deterministic SVGP variance on clean test inputs and on OOD
    /// crops (zero for softmax).
    pub variance: (f64, f64),
    /// Final training loss.
    pub train_loss: f64,
    /// Training CPU seconds of the variant's thread (NaN where the clock is
    /// unavailable).
    pub seconds: f64,
}

/// Runs the three variants for one seed on `digits` (raw 0–16 pixels) with
/// `textures` (grey images in `[0, 1]`) as OOD source, one thread per
/// variant (the results do not depend on the threading: each variant has
/// its own seeded RNGs).
///
/// # Errors
/// [`Error::EmptyInput`] for no texture; [`Error::ShapeMismatch`] unless the
/// digits have 64 features; errors of training (nncore) and evaluation.
pub fn run_seed(
    digits: &ClassificationData,
    textures: &[Array2<f64>],
    config: &DigitsConfig,
    seed: u64,
) -> Result<Vec<VariantResult>> {
    if textures.is_empty() {
        return Err(Error::EmptyInput { what: "textures" });
    }
    if digits.features() != 64 {
        return Err(crate::error::shape(
            "digits",
            &[digits.len(), 64],
            &[digits.len(), digits.features()],
        ));
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let split = train_test_split(digits.len(), config.test_fraction, &mut rng)?;
    let train = digits.subset(&split.train)?;
    let test = digits.subset(&split.test)?;
    let patched = |x: ArrayView2<'_, f32>| shift::patchify(x, 8, 2);
    let train = ClassificationData::new(patched(train.x())?, train.y().to_vec(), 10)?;
    let test_x = test.x().to_owned();
    let labels = test.y().to_vec();
    let mut shifted = Vec::new();
    for k in 1..=5 {
        shifted.push(patched(
            shift::rotate(test_x.view(), 8, shift::rotation_degrees(k))?.view(),
        )?);
    }
    for k in 1..=5 {
        shifted.push(patched(
            shift::gaussian_noise(test_x.view(), shift::noise_std(k, 16.0), 16.0, &mut rng)?.view(),
        )?);
    }
    let mut ood = Array2::zeros((0, 64));
    for t in textures {
        let crops = shift::texture_crops(t.view(), config.ood_crops, 8, 16.0, &mut rng)?;
        ood.append(Axis(0), crops.view())
            .map_err(|_| Error::TooLarge { what: "ood" })?;
    }
    let ood = patched(ood.view())?;
    let clean = patched(test_x.view())?;
    let model_seed = rng.next_u64_seed();
    let inputs = Inputs {
        train: &train,
        clean: &clean,
        shifted: &shifted,
        ood: &ood,
        labels: &labels,
    };
    // The variants share nothing mutable: one thread each (their results
    // do not depend on the threading).
    let out = std::thread::scope(|scope| {
        let handles: Vec<_> = VARIANTS
            .iter()
            .map(|&name| scope.spawn(move || run_variant(name, &inputs, config, model_seed)))
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join().unwrap_or(Err(Error::InvalidParameter {
                    name: "variant thread",
                    value: 0.0,
                    expected: "a thread that does not panic",
                }))
            })
            .collect::<Result<Vec<_>>>()
    })?;
    Ok(out)
}

/// The prepared inputs shared by the variants of one seed.
#[derive(Clone, Copy)]
struct Inputs<'a> {
    train: &'a ClassificationData,
    clean: &'a Array2<f32>,
    shifted: &'a [Array2<f32>],
    ood: &'a Array2<f32>,
    labels: &'a [usize],
}

/// Trains and evaluates one variant (same initial draws for the shared
/// parts and the same batch order for every variant, from `model_seed`).
fn run_variant(
    name: &'static str,
    inputs: &Inputs<'_>,
    config: &DigitsConfig,
    model_seed: u64,
) -> Result<VariantResult> {
    let kep = |combine, eta_ksvd| {
        LastAttention::Kep(KepConfig {
            s: config.s,
            rank_multi: config.rank_multi,
            combine,
            share_variational: true,
            eta_ksvd,
            eta_kl: config.eta_kl,
        })
    };
    let last = match name {
        "softmax" => LastAttention::Softmax,
        "kep-sum" => kep(Combine::Sum, config.eta_ksvd.0),
        _ => kep(Combine::Concat, config.eta_ksvd.1),
    };
    let mut mrng = ChaCha8Rng::seed_from_u64(model_seed);
    let model = Vit::new(
        VitConfig {
            last,
            ..VitConfig::default()
        },
        DType::F32,
        &mut mrng,
        &Device::Cpu,
    )?;
    let tc = TrainConfig {
        epochs: config.epochs,
        batch_size: config.batch_size,
        learning_rate: config.learning_rate,
        progress: false,
        ..TrainConfig::default()
    };
    let start = mlcore::timing::thread_cpu_seconds();
    let history = model.fit(inputs.train, &tc, &mut mrng)?;
    let seconds = match (start, mlcore::timing::thread_cpu_seconds()) {
        (Some(a), Some(b)) => b - a,
        _ => f64::NAN,
    };
    let mut erng = ChaCha8Rng::seed_from_u64(model_seed ^ 0x5eed);
    let (p_clean, v_clean) = model.predict(inputs.clean.view(), config.samples, 256, &mut erng)?;
    let (p_ood, v_ood) = model.predict(inputs.ood.view(), config.samples, 256, &mut erng)?;
    let mut sev = Vec::new();
    for x in inputs.shifted {
        let (p, _) = model.predict(x.view(), config.samples, 256, &mut erng)?;
        sev.push(evaluate::metrics(p.view(), inputs.labels)?);
    }
    let noise = sev.split_off(5);
    Ok(VariantResult {
        name,
        clean: evaluate::metrics(p_clean.view(), inputs.labels)?,
        rotation: sev,
        noise,
        ood: evaluate::ood(p_clean.view(), p_ood.view())?,
        variance: (v_clean.mean().unwrap_or(0.0), v_ood.mean().unwrap_or(0.0)),
        train_loss: history.epochs.last().map_or(f64::NAN, |e| e.train_loss),
        seconds,
    })
}

trait NextSeed {
    fn next_u64_seed(&mut self) -> u64;
}

impl NextSeed for ChaCha8Rng {
    fn next_u64_seed(&mut self) -> u64 {
        use rand::Rng;
        self.next_u64()
    }
}
