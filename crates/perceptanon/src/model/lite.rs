//! `PerceptAnonLite`: the HA1 / HA2 heads on fixed features.

use candle_core::Device;
use rand::Rng;

use super::{Setting, TrainParams, index_tensor, loss, outputs_to_rows, rows_tensor, targets};
use crate::error::{Error, Result};
use crate::features::{FeatureExtractor, Standardizer, pair_features};
use crate::image::Image;
use crate::labels::LabelScale;

/// The input row of a head: e(anonymised) for HA1;
/// [e(original), e(anonymised), pair features] for HA2 (the pair features
/// of [`pair_features`]: SSIM, PSNR, changed area, edge-energy ratio,
/// histogram distances; an addition to the paper's plain concatenation,
/// which a frozen handcrafted backbone cannot learn to compare).
///
/// # Errors
/// The extractor's errors; [`pair_features`]' errors for HA2.
pub fn head_input(
    extractor: &dyn FeatureExtractor,
    setting: Setting,
    original: &Image,
    anonymized: &Image,
) -> Result<Vec<f64>> {
    match setting {
        Setting::Ha1 => extractor.embed(anonymized),
        Setting::Ha2 => {
            let mut row = extractor.embed(original)?;
            row.extend(extractor.embed(anonymized)?);
            row.extend(pair_features(original, anonymized)?);
            Ok(row)
        }
    }
}

/// A trained head on fixed feature rows (z-scored on the training rows):
/// HA1 = Linear(d → C); HA2 = Linear(d → hidden) → ReLU → Linear(hidden → C).
#[derive(Debug)]
pub struct PerceptAnonLite {
    setting: Setting,
    scale: LabelScale,
    standardizer: Standardizer,
    mlp: nncore::models::Mlp,
    device: Device,
    /// Training loss per epoch.
    pub epoch_losses: Vec<f64>,
}

impl PerceptAnonLite {
    /// Trains a head on `rows` (from [`head_input`]) against human scores
    /// in [1, 10] with SGD (momentum, cosine schedule) through
    /// `nncore::train::fit`. O(epochs · n · #weights).
    ///
    /// # Errors
    /// [`Error::EmptyInput`]; [`Error::SizeMismatch`] when rows and scores
    /// differ in length or rows are ragged; [`Error::ScoreOutOfRange`];
    /// [`Error::NonFinite`]; [`TrainParams::check`]'s errors; a training
    /// failure (`Error::Nncore`, e.g. a NaN loss).
    pub fn fit(
        rows: &[Vec<f64>],
        scores: &[f64],
        setting: Setting,
        params: &TrainParams,
        rng: &mut impl Rng,
    ) -> Result<Self> {
        params.check()?;
        if rows.len() != scores.len() {
            return Err(Error::SizeMismatch {
                what: "feature rows and scores",
                expected: format!("{} scores", rows.len()),
                found: format!("{} scores", scores.len()),
            });
        }
        let standardizer = Standardizer::fit(rows)?;
        let z: Vec<Vec<f64>> = rows
            .iter()
            .map(|r| standardizer.apply(r))
            .collect::<Result<_>>()?;
        let device = Device::Cpu;
        let x = rows_tensor(&z, &device)?;
        let (y, w) = targets(scores, params, &device)?;
        let d = z[0].len();
        let c = params.scale.outputs();
        let sizes: Vec<usize> = match setting {
            Setting::Ha1 => vec![d, c],
            Setting::Ha2 => vec![d, params.hidden, c],
        };
        let mut set = nncore::params::ParamSet::new();
        let mlp = nncore::models::Mlp::new(&sizes, "head.", &mut set, rng, &device)?;
        let scale = params.scale;
        let history = nncore::train::fit(
            &set,
            rows.len(),
            &params.train_config(),
            rng,
            |idx| {
                let t = index_tensor(idx, &device)?;
                let out = mlp.forward(&x.index_select(&t, 0)?)?;
                loss(&out, &y.index_select(&t, 0)?, &w, scale)
            },
            None,
        )?;
        Ok(Self {
            setting,
            scale,
            standardizer,
            mlp,
            device,
            epoch_losses: history.epochs.iter().map(|e| e.train_loss).collect(),
        })
    }

    /// The setting it was trained for.
    pub fn setting(&self) -> Setting {
        self.setting
    }

    /// Per-row outputs: σ(z) for [`LabelScale::Mean`], class probabilities
    /// otherwise. O(n · #weights).
    ///
    /// # Errors
    /// [`Error::EmptyInput`]; [`Error::SizeMismatch`] for rows of another width;
    /// [`Error::NonFinite`].
    pub fn predict(&self, rows: &[Vec<f64>]) -> Result<Vec<Vec<f64>>> {
        if rows.is_empty() {
            return Err(Error::EmptyInput {
                what: "feature rows",
            });
        }
        let z: Vec<Vec<f64>> = rows
            .iter()
            .map(|r| {
                crate::error::check_finite(r, "feature row")?;
                self.standardizer.apply(r)
            })
            .collect::<Result<_>>()?;
        let out = self.mlp.forward(&rows_tensor(&z, &self.device)?)?;
        outputs_to_rows(&out, self.scale)
    }

    /// A scalar anonymity score per row, increasing with the human score
    /// ([`LabelScale::score_of`]). O(n · #weights).
    ///
    /// # Errors
    /// As [`predict`](Self::predict).
    pub fn predict_scores(&self, rows: &[Vec<f64>]) -> Result<Vec<f64>> {
        self.predict(rows)?
            .iter()
            .map(|o| self.scale.score_of(o))
            .collect()
    }
}
