//! Image anonymisers applied to a region: Gaussian blur, pixelation, box
//! and binary masks, and biharmonic inpainting (the paper's `blurpix`,
//! `mask` and `inpaint` families), plus [`anonymize`], which maps one
//! strength s ∈ [0, 1] to each method's parameter.

use ndarray::ArrayView2;

use crate::error::{Error, Result};
use crate::filter::gaussian_kernel;
use crate::image::{Image, Region};
use crate::inpaint;

/// Largest accepted blur σ (pixels).
pub const MAX_SIGMA: f64 = 256.0;

/// Gaussian blur of `region` with standard deviation σ ∈ (0, 256] pixels:
/// the whole image is filtered as scikit-image's `filters.gaussian` does
/// (kernel radius ⌊4σ + 0.5⌋, border extended by repeating the edge pixel,
/// i.e. scipy's `nearest`), and only the pixels of `region` are replaced,
/// so the region's edge is blurred with its real surroundings. Computed on
/// the region plus its radius only: O(area·c·σ).
///
/// # Errors
/// [`Error::RegionOutside`]; [`Error::StrengthOutOfRange`] for σ ∉ (0, 256].
pub fn gaussian_blur(image: &Image, region: Region, sigma: f64) -> Result<Image> {
    region.check(image)?;
    if !(sigma > 0.0 && sigma <= MAX_SIGMA) {
        return Err(Error::StrengthOutOfRange {
            method: "Gaussian blur σ",
            value: sigma,
            range: "(0, 256] pixels",
        });
    }
    let radius = (4.0 * sigma + 0.5) as usize;
    let kernel = gaussian_kernel(sigma, radius);
    let (h, w) = (image.height() as isize, image.width() as isize);
    let r = radius as isize;
    let clamp = |v: isize, n: isize| v.clamp(0, n - 1) as usize;
    let mut out = image.clone();
    let src = image.view();
    let pw = region.width + 2 * radius;
    let mut vert = vec![0.0; region.height * pw];
    for c in 0..image.channels() {
        // Axis 0 first (scipy's order), on the columns the row pass needs.
        for (ri, i) in (region.top..region.top + region.height).enumerate() {
            for pj in 0..pw {
                let j = clamp(region.left as isize - r + pj as isize, w);
                let mut acc = 0.0;
                for (k, &wk) in kernel.iter().enumerate() {
                    acc += wk * src[[clamp(i as isize - r + k as isize, h), j, c]];
                }
                vert[ri * pw + pj] = acc;
            }
        }
        let dst = out.data_mut();
        for ri in 0..region.height {
            let row = &vert[ri * pw..(ri + 1) * pw];
            for rj in 0..region.width {
                let acc: f64 = kernel.iter().zip(&row[rj..]).map(|(a, b)| a * b).sum();
                dst[[region.top + ri, region.left + rj, c]] = acc;
            }
        }
    }
    Ok(out)
}

/// Pixelation (mosaic): `region` is tiled by `block × block` cells from its
/// top-left corner (the last row/column of cells may be smaller) and each
/// cell is replaced by its per-channel mean. `block = 1` is the identity.
/// O(area·c).
///
/// # Errors
/// [`Error::RegionOutside`]; [`Error::StrengthOutOfRange`] for
/// `block ∉ [1, max(region height, region width)]`.
pub fn pixelate(image: &Image, region: Region, block: usize) -> Result<Image> {
    region.check(image)?;
    if block == 0 || block > region.height.max(region.width) {
        return Err(Error::StrengthOutOfRange {
            method: "pixelation block",
            value: block as f64,
            range: "[1, max(region height, region width)]",
        });
    }
    let mut out = image.clone();
    let dst = out.data_mut();
    for c in 0..image.channels() {
        for bi in (0..region.height).step_by(block) {
            for bj in (0..region.width).step_by(block) {
                let (i0, j0) = (region.top + bi, region.left + bj);
                let i1 = (i0 + block).min(region.top + region.height);
                let j1 = (j0 + block).min(region.left + region.width);
                let mut s = 0.0;
                for i in i0..i1 {
                    for j in j0..j1 {
                        s += dst[[i, j, c]];
                    }
                }
                let mean = s / ((i1 - i0) * (j1 - j0)) as f64;
                for i in i0..i1 {
                    for j in j0..j1 {
                        dst[[i, j, c]] = mean;
                    }
                }
            }
        }
    }
    Ok(out)
}

/// Box mask: every pixel of `region` set to `value` in every channel (the
/// paper's black masks are `value = 0`). O(area·c).
///
/// # Errors
/// [`Error::RegionOutside`]; [`Error::NonFinite`] for a non-finite value.
pub fn mask_box(image: &Image, region: Region, value: f64) -> Result<Image> {
    region.check(image)?;
    if !value.is_finite() {
        return Err(Error::NonFinite {
            what: "mask value",
            index: 0,
        });
    }
    let mut out = image.clone();
    out.data_mut()
        .slice_mut(ndarray::s![
            region.top..region.top + region.height,
            region.left..region.left + region.width,
            ..
        ])
        .fill(value);
    Ok(out)
}

