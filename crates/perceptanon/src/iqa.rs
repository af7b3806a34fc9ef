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

/// Mean SSIM of one channel (row-major `h × w` planes). Separable
/// filtering of the five moments (x, y, x², y², xy) over the interior only.
///
/// Each image row's five horizontal passes are computed once into a ring of
/// the last `win` rows (O(win·w) memory, so large images stay in cache),
/// one moment at a time so the loops over columns vectorise; an output row
/// then sums its `win` ring rows. A symmetric kernel is folded (see
/// [`filter_row`]).
///
/// On x86-64 with AVX2 the same code runs compiled for AVX2 (wider vectors,
/// no fused multiply-add), bitwise equal to the baseline copy (tested).
fn ssim_plane(x: &[f64], y: &[f64], h: usize, w: usize, kernel: &[f64], p: &SsimParams) -> f64 {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU supports AVX2 (checked just above).
        #[allow(unsafe_code)]
        return unsafe { ssim_plane_avx2(x, y, h, w, kernel, p) };
    }
    ssim_plane_body(x, y, h, w, kernel, p)
}

/// [`ssim_plane_body`] compiled for AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn ssim_plane_avx2(
    x: &[f64],
    y: &[f64],
    h: usize,
    w: usize,
    kernel: &[f64],
    p: &SsimParams,
) -> f64 {
    ssim_plane_body(x, y, h, w, kernel, p)
}

/// The body of [`ssim_plane`].
#[inline(always)]
fn ssim_plane_body(
    x: &[f64],
    y: &[f64],
    h: usize,
    w: usize,
    kernel: &[f64],
    p: &SsimParams,
) -> f64 {
    let win = kernel.len();
    let r = win / 2;
    let (ow, oh) = (w - 2 * r, h - 2 * r);
    // ring[(row % win) * 5 + m] is moment m's horizontal pass of an image row.
    let mut ring = vec![vec![0.0f64; ow]; win * 5];
    let mut prod = [vec![0.0f64; w], vec![0.0f64; w], vec![0.0f64; w]];
    let np = (p.win * p.win) as f64;
    let cov_norm = if p.sample_cov { np / (np - 1.0) } else { 1.0 };
    let c1 = (p.k1 * p.data_range).powi(2);
    let c2 = (p.k2 * p.data_range).powi(2);
    let mut col = vec![vec![0.0f64; ow]; 5];
    let mut terms = vec![0.0f64; ow];
    let mut total = 0.0;
    for i in 0..win - 1 {
        horizontal(x, y, w, i, kernel, &mut ring, &mut prod);
    }
    for i in 0..oh {
        horizontal(x, y, w, i + win - 1, kernel, &mut ring, &mut prod);
        for (m, c) in col.iter_mut().enumerate() {
            let rows: Vec<&[f64]> = (0..win)
                .map(|k| &ring[((i + k) % win) * 5 + m][..])
                .collect();
            filter_rows(&rows, kernel, c);
        }
        let [mx, my, mxx, myy, mxy] = &col[..] else {
            unreachable!("five moments")
        };
        for (j, t) in terms.iter_mut().enumerate() {
            let (ux, uy) = (mx[j], my[j]);
            let vx = cov_norm * (mxx[j] - ux * ux);
            let vy = cov_norm * (myy[j] - uy * uy);
            let vxy = cov_norm * (mxy[j] - ux * uy);
            let a1 = 2.0 * ux * uy + c1;
            let a2 = 2.0 * vxy + c2;
            let b1 = ux * ux + uy * uy + c1;
            let b2 = vx + vy + c2;
            *t = (a1 * a2) / (b1 * b2);
        }
        // Four running sums (the terms are in (−1, 1]), then the row's.
        let mut acc = [0.0f64; 4];
        let chunks = terms.chunks_exact(4);
        let tail: f64 = chunks.remainder().iter().sum();
        for c in chunks {
            for (a, &t) in acc.iter_mut().zip(c) {
                *a += t;
            }
        }
        total += (acc[0] + acc[1]) + (acc[2] + acc[3]) + tail;
    }
    total / (oh * ow) as f64
}

/// The five horizontal passes (x, y, x², y², xy) of image row `i` into its
/// ring slot; per element the sum runs over the kernel in order.
#[inline(always)]
fn horizontal(
    x: &[f64],
    y: &[f64],
    w: usize,
    i: usize,
    kernel: &[f64],
    ring: &mut [Vec<f64>],
    prod: &mut [Vec<f64>; 3],
) {
    let win = kernel.len();
    let ow = w + 1 - win;
    let xr = &x[i * w..(i + 1) * w];
    let yr = &y[i * w..(i + 1) * w];
    let [p0, p1, p2] = prod;
    for (((xx, yy), (&a, &b)), xy) in p0
        .iter_mut()
        .zip(p1.iter_mut())
        .zip(xr.iter().zip(yr))
        .zip(p2.iter_mut())
    {
        *xx = a * a;
        *yy = b * b;
        *xy = a * b;
    }
    let slot = (i % win) * 5;
    let sources: [&[f64]; 5] = [xr, yr, p0, p1, p2];
    for (m, src) in sources.iter().enumerate() {
        filter_row(src, kernel, &mut ring[slot + m][..ow]);
    }
}

