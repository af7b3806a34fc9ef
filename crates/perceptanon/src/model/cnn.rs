//! A small CNN backbone trained from scratch with the HA1 / HA2 heads.

use candle_core::{DType, Device, Tensor, Var};
use rand::Rng;

use super::{Setting, TrainParams, index_tensor, loss, outputs_to_rows, targets};
use crate::error::{Error, Result};
use crate::features::FeatureExtractor;
use crate::image::Image;
use crate::labels::LabelScale;

/// Architecture of [`CnnScorer`]: `layers` 3×3 convolutions of `channels`
/// filters, stride 2, padding 1, ReLU, then global average pooling, on
/// `size × size` RGB inputs (grey images are replicated to three channels;
/// pixels normalised as (x − 0.45)/0.225).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CnnParams {
    /// Input side S (8 ≤ S ≤ 1024, a multiple of 2^layers).
    pub size: usize,
    /// Filters per layer (≥ 1).
    pub channels: usize,
    /// Convolution layers (1 ≤ layers ≤ 6; each halves the side).
    pub layers: usize,
    /// Head and optimiser.
    pub train: TrainParams,
}

impl Default for CnnParams {
    /// 32 × 32 inputs, 3 layers × 16 channels; [`TrainParams::default`]
    /// with the paper's batch of 128 and a learning rate of 0.05 (the
    /// paper's 0.01 fine-tunes a pretrained backbone for 200 epochs; this
    /// network starts from scratch with 30).
    fn default() -> Self {
        Self {
            size: 32,
            channels: 16,
            layers: 3,
            train: TrainParams {
                batch_size: 128,
                learning_rate: 0.05,
                ..TrainParams::default()
            },
        }
    }
}

impl CnnParams {
    /// Checks the ranges.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`]; [`TrainParams::check`]'s errors.
    pub fn check(&self) -> Result<()> {
        let bad = |name, value: usize, expected| {
            Err(Error::InvalidParameter {
                name,
                value: value as f64,
                expected,
            })
        };
        if !(8..=1024).contains(&self.size) {
            return bad("size", self.size, "8 ≤ size ≤ 1024");
        }
        if !(1..=256).contains(&self.channels) {
            return bad("channels", self.channels, "1 ≤ channels ≤ 256");
        }
        if !(1..=6).contains(&self.layers) {
            return bad("layers", self.layers, "1 ≤ layers ≤ 6");
        }
        if !self.size.is_multiple_of(1 << self.layers) {
            return bad("size", self.size, "a multiple of 2^layers");
        }
        self.train.check()
    }
}

/// Images → normalised `[n, S, S, 3]` (NHWC) f32 tensor.
fn batch_tensor(images: &[Image], size: usize, device: &Device) -> Result<Tensor> {
    crate::error::alloc_len(&[images.len(), 3, size, size], 4, "CNN input batch")?;
    let mut flat = Vec::with_capacity(images.len() * 3 * size * size);
    for im in images {
        let r = im.resize(size, size)?;
        let v = r.view();
        for i in 0..size {
            for j in 0..size {
                for c in 0..3 {
                    let src = if r.channels() >= 3 { c } else { 0 };
                    flat.push(((v[[i, j, src]] - 0.45) / 0.225) as f32);
                }
            }
        }
    }
    Ok(Tensor::from_vec(
        flat,
        (images.len(), size, size, 3),
        device,
    )?)
}

/// 3×3 convolution, padding 1, stride 2, on NHWC as nine shifted matrix
/// products (Σ_{di,dj} X[2i+di, 2j+dj, :] · W[:, :, di, dj]ᵀ): candle's
/// `conv2d` backward goes through a direct `conv_transpose2d` that is two
/// orders of magnitude slower on CPU than these GEMMs.
fn conv3x3_s2(x: &Tensor, w: &Var, b: &Var) -> candle_core::Result<Tensor> {
    let (n, h, wd, cin) = x.dims4()?;
    let cout = w.dims()[0];
    let (ho, wo) = (h / 2, wd / 2);
    let xp = x.pad_with_zeros(1, 1, 1)?.pad_with_zeros(2, 1, 1)?;
    let mut acc: Option<Tensor> = None;
    for di in 0..3 {
        for dj in 0..3 {
            let patch = xp
                .narrow(1, di, 2 * ho)?
                .narrow(2, dj, 2 * wo)?
                .contiguous()?
                .reshape((n, ho, 2, wo, 2, cin))?
                .narrow(2, 0, 1)?
                .narrow(4, 0, 1)?
                .contiguous()?
                .reshape((n * ho * wo, cin))?;
            let wk = w
                .narrow(2, di, 1)?
                .narrow(3, dj, 1)?
                .reshape((cout, cin))?
                .t()?;
            let y = patch.matmul(&wk)?;
            acc = Some(match acc {
                Some(a) => (a + y)?,
                None => y,
            });
        }
    }
    let out = match acc {
        Some(a) => a,
        None => return Err(candle_core::Error::Msg("empty kernel".into())),
    };
    out.broadcast_add(b)?.relu()?.reshape((n, ho, wo, cout))
}

/// The CNN scorer: backbone e(·) and HA1 or HA2 head, trained end to end.
#[derive(Debug)]
pub struct CnnScorer {
    setting: Setting,
    scale: LabelScale,
    size: usize,
    convs: Vec<(Var, Var)>,
    head: nncore::models::Mlp,
    device: Device,
    /// Training loss per epoch.
    pub epoch_losses: Vec<f64>,
}

