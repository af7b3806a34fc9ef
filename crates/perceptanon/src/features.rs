//! Handcrafted image descriptors: the backbone of `PerceptAnonLite`.
//!
//! No package registry ships ImageNet backbones or LPIPS/FID weights, so
//! the learned scores of this crate run on features computed here (or on
//! a user's own extractor through [`FeatureExtractor`], for instance a
//! ResNet whose safetensors weights they load into candle).

use crate::error::{Error, Result};
use crate::image::Image;
use crate::iqa::{SsimParams, mse, ssim};

/// An embedding e(x) ∈ ℝᵈ of one image: the backbone the HA1 and HA2
/// heads sit on.
pub trait FeatureExtractor {
    /// The dimension d.
    fn dim(&self) -> usize;

    /// The embedding of `image`.
    ///
    /// # Errors
    /// Implementation-defined (e.g. an image too small).
    fn embed(&self, image: &Image) -> Result<Vec<f64>>;
}

/// Bins of the luminance histogram in [`Handcrafted`].
pub const HIST_BINS: usize = 8;

/// Mean squared Sobel-free central-difference gradient
/// E = (1/N) Σ (∂ₓY)² + (∂ᵧY)² of the luminance Y (edge energy). O(h·w).
fn gradients(y: &[f64], h: usize, w: usize) -> Vec<f64> {
    let mut g = vec![0.0; h * w];
    for i in 0..h {
        for j in 0..w {
            let gx = if w > 1 {
                y[i * w + (j + 1).min(w - 1)] - y[i * w + j.saturating_sub(1)]
            } else {
                0.0
            };
            let gy = if h > 1 {
                y[(i + 1).min(h - 1) * w + j] - y[i.saturating_sub(1) * w + j]
            } else {
                0.0
            };
            g[i * w + j] = 0.25 * (gx * gx + gy * gy);
        }
    }
    g
}

/// The edge energy (mean squared central-difference gradient of the
/// luminance), O(h·w).
pub fn edge_energy(image: &Image) -> f64 {
    let y = image.to_grey().plane(0);
    let g = gradients(&y, image.height(), image.width());
    g.iter().sum::<f64>() / g.len() as f64
}

/// Normalised luminance histogram with [`HIST_BINS`] equal bins on [0, 1]
/// (values outside are clamped). O(h·w).
pub fn luminance_histogram(image: &Image) -> Vec<f64> {
    let y = image.to_grey().plane(0);
    let mut h = vec![0.0; HIST_BINS];
    for v in &y {
        let b = ((v.clamp(0.0, 1.0) * HIST_BINS as f64) as usize).min(HIST_BINS - 1);
        h[b] += 1.0;
    }
    let n = y.len() as f64;
    h.iter_mut().for_each(|v| *v /= n);
    h
}

/// Single-image descriptors (d = 6 + [`HIST_BINS`]): log edge energy, log
/// variance of the discrete Laplacian (sharpness), fraction of flat pixels
/// (gradient energy < 10⁻⁵), fraction of near-black pixels (Y < 0.02),
/// luminance mean and standard deviation, and the luminance histogram.
/// Defined for images in [0, 1]. O(h·w).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Handcrafted;

impl FeatureExtractor for Handcrafted {
    fn dim(&self) -> usize {
        6 + HIST_BINS
    }

    fn embed(&self, image: &Image) -> Result<Vec<f64>> {
        let (h, w) = (image.height(), image.width());
        let y = image.to_grey().plane(0);
        let g = gradients(&y, h, w);
        let n = y.len() as f64;
        let energy = g.iter().sum::<f64>() / n;
        let mut lap = Vec::with_capacity(y.len());
        for i in 0..h {
            for j in 0..w {
                let c = y[i * w + j];
                let up = y[i.saturating_sub(1) * w + j];
                let down = y[(i + 1).min(h - 1) * w + j];
                let left = y[i * w + j.saturating_sub(1)];
                let right = y[i * w + (j + 1).min(w - 1)];
                lap.push(up + down + left + right - 4.0 * c);
            }
        }
        let lm = lap.iter().sum::<f64>() / n;
        let lvar = lap.iter().map(|v| (v - lm) * (v - lm)).sum::<f64>() / n;
        let flat = g.iter().filter(|&&v| v < 1e-5).count() as f64 / n;
        let dark = y.iter().filter(|&&v| v < 0.02).count() as f64 / n;
        let mean = y.iter().sum::<f64>() / n;
        let sd = (y.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / n).sqrt();
        let mut f = vec![
            (energy + 1e-8).ln(),
            (lvar + 1e-8).ln(),
            flat,
            dark,
            mean,
            sd,
        ];
        f.extend(luminance_histogram(image));
        crate::error::check_finite(&f, "handcrafted features")?;
        Ok(f)
    }
}

