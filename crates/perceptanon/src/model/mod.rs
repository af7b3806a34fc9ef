//! Learned anonymity scores: the HA1 head (anonymised image only,
//! Linear → C) and the HA2 Siamese head ([e(original), e(anonymised)] →
//! 512 → ReLU → C), trained with a sigmoid-MSE loss for
//! [`LabelScale::Mean`] or a class-weighted cross-entropy for the class
//! scales, on candle through `nncore`'s training loop.
//!
//! Two backbones: [`lite::PerceptAnonLite`] on handcrafted features
//! ([`crate::features`]) and [`cnn::CnnScorer`], a small CNN trained from
//! scratch. The paper's ImageNet backbones (ResNet50 …) are not available
//! offline: a user who has weights plugs their own embedding in through
//! [`crate::features::FeatureExtractor`] and [`lite::PerceptAnonLite`].

pub mod cnn;
pub mod lite;

use candle_core::{D, DType, Device, Tensor};

use crate::error::{Error, Result};
use crate::labels::{LabelScale, Target, class_weights};

/// Which annotation setting a head is trained for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Setting {
    /// HA1: annotators saw only the anonymised image.
    Ha1,
    /// HA2: annotators saw the original–anonymised pair.
    Ha2,
}

/// Training hyper-parameters; `Default` is the official code's SGD
/// (lr 0.01, momentum 0.9, cosine schedule) with a smaller budget
/// (30 epochs, batch 32) suited to feature heads and the small CNN.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TrainParams {
    /// The label granularity.
    pub scale: LabelScale,
    /// Passes over the data (≥ 1).
    pub epochs: usize,
    /// Mini-batch size (≥ 1).
    pub batch_size: usize,
    /// Base learning rate (> 0).
    pub learning_rate: f64,
    /// SGD momentum ∈ [0, 1).
    pub momentum: f64,
    /// Weight the cross-entropy by w_c = N/N_c (the official option).
    pub class_weighted: bool,
    /// Width of the HA2 hidden layer (the paper's 512).
    pub hidden: usize,
}

impl Default for TrainParams {
    fn default() -> Self {
        Self {
            scale: LabelScale::Ten,
            epochs: 30,
            batch_size: 32,
            learning_rate: 0.01,
            momentum: 0.9,
            class_weighted: true,
            hidden: 512,
        }
    }
}

impl TrainParams {
    /// Checks the ranges: the HA2 width here, the training hyper-parameters
    /// by nncore's own check of the configuration they become
    /// ([`nncore::train::TrainConfig::check`]: epochs and batch ≥ 1, a finite
    /// rate > 0, momentum in [0, 1)).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming the first one out of range.
    pub fn check(&self) -> Result<()> {
        if self.hidden == 0 {
            return Err(Error::InvalidParameter {
                name: "hidden",
                value: 0.0,
                expected: "at least 1",
            });
        }
        self.train_config().check().map_err(|e| match e {
            nncore::Error::InvalidParameter {
                name,
                value,
                expected,
            } => Error::InvalidParameter {
                name,
                value,
                expected,
            },
            other => Error::Nncore(other),
        })
    }

    pub(crate) fn train_config(&self) -> nncore::train::TrainConfig {
        nncore::train::TrainConfig {
            epochs: self.epochs,
            batch_size: self.batch_size,
            learning_rate: self.learning_rate,
            optimizer: nncore::optim::OptimizerKind::Sgd {
                momentum: self.momentum,
                weight_decay: 0.0,
                nesterov: false,
            },
            schedule: nncore::optim::Schedule::WarmupCosine {
                warmup_steps: 0,
                final_fraction: 0.0,
            },
            progress: false,
            ..Default::default()
        }
    }
}

/// The training targets of `scores` on `scale`, as a tensor (f32 `[n]` for
/// regression, u32 `[n]` for classes) and the class weights (all 1 when
/// unweighted or for regression).
pub(crate) fn targets(
    scores: &[f64],
    params: &TrainParams,
    device: &Device,
) -> Result<(Tensor, Tensor)> {
    let c = params.scale.outputs();
    let mut reg = Vec::with_capacity(scores.len());
    let mut cls = Vec::with_capacity(scores.len());
    for (i, &s) in scores.iter().enumerate() {
        crate::labels::check_score(s, i)?;
        match params.scale.transform(s)? {
            Target::Regression(t) => reg.push(t as f32),
            Target::Class(k) => cls.push(k),
        }
    }
    if params.scale == LabelScale::Mean {
        let n = reg.len();
        return Ok((
            Tensor::from_vec(reg, n, device)?,
            Tensor::ones(1, DType::F32, device)?,
        ));
    }
    let w: Vec<f32> = if params.class_weighted {
        class_weights(&cls, c)?
            .into_iter()
            .map(|v| v as f32)
            .collect()
    } else {
        vec![1.0; c]
    };
    let n = cls.len();
    let y: Vec<u32> = cls.into_iter().map(|k| k as u32).collect();
    Ok((
        Tensor::from_vec(y, n, device)?,
        Tensor::from_vec(w, c, device)?,
    ))
}

/// The loss of a batch of head outputs `[b, C]` against targets: for
/// [`LabelScale::Mean`], mean((σ(z) − t)²); otherwise the weighted
/// cross-entropy Σᵢ w_{yᵢ}(−log softmax(zᵢ)_{yᵢ}) / Σᵢ w_{yᵢ} (PyTorch's
/// `CrossEntropyLoss(weight=w)`).
pub(crate) fn loss(
    outputs: &Tensor,
    y: &Tensor,
    weights: &Tensor,
    scale: LabelScale,
) -> candle_core::Result<Tensor> {
    if scale == LabelScale::Mean {
        let p = candle_nn::ops::sigmoid(&outputs.squeeze(1)?)?;
        return (p - y)?.sqr()?.mean_all();
    }
    let logp = candle_nn::ops::log_softmax(outputs, D::Minus1)?;
    let picked = logp.gather(&y.unsqueeze(1)?, 1)?.squeeze(1)?;
    let w = weights.index_select(y, 0)?;
    let num = (picked * &w)?.sum_all()?;
    let den = w.sum_all()?;
    num.neg()?.div(&den)
}

/// Head outputs `[n, C]` turned into per-sample outputs: σ(z) for
/// [`LabelScale::Mean`], softmax probabilities otherwise.
pub(crate) fn outputs_to_rows(outputs: &Tensor, scale: LabelScale) -> Result<Vec<Vec<f64>>> {
    let p = if scale == LabelScale::Mean {
        candle_nn::ops::sigmoid(outputs)?
    } else {
        candle_nn::ops::softmax(outputs, D::Minus1)?
    };
    let rows: Vec<Vec<f32>> = p.to_dtype(DType::F32)?.to_vec2()?;
    Ok(rows
        .into_iter()
        .map(|r| r.into_iter().map(f64::from).collect())
        .collect())
}

/// Rows of f64 features as an f32 tensor `[n, d]`.
pub(crate) fn rows_tensor(rows: &[Vec<f64>], device: &Device) -> Result<Tensor> {
    let n = rows.len();
    let d = rows.first().map_or(0, Vec::len);
    let flat: Vec<f32> = rows.iter().flatten().map(|&v| v as f32).collect();
    Ok(Tensor::from_vec(flat, (n, d), device)?)
}

/// Indices as a u32 tensor.
pub(crate) fn index_tensor(idx: &[usize], device: &Device) -> candle_core::Result<Tensor> {
    let v: Vec<u32> = idx.iter().map(|&i| i as u32).collect();
    Tensor::from_vec(v, idx.len(), device)
}