fn embed_tensor(convs: &[(Var, Var)], x: &Tensor) -> candle_core::Result<Tensor> {
    let mut h = x.clone();
    for (w, b) in convs {
        h = conv3x3_s2(&h, w, b)?;
    }
    // Global average pooling over the spatial axes of NHWC.
    h.mean(1)?.mean(1)
}

impl CnnScorer {
    /// Trains backbone and head on (original, anonymised) pairs against
    /// scores in [1, 10] (HA1 uses only the anonymised images).
    /// O(epochs · n · S² · channels² · 9 / 3).
    ///
    /// # Errors
    /// [`Error::EmptyInput`]; [`Error::SizeMismatch`] for lists of different
    /// lengths; [`Error::ScoreOutOfRange`]; [`CnnParams::check`]'s errors;
    /// training failures.
    pub fn fit(
        originals: &[Image],
        anonymized: &[Image],
        scores: &[f64],
        setting: Setting,
        params: &CnnParams,
        rng: &mut impl Rng,
    ) -> Result<Self> {
        params.check()?;
        if anonymized.is_empty() {
            return Err(Error::EmptyInput { what: "images" });
        }
        if originals.len() != anonymized.len() || scores.len() != anonymized.len() {
            return Err(Error::SizeMismatch {
                what: "originals, anonymised images and scores",
                expected: format!("{} of each", anonymized.len()),
                found: format!("{} originals, {} scores", originals.len(), scores.len()),
            });
        }
        let device = Device::Cpu;
        let xa = batch_tensor(anonymized, params.size, &device)?;
        let xo = match setting {
            Setting::Ha2 => Some(batch_tensor(originals, params.size, &device)?),
            Setting::Ha1 => None,
        };
        let (y, w) = targets(scores, &params.train, &device)?;
        let mut set = nncore::params::ParamSet::new();
        let mut convs = Vec::with_capacity(params.layers);
        let mut cin = 3;
        for l in 0..params.layers {
            let shape = [params.channels, cin, 3, 3];
            let wt = nncore::init::kaiming_uniform(&shape, 2f64.sqrt(), rng, &device)?;
            let bt = Tensor::zeros(params.channels, DType::F32, &device)?;
            convs.push((
                set.add(format!("conv{l}.weight"), &wt)?,
                set.add(format!("conv{l}.bias"), &bt)?,
            ));
            cin = params.channels;
        }
        let c = params.train.scale.outputs();
        let sizes = match setting {
            Setting::Ha1 => vec![params.channels, c],
            Setting::Ha2 => vec![2 * params.channels, params.train.hidden, c],
        };
        let head = nncore::models::Mlp::new(&sizes, "head.", &mut set, rng, &device)?;
        let scale = params.train.scale;
        let history = nncore::train::fit(
            &set,
            anonymized.len(),
            &params.train.train_config(),
            rng,
            |idx| {
                let t = index_tensor(idx, &device)?;
                let ea = embed_tensor(&convs, &xa.index_select(&t, 0)?)?;
                let e = match &xo {
                    Some(xo) => {
                        let eo = embed_tensor(&convs, &xo.index_select(&t, 0)?)?;
                        Tensor::cat(&[&eo, &ea], 1)?
                    }
                    None => ea,
                };
                loss(&head.forward(&e)?, &y.index_select(&t, 0)?, &w, scale)
            },
            None,
        )?;
        Ok(Self {
            setting,
            scale,
            size: params.size,
            convs,
            head,
            device,
            epoch_losses: history.epochs.iter().map(|e| e.train_loss).collect(),
        })
    }

    /// Per-pair outputs (σ(z) or class probabilities). O(n · forward).
    ///
    /// # Errors
    /// [`Error::EmptyInput`]; [`Error::SizeMismatch`] for lists of
    /// different lengths.
    pub fn predict(&self, originals: &[Image], anonymized: &[Image]) -> Result<Vec<Vec<f64>>> {
        if anonymized.is_empty() {
            return Err(Error::EmptyInput { what: "images" });
        }
        if self.setting == Setting::Ha2 && originals.len() != anonymized.len() {
            return Err(Error::SizeMismatch {
                what: "originals and anonymised images",
                expected: format!("{}", anonymized.len()),
                found: format!("{}", originals.len()),
            });
        }
        let ea = embed_tensor(
            &self.convs,
            &batch_tensor(anonymized, self.size, &self.device)?,
        )?;
        let e = if self.setting == Setting::Ha2 {
            let eo = embed_tensor(
                &self.convs,
                &batch_tensor(originals, self.size, &self.device)?,
            )?;
            Tensor::cat(&[&eo, &ea], 1)?
        } else {
            ea
        };
        outputs_to_rows(&self.head.forward(&e)?, self.scale)
    }

    /// Scalar anonymity scores ([`LabelScale::score_of`]).
    ///
    /// # Errors
    /// As [`predict`](Self::predict).
    pub fn predict_scores(&self, originals: &[Image], anonymized: &[Image]) -> Result<Vec<f64>> {
        self.predict(originals, anonymized)?
            .iter()
            .map(|o| self.scale.score_of(o))
            .collect()
    }
}

impl FeatureExtractor for CnnScorer {
    fn dim(&self) -> usize {
        self.convs.first().map_or(0, |c| c.0.dims()[0])
    }

    fn embed(&self, image: &Image) -> Result<Vec<f64>> {
        let x = batch_tensor(std::slice::from_ref(image), self.size, &self.device)?;
        let e: Vec<Vec<f32>> = embed_tensor(&self.convs, &x)?.to_vec2()?;
        Ok(e[0].iter().map(|&v| f64::from(v)).collect())
    }
}
