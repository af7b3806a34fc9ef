//! Classical full-reference image metrics the paper correlates with human
//! judgement: MSE, PSNR and SSIM (Wang et al., IEEE TIP 2004).
//!
//! SSIM follows scikit-image's `structural_similarity` (the paper's
//! baseline): local means, variances and covariance from a window, the map
//! S = (2μₓμᵧ + C₁)(2σₓᵧ + C₂) / ((μₓ² + μᵧ² + C₁)(σₓ² + σᵧ² + C₂)) with
//! C₁ = (K₁L)², C₂ = (K₂L)², averaged over the pixels at least r = (win−1)/2
//! from the border and over channels. Only those pixels are ever needed, so
//! no boundary extension is computed (scikit-image filters the whole image
//! and then crops: the same numbers).

use crate::error::{Error, Result};
use crate::filter::gaussian_kernel;
use crate::image::Image;

fn check_same(a: &Image, b: &Image) -> Result<()> {
    if a.view().shape() != b.view().shape() {
        return Err(Error::SizeMismatch {
            what: "the two images",
            expected: format!("{:?}", a.view().shape()),
            found: format!("{:?}", b.view().shape()),
        });
    }
    Ok(())
}

fn check_range(data_range: f64) -> Result<()> {
    if data_range.is_finite() && data_range > 0.0 {
        Ok(())
    } else {
        Err(Error::InvalidParameter {
            name: "data_range",
            value: data_range,
            expected: "a finite value > 0",
        })
    }
}

/// Mean squared error MSE = (1/N) Σ (aᵢ − bᵢ)² over all N = h·w·c values.
/// O(N).
///
/// # Errors
/// [`Error::SizeMismatch`] when the shapes differ; [`Error::NonFinite`] when
/// the sum overflows.
pub fn mse(a: &Image, b: &Image) -> Result<f64> {
    check_same(a, b)?;
    let n = a.view().len() as f64;
    let s: f64 = a
        .view()
        .iter()
        .zip(b.view().iter())
        .map(|(x, y)| (x - y) * (x - y))
        .sum();
    if !s.is_finite() {
        return Err(Error::NonFinite {
            what: "squared error sum",
            index: 0,
        });
    }
    Ok(s / n)
}

/// Peak signal-to-noise ratio PSNR = 10 log₁₀(L² / MSE) in dB, with L the
/// data range (1 for images in [0, 1], 255 for 8-bit); +∞ for identical
/// images (scikit-image's `peak_signal_noise_ratio`). O(N).
///
/// # Errors
/// As [`mse`]; [`Error::InvalidParameter`] for `data_range` not finite > 0.
pub fn psnr(a: &Image, b: &Image, data_range: f64) -> Result<f64> {
    check_range(data_range)?;
    let m = mse(a, b)?;
    if m == 0.0 {
        return Ok(f64::INFINITY);
    }
    Ok(10.0 * (data_range * data_range / m).log10())
}

/// Hyper-parameters of [`ssim`].
///
/// `win` is the window side (odd, ≥ 3); `sigma = Some(σ)` gives a Gaussian
/// window of radius (win − 1)/2 (scikit-image's `gaussian_weights=True`,
/// whose window is 2·⌊3.5σ + 0.5⌋ + 1: `win = 11` for σ = 1.5), `None` a
/// uniform one. `sample_cov` divides the local (co)variances by
/// NP − 1 instead of NP (NP = win²; scikit-image's `use_sample_covariance`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SsimParams {
    /// Window side (odd, 3 ≤ win ≤ min(height, width)).
    pub win: usize,
    /// Gaussian σ > 0 of the window, or `None` for a uniform window.
    pub sigma: Option<f64>,
    /// K₁ ∈ (0, 1): C₁ = (K₁·L)².
    pub k1: f64,
    /// K₂ ∈ (0, 1): C₂ = (K₂·L)².
    pub k2: f64,
    /// Sample (NP − 1) rather than population normalisation of the local moments.
    pub sample_cov: bool,
    /// Data range L > 0 of the images (1 for [0, 1]).
    pub data_range: f64,
}

impl Default for SsimParams {
    /// [`SsimParams::standard`].
    fn default() -> Self {
        Self::standard()
    }
}

impl SsimParams {
    /// Wang et al.'s setting: Gaussian window 11, σ = 1.5, K₁ = 0.01,
    /// K₂ = 0.03, population covariance, L = 1 (scikit-image with
    /// `gaussian_weights=True, use_sample_covariance=False, data_range=1`).
    pub fn standard() -> Self {
        Self {
            win: 11,
            sigma: Some(1.5),
            k1: 0.01,
            k2: 0.03,
            sample_cov: false,
            data_range: 1.0,
        }
    }

    /// The official PerceptAnon code's call: as [`standard`](Self::standard)
    /// but K₁ = 0.01² and K₂ = 0.03² (the constants are squared once more
    /// inside SSIM, so C₁ = 10⁻⁸ instead of 10⁻⁴). Kept for comparability
    /// with the paper's SSIM baseline; it is not Wang et al.'s SSIM.
    pub fn perceptanon_compat() -> Self {
        Self {
            k1: 0.01 * 0.01,
            k2: 0.03 * 0.03,
            ..Self::standard()
        }
    }