fn check_mask(image: &Image, mask: ArrayView2<'_, bool>) -> Result<()> {
    if mask.dim() != (image.height(), image.width()) {
        return Err(Error::SizeMismatch {
            what: "mask and image",
            expected: format!("{}×{}", image.height(), image.width()),
            found: format!("{}×{}", mask.nrows(), mask.ncols()),
        });
    }
    Ok(())
}

/// Binary mask: every pixel where `mask` is true set to `value` (a
/// segmentation mask of a person, for instance). O(h·w·c).
///
/// # Errors
/// [`Error::SizeMismatch`] when `mask` is not `height × width`;
/// [`Error::NonFinite`] for a non-finite value.
pub fn mask_binary(image: &Image, mask: ArrayView2<'_, bool>, value: f64) -> Result<Image> {
    check_mask(image, mask)?;
    if !value.is_finite() {
        return Err(Error::NonFinite {
            what: "mask value",
            index: 0,
        });
    }
    let mut out = image.clone();
    let dst = out.data_mut();
    for ((i, j), &m) in mask.indexed_iter() {
        if m {
            dst.slice_mut(ndarray::s![i, j, ..]).fill(value);
        }
    }
    Ok(out)
}

/// Biharmonic inpainting of the pixels where `mask` is true (Damelin &
/// Hoang 2018; scikit-image's `restoration.inpaint_biharmonic`): the
/// unknown values u solve Δ²u = 0 discretised by the 13-point stencil
/// `laplace(laplace(δ))` on each pixel's 5×5 neighbourhood (clipped at the
/// image border, where scipy's reflecting Laplacian gives the reduced
/// stencils), with the known pixels as boundary values; the result is
/// clipped per channel to the range of the known pixels. The sparse system
/// (n = masked pixels, bandwidth b ≤ 2·width + 2 in row-major order) is
/// solved by banded LU with partial pivoting: O(n·b²) time, O(n·b) memory.
///
/// # Errors
/// [`Error::SizeMismatch`]; [`Error::EmptyInput`] when every pixel is
/// masked (no boundary values); [`Error::Singular`] if the system is;
/// [`Error::TooLarge`] when the band would not fit in memory.
pub fn inpaint_biharmonic(image: &Image, mask: ArrayView2<'_, bool>) -> Result<Image> {
    check_mask(image, mask)?;
    inpaint::biharmonic(image, mask)
}

/// An anonymisation family of the paper.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Method {
    /// Gaussian blur (`blurpix`).
    Blur,
    /// Pixelation (`blurpix`).
    Pixelate,
    /// Black box mask (`mask`).
    Mask,
    /// Biharmonic inpainting (`inpaint`).
    Inpaint,
}

impl Method {
    /// All four, in this order.
    pub const ALL: [Method; 4] = [
        Method::Blur,
        Method::Pixelate,
        Method::Mask,
        Method::Inpaint,
    ];

    /// Lower-case name.
    pub fn name(self) -> &'static str {
        match self {
            Method::Blur => "blur",
            Method::Pixelate => "pixelate",
            Method::Mask => "mask",
            Method::Inpaint => "inpaint",
        }
    }

    /// The paper's split family (`blurpix`, `mask`, `inpaint`).
    pub fn family(self) -> &'static str {
        match self {
            Method::Blur | Method::Pixelate => "blurpix",
            Method::Mask => "mask",
            Method::Inpaint => "inpaint",
        }
    }
}

/// Applies `method` to `region` at strength s ∈ [0, 1] (s = 0 returns the
/// image unchanged), with L = max(region height, region width):
/// - Blur: σ = s·L/8;
/// - Pixelate: block = max(1, round(s·L/4));
/// - Mask: a black box over the centred sub-rectangle of area ≈ s·area;
/// - Inpaint: biharmonic inpainting of that same centred sub-rectangle.
///
/// These maps are this crate's choice (the paper does not publish its
/// parameters); they make strength comparable across region sizes.
///
/// # Errors
/// [`Error::RegionOutside`]; [`Error::StrengthOutOfRange`] for s ∉ [0, 1];
/// the method's own errors (an inpainting region covering the whole image
/// is [`Error::EmptyInput`]).
pub fn anonymize(image: &Image, region: Region, method: Method, strength: f64) -> Result<Image> {
    region.check(image)?;
    if !(0.0..=1.0).contains(&strength) {
        return Err(Error::StrengthOutOfRange {
            method: method.name(),
            value: strength,
            range: "[0, 1]",
        });
    }
    let l = region.height.max(region.width) as f64;
    let inner = region.centred_fraction(strength);
    match (method, inner) {
        (_, None) => Ok(image.clone()),
        (Method::Blur, _) => {
            let sigma = strength * l / 8.0;
            if sigma <= 0.0 {
                Ok(image.clone())
            } else {
                gaussian_blur(image, region, sigma.min(MAX_SIGMA))
            }
        }
        (Method::Pixelate, _) => {
            let block = ((strength * l / 4.0).round() as usize).max(1);
            pixelate(image, region, block)
        }
        (Method::Mask, Some(inner)) => mask_box(image, inner, 0.0),
        (Method::Inpaint, Some(inner)) => {
            let mask = ndarray::Array2::from_shape_fn((image.height(), image.width()), |(i, j)| {
                inner.contains(i, j)
            });
            inpaint_biharmonic(image, mask.view())
        }
    }
}
