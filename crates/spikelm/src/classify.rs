//! A sequence-classification head on the (spiking or ANN) encoder, for
//! fine-tuning (the paper fine-tunes its spiking BERT on GLUE).
//!
//! ```text
//! h = encoder(ids)            [B, L, d]   (LN of the mean over T, as for the LM)
//! z = mean_L(h)·W + b         [B, C]      (mean pooling over positions, a dense head)
//! ```
//!
//! Fine-tuning trains the head and the whole encoder with nncore's loop on
//! the cross-entropy of the labels. Sequences shorter than the window are
//! tiled ([`tile`]) so no padding mask is needed.

use crate::error::{Error, Result};
use crate::model::SpikeLm;
use crate::stats::SpikeStats;
use candle_core::{D, DType, Device, Tensor, Var};
use nncore::train::{History, TrainConfig, fit};
use rand::Rng;

/// The first `len` ids of `ids` repeated cyclically with `sep` between
/// repetitions (`ids = [a, b]`, `sep = s`, `len = 5` → `a b s a b`), or the
/// first `len` ids of a longer sequence. O(len).
///
/// # Errors
/// [`Error::Empty`] for empty `ids` or `len = 0`.
pub fn tile(ids: &[u32], sep: u32, len: usize) -> Result<Vec<u32>> {
    if ids.is_empty() || len == 0 {
        return Err(Error::Empty("sequence to tile"));
    }
    mlcore::check::alloc_len(&[len], 4, "tiled sequence")?;
    Ok(ids
        .iter()
        .copied()
        .chain(std::iter::once(sep))
        .cycle()
        .take(len)
        .collect())
}

/// A classifier: an encoder and a dense head on its mean-pooled output.
#[derive(Debug)]
pub struct SeqClassifier {
    lm: SpikeLm,
    w: Var,
    b: Var,
    classes: usize,
}

impl SeqClassifier {
    /// A head with `classes ≥ 2` outputs (weights `N(0, 0.02²)`, bias 0) on
    /// `lm`, registered among the encoder's parameters as `cls.w`, `cls.b`.
    /// The encoder must be initialised (pretrained, or [`SpikeLm::initialize`]d).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for `classes < 2`; [`Error::Uninitialized`]; nncore's.
    pub fn new<R: Rng + ?Sized>(mut lm: SpikeLm, classes: usize, rng: &mut R) -> Result<Self> {
        if classes < 2 {
            return Err(Error::InvalidParameter {
                name: "classes",
                value: classes.to_string(),
                expected: "at least 2",
            });
        }
        if !lm.is_initialized() {
            return Err(Error::Uninitialized);
        }
        let d = lm.config().d_model;
        mlcore::check::alloc_len(&[d, classes], 4, "classifier head")?;
        let dev = Device::Cpu;
        let w = nncore::init::normal(&[d, classes], 0.0, 0.02, rng, &dev)?;
        let w = lm.params_mut().add("cls.w", &w)?;
        let b = lm
            .params_mut()
            .add("cls.b", &Tensor::zeros(classes, DType::F32, &dev)?)?;
        Ok(SeqClassifier { lm, w, b, classes })
    }

    /// The encoder.
    pub fn encoder(&self) -> &SpikeLm {
        &self.lm
    }

    /// Logits `[B, C]` of `batch` sequences of equal length (`ids` row-major)
    /// and the spike and operation counts. O(forward).
    ///
    /// # Errors
    /// As [`SpikeLm::forward`].
    pub fn logits(&self, ids: &[u32], batch: usize) -> Result<(Tensor, SpikeStats)> {
        let (h, mut stats) = self.lm.encode(ids, batch)?;
        let d = h.dim(2)?;
        stats.mac_ops += (batch * d * self.classes) as u64;
        let z = h
            .mean(1)?
            .matmul(self.w.as_tensor())?
            .broadcast_add(self.b.as_tensor())?;
        Ok((z, stats))
    }

    fn check(&self, seqs: &[Vec<u32>], labels: &[usize]) -> Result<usize> {
        if seqs.is_empty() {
            return Err(Error::Empty("labelled sequences"));
        }
        if seqs.len() != labels.len() {
            return Err(Error::ShapeMismatch {
                what: "labels",
                expected: seqs.len().to_string(),
                got: labels.len().to_string(),
            });
        }
        let l = seqs[0].len();
        if let Some(s) = seqs.iter().find(|s| s.len() != l) {
            return Err(Error::ShapeMismatch {
                what: "sequence length",
                expected: l.to_string(),
                got: s.len().to_string(),
            });
        }
        if let Some(&y) = labels.iter().find(|&&y| y >= self.classes) {
            return Err(Error::InvalidParameter {
                name: "label",
                value: y.to_string(),
                expected: "an index below the number of classes",
            });
        }
        Ok(l)
    }

    fn batch_loss(&self, seqs: &[&Vec<u32>], labels: &[usize]) -> Result<Tensor> {
        let ids: Vec<u32> = seqs.iter().flat_map(|s| s.iter().copied()).collect();
        let (z, _) = self.logits(&ids, seqs.len())?;
        let y: Vec<u32> = labels.iter().map(|&y| y as u32).collect();
        let y = Tensor::from_vec(y, seqs.len(), &Device::Cpu)?;
        Ok(candle_nn::loss::cross_entropy(&z, &y)?)
    }

    /// Fine-tunes head and encoder on `(seqs, labels)` (all sequences of one
    /// length ≤ context; labels `< classes`) with nncore's loop and `config`.
    /// O(epochs · n · forward).
    ///
    /// # Errors
    /// [`Error::Empty`], [`Error::ShapeMismatch`] (lengths, label count),
    /// [`Error::InvalidParameter`] (a label out of range); the model's and nncore's errors.
    pub fn fine_tune<R: Rng + ?Sized>(
        &mut self,
        seqs: &[Vec<u32>],
        labels: &[usize],
        config: &TrainConfig,
        rng: &mut R,
    ) -> Result<History> {
        self.check(seqs, labels)?;
        config.check()?;
        let this = &*self;
        Ok(fit(
            this.lm.params(),
            seqs.len(),
            config,
            rng,
            |idx| {
                let s: Vec<&Vec<u32>> = idx.iter().map(|&i| &seqs[i]).collect();
                let y: Vec<usize> = idx.iter().map(|&i| labels[i]).collect();
                this.batch_loss(&s, &y).map_err(candle_core::Error::wrap)
            },
            None,
        )?)
    }

    /// The fraction of `seqs` whose arg-max logit is the label, and the
    /// counts. O(n · forward).
    ///
    /// # Errors
    /// As [`Self::fine_tune`].
    pub fn accuracy(&self, seqs: &[Vec<u32>], labels: &[usize]) -> Result<(f64, SpikeStats)> {
        self.check(seqs, labels)?;
        let (mut right, mut stats) = (0usize, SpikeStats::default());
        for (s, y) in seqs.chunks(64).zip(labels.chunks(64)) {
            let ids: Vec<u32> = s.iter().flat_map(|s| s.iter().copied()).collect();
            let (z, st) = self.logits(&ids, s.len())?;
            stats += st;
            let pred = z.argmax(D::Minus1)?.to_vec1::<u32>()?;
            right += pred
                .iter()
                .zip(y)
                .filter(|(p, y)| **p as usize == **y)
                .count();
        }
        Ok((right as f64 / seqs.len() as f64, stats))
    }
}