    /// scikit-image's defaults: uniform 7×7 window, sample covariance,
    /// K₁ = 0.01, K₂ = 0.03, L = 1.
    pub fn skimage_default() -> Self {
        Self {
            win: 7,
            sigma: None,
            k1: 0.01,
            k2: 0.03,
            sample_cov: true,
            data_range: 1.0,
        }
    }

    /// Checks the parameters (the window against the image in [`ssim`]).
    ///
    /// # Errors
    /// [`Error::BadWindow`] for an even window or one below 3;
    /// [`Error::InvalidParameter`] for σ, K₁, K₂ or L out of range.
    pub fn check(&self) -> Result<()> {
        if self.win < 3 || self.win.is_multiple_of(2) {
            return Err(Error::BadWindow {
                win: self.win,
                reason: "the window side must be odd and at least 3".into(),
            });
        }
        if let Some(s) = self.sigma
            && !(s.is_finite() && s > 0.0)
        {
            return Err(Error::InvalidParameter {
                name: "sigma",
                value: s,
                expected: "a finite value > 0",
            });
        }
        for (name, k) in [("k1", self.k1), ("k2", self.k2)] {
            if !(k > 0.0 && k < 1.0) {
                return Err(Error::InvalidParameter {
                    name,
                    value: k,
                    expected: "a value in (0, 1)",
                });
            }
        }
        check_range(self.data_range)
    }
}

/// Mean SSIM of one channel (row-major `h × w` planes). Fused separable
/// filtering of the five moments over the interior only.
fn ssim_plane(x: &[f64], y: &[f64], h: usize, w: usize, kernel: &[f64], p: &SsimParams) -> f64 {
    let r = kernel.len() / 2;
    let (ow, oh) = (w - 2 * r, h - 2 * r);
    // Horizontal pass: for every row, the interior columns.
    let mut hz = vec![[0.0f64; 5]; h * ow];
    for i in 0..h {
        let xr = &x[i * w..(i + 1) * w];
        let yr = &y[i * w..(i + 1) * w];
        for j in 0..ow {
            let mut acc = [0.0; 5];
            for (k, &wk) in kernel.iter().enumerate() {
                let (a, b) = (xr[j + k], yr[j + k]);
                acc[0] += wk * a;
                acc[1] += wk * b;
                acc[2] += wk * (a * a);
                acc[3] += wk * (b * b);
                acc[4] += wk * (a * b);
            }
            hz[i * ow + j] = acc;
        }
    }
    let np = (p.win * p.win) as f64;
    let cov_norm = if p.sample_cov { np / (np - 1.0) } else { 1.0 };
    let c1 = (p.k1 * p.data_range).powi(2);
    let c2 = (p.k2 * p.data_range).powi(2);
    let mut total = 0.0;
    let mut col = vec![[0.0f64; 5]; ow];
    for i in 0..oh {
        col.iter_mut().for_each(|c| *c = [0.0; 5]);
        for (k, &wk) in kernel.iter().enumerate() {
            let row = &hz[(i + k) * ow..(i + k + 1) * ow];
            for (c, v) in col.iter_mut().zip(row) {
                for m in 0..5 {
                    c[m] += wk * v[m];
                }
            }
        }
        for c in &col {
            let (ux, uy) = (c[0], c[1]);
            let vx = cov_norm * (c[2] - ux * ux);
            let vy = cov_norm * (c[3] - uy * uy);
            let vxy = cov_norm * (c[4] - ux * uy);
            let a1 = 2.0 * ux * uy + c1;
            let a2 = 2.0 * vxy + c2;
            let b1 = ux * ux + uy * uy + c1;
            let b2 = vx + vy + c2;
            total += (a1 * a2) / (b1 * b2);
        }
    }
    total / (oh * ow) as f64
}

/// Mean structural similarity of two images of equal shape, averaged over
/// channels (scikit-image's `channel_axis=-1`). O(h·w·c·win).
///
/// # Errors
/// [`Error::SizeMismatch`]; [`SsimParams::check`]'s errors;
/// [`Error::BadWindow`] when `win` exceeds the height or width;
/// [`Error::NonFinite`] when the result overflows.
pub fn ssim(a: &Image, b: &Image, params: &SsimParams) -> Result<f64> {
    check_same(a, b)?;
    params.check()?;
    let (h, w) = (a.height(), a.width());
    if params.win > h || params.win > w {
        return Err(Error::BadWindow {
            win: params.win,
            reason: format!("larger than the {h}×{w} image"),
        });
    }
    crate::error::alloc_len(&[h, w, 5], 8, "SSIM moments")?;
    let r = params.win / 2;
    let kernel = match params.sigma {
        Some(s) => gaussian_kernel(s, r),
        None => vec![1.0 / params.win as f64; params.win],
    };
    let mut total = 0.0;
    for c in 0..a.channels() {
        total += ssim_plane(&a.plane(c), &b.plane(c), h, w, &kernel, params);
    }
    let s = total / a.channels() as f64;
    if !s.is_finite() {
        return Err(Error::NonFinite {
            what: "SSIM",
            index: 0,
        });
    }
    Ok(s)
}