/// Outputs computed together in registers by [`filter_rows`] (each output
/// still sums its taps in the same order).
const LANES: usize = 8;

/// `out[j] = Σₖ kernel[k]·src[j + k]` (a horizontal pass), as
/// [`filter_rows`] on the shifted views of `src`.
#[inline(always)]
fn filter_row(src: &[f64], kernel: &[f64], out: &mut [f64]) {
    let ow = out.len();
    let rows: Vec<&[f64]> = (0..kernel.len()).map(|k| &src[k..k + ow]).collect();
    filter_rows(&rows, kernel, out);
}

/// `out[j] = Σₖ kernel[k]·rows[k][j]`. A symmetric kernel of odd length
/// (every Gaussian or uniform window) is folded, `w_r·rows[r][j] +
/// Σ_{k<r} w_k·(rows[k][j] + rows[win−1−k][j])`, which halves the
/// multiplies; blocks of [`LANES`] outputs accumulate in registers.
#[inline(always)]
fn filter_rows(rows: &[&[f64]], kernel: &[f64], out: &mut [f64]) {
    let win = kernel.len();
    let r = win / 2;
    let symmetric = win % 2 == 1 && (0..r).all(|k| kernel[k] == kernel[win - 1 - k]);
    let ow = out.len();
    let lanes = |row: &[f64], j0: usize| -> [f64; LANES] {
        row[j0..j0 + LANES].try_into().expect("a full block")
    };
    let full = ow - ow % LANES;
    for j0 in (0..full).step_by(LANES) {
        let mut acc = [0.0f64; LANES];
        if symmetric {
            let mid = lanes(rows[r], j0);
            for l in 0..LANES {
                acc[l] = kernel[r] * mid[l];
            }
            for k in 0..r {
                let (lo, hi) = (lanes(rows[k], j0), lanes(rows[win - 1 - k], j0));
                for l in 0..LANES {
                    acc[l] += kernel[k] * (lo[l] + hi[l]);
                }
            }
        } else {
            for (&wk, row) in kernel.iter().zip(rows) {
                let v = lanes(row, j0);
                for l in 0..LANES {
                    acc[l] += wk * v[l];
                }
            }
        }
        out[j0..j0 + LANES].copy_from_slice(&acc);
    }
    for (j, o) in out.iter_mut().enumerate().skip(full) {
        *o = if symmetric {
            let mut acc = kernel[r] * rows[r][j];
            for k in 0..r {
                acc += kernel[k] * (rows[k][j] + rows[win - 1 - k][j]);
            }
            acc
        } else {
            kernel
                .iter()
                .zip(rows)
                .fold(0.0, |acc, (&wk, row)| acc + wk * row[j])
        };
    }
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
    crate::error::alloc_len(&[params.win + 2, w, 5], 8, "SSIM moments")?;
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

#[cfg(test)]
mod tests {
    use super::*;

    use crate::simulate::reference_lcg as field;

    /// The folded, register-blocked filter equals the direct double loop:
    /// bitwise for a non-symmetric kernel (same taps in the same order), to
    /// a few ulp for symmetric ones (the fold adds two taps first), at
    /// widths with and without a partial block.
    #[test]
    fn filter_rows_equals_the_direct_sum() {
        let gauss = crate::filter::gaussian_kernel(1.5, 5);
        let uniform = vec![1.0 / 7.0; 7];
        let skew = vec![0.1, 0.5, 0.2, 0.15];
        for (kernel, bitwise) in [(&gauss, false), (&uniform, false), (&skew, true)] {
            for ow in [1, 7, 8, 9, 31, 64] {
                let src = field(3, ow + kernel.len() - 1);
                let mut out = vec![0.0; ow];
                filter_row(&src, kernel, &mut out);
                for (j, &o) in out.iter().enumerate() {
                    let direct = kernel
                        .iter()
                        .enumerate()
                        .fold(0.0, |a, (k, &wk)| a + wk * src[j + k]);
                    if bitwise {
                        assert_eq!(o.to_bits(), direct.to_bits(), "j = {j}");
                    } else {
                        assert!(
                            (o - direct).abs() <= 4.0 * f64::EPSILON * direct.abs(),
                            "{o} vs {direct}"
                        );
                    }
                }
            }
        }
    }

    /// The AVX2 copy and the baseline copy give bitwise the same SSIM.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn avx2_copy_is_bitwise_equal() {
        if !std::arch::is_x86_feature_detected!("avx2") {
            return;
        }
        let (h, w) = (37, 53);
        let x = field(5, h * w);
        let mut y = field(6, h * w);
        y.iter_mut()
            .zip(&x)
            .for_each(|(b, &a)| *b = 0.7 * a + 0.3 * *b);
        for params in [SsimParams::standard(), SsimParams::perceptanon_compat()] {
            let r = params.win / 2;
            let kernel = match params.sigma {
                Some(s) => crate::filter::gaussian_kernel(s, r),
                None => vec![1.0 / params.win as f64; params.win],
            };
            let base = ssim_plane_body(&x, &y, h, w, &kernel, &params);
            // SAFETY: AVX2 is available (checked above).
            #[allow(unsafe_code)]
            let wide = unsafe { ssim_plane_avx2(&x, &y, h, w, &kernel, &params) };
            assert_eq!(base.to_bits(), wide.to_bits());
        }
    }
}