/// Full-reference descriptors of an (original, anonymised) pair (d = 6):
/// SSIM (standard preset), PSNR/100
/// (capped at 100 dB), the changed area (fraction of pixels whose absolute
/// difference in any channel exceeds 1/255), the log ratio of edge energies
/// ln((E_anon + ε)/(E_orig + ε)), the L1 distance of luminance histograms
/// and the Bhattacharyya distance −ln Σ √(pₖqₖ). Images smaller than the
/// 11-pixel SSIM window use the largest odd window that fits (≥ 3).
/// O(h·w·c·11).
///
/// # Errors
/// [`Error::SizeMismatch`] for different shapes; [`Error::BadWindow`] for
/// images under 3 pixels on a side.
pub fn pair_features(original: &Image, anonymized: &Image) -> Result<Vec<f64>> {
    let side = original.height().min(original.width());
    let mut params = SsimParams::standard();
    if side < 11 {
        params.win = if side % 2 == 1 {
            side
        } else {
            side.saturating_sub(1)
        };
    }
    let s = ssim(original, anonymized, &params)?;
    let m = mse(original, anonymized)?;
    let p = if m == 0.0 {
        100.0
    } else {
        (10.0 * (1.0 / m).log10()).min(100.0)
    };
    let changed = {
        let (a, b) = (original.view(), anonymized.view());
        let (h, w) = (original.height(), original.width());
        let mut count = 0usize;
        for i in 0..h {
            for j in 0..w {
                let diff = (0..original.channels())
                    .any(|c| (a[[i, j, c]] - b[[i, j, c]]).abs() > 1.0 / 255.0);
                count += usize::from(diff);
            }
        }
        count as f64 / (h * w) as f64
    };
    let eo = edge_energy(original);
    let ea = edge_energy(anonymized);
    let ho = luminance_histogram(original);
    let ha = luminance_histogram(anonymized);
    let l1: f64 = ho.iter().zip(&ha).map(|(a, b)| (a - b).abs()).sum();
    let bc: f64 = ho.iter().zip(&ha).map(|(a, b)| (a * b).sqrt()).sum();
    let f = vec![
        s,
        p / 100.0,
        changed,
        ((ea + 1e-8) / (eo + 1e-8)).ln(),
        l1,
        -(bc.max(1e-12)).ln(),
    ];
    crate::error::check_finite(&f, "pair features")?;
    Ok(f)
}

/// Z-scoring fitted on training rows: xⱼ ← (xⱼ − μⱼ)/σⱼ (σⱼ = 1 for a
/// constant column).
#[derive(Debug, Clone, PartialEq)]
pub struct Standardizer {
    mean: Vec<f64>,
    sd: Vec<f64>,
}

impl Standardizer {
    /// Fits means and standard deviations of the rows. O(n·d).
    ///
    /// # Errors
    /// [`Error::EmptyInput`]; [`Error::SizeMismatch`] for ragged rows;
    /// [`Error::NonFinite`].
    pub fn fit(rows: &[Vec<f64>]) -> Result<Self> {
        let d = rows
            .first()
            .ok_or(Error::EmptyInput {
                what: "feature rows",
            })?
            .len();
        for r in rows {
            if r.len() != d {
                return Err(Error::SizeMismatch {
                    what: "feature rows",
                    expected: format!("{d} values"),
                    found: format!("{} values", r.len()),
                });
            }
            crate::error::check_finite(r, "feature row")?;
        }
        let n = rows.len() as f64;
        let mean: Vec<f64> = (0..d)
            .map(|j| rows.iter().map(|r| r[j]).sum::<f64>() / n)
            .collect();
        let sd = (0..d)
            .map(|j| {
                let v = rows.iter().map(|r| (r[j] - mean[j]).powi(2)).sum::<f64>() / n;
                if v > 1e-24 { v.sqrt() } else { 1.0 }
            })
            .collect();
        Ok(Self { mean, sd })
    }

    /// The standardised copy of `row`.
    ///
    /// # Errors
    /// [`Error::SizeMismatch`] for a row of another width.
    pub fn apply(&self, row: &[f64]) -> Result<Vec<f64>> {
        if row.len() != self.mean.len() {
            return Err(Error::SizeMismatch {
                what: "feature row",
                expected: format!("{} values", self.mean.len()),
                found: format!("{} values", row.len()),
            });
        }
        Ok(row
            .iter()
            .zip(self.mean.iter().zip(&self.sd))
            .map(|(x, (m, s))| (x - m) / s)
            .collect())
    }
}
