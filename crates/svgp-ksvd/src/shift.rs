//! Inputs for the digits experiment: patches, the two distribution shifts
//! (rotation and Gaussian noise, five severities each) and 8×8 crops of
//! texture photographs as out-of-distribution inputs.
//!
//! Images are rows of `side²` pixels, row-major, on the digits' scale
//! `[0, max_value]` (`max_value = 16` for the vendored digits).

use crate::error::{Error, Result, alloc};
use ndarray::{Array2, ArrayView2};
use rand::{Rng, RngExt};
use rand_distr::{Distribution, StandardNormal};

/// Rotation of severity `k ∈ 1..=5`: `15k` degrees.
pub fn rotation_degrees(severity: usize) -> f64 {
    15.0 * severity as f64
}

/// Noise of severity `k ∈ 1..=5`: standard deviation `0.1k` of the pixel
/// range (`1.6k` on the digits' 0–16 scale).
pub fn noise_std(severity: usize, max_value: f64) -> f64 {
    0.1 * severity as f64 * max_value
}

fn check_images(images: ArrayView2<'_, f32>, side: usize) -> Result<()> {
    if images.is_empty() || side == 0 {
        return Err(Error::EmptyInput { what: "images" });
    }
    if side.checked_mul(side) != Some(images.ncols()) {
        return Err(crate::error::shape(
            "images",
            &[images.nrows(), side.saturating_mul(side)],
            images.shape(),
        ));
    }
    match images.iter().position(|v| !v.is_finite()) {
        Some(index) => Err(Error::NonFinite {
            what: "images",
            index,
        }),
        None => Ok(()),
    }
}

/// Cuts each `side × side` image into `(side/patch)²` non-overlapping
/// `patch × patch` patches, patches in row-major order, pixels of a patch
/// row-major: row `i` becomes `(side/patch)²·patch²` values. O(n·side²).
///
/// # Errors
/// [`Error::EmptyInput`], [`Error::NonFinite`], [`Error::ShapeMismatch`];
/// [`Error::InvalidParameter`] unless `patch ≥ 1` divides `side`.
pub fn patchify(images: ArrayView2<'_, f32>, side: usize, patch: usize) -> Result<Array2<f32>> {
    check_images(images, side)?;
    if patch == 0 || !side.is_multiple_of(patch) {
        return Err(Error::InvalidParameter {
            name: "patch",
            value: patch as f64,
            expected: "a divisor of the image side, ≥ 1",
        });
    }
    let g = side / patch;
    let mut out = Array2::zeros(images.dim());
    for (src, mut dst) in images.rows().into_iter().zip(out.rows_mut()) {
        let mut k = 0;
        for pr in 0..g {
            for pc in 0..g {
                for r in 0..patch {
                    for c in 0..patch {
                        dst[k] = src[(pr * patch + r) * side + pc * patch + c];
                        k += 1;
                    }
                }
            }
        }
    }
    Ok(out)
}

/// Rotates each image by `degrees` counter-clockwise about its centre with
/// bilinear interpolation; pixels that come from outside the image are 0
/// (the digits' background). O(n·side²).
///
/// # Errors
/// As [`patchify`]; [`Error::NonFinite`] for a non-finite angle.
pub fn rotate(images: ArrayView2<'_, f32>, side: usize, degrees: f64) -> Result<Array2<f32>> {
    check_images(images, side)?;
    if !degrees.is_finite() {
        return Err(Error::NonFinite {
            what: "angle",
            index: 0,
        });
    }
    let (sin, cos) = degrees.to_radians().sin_cos();
    let c = (side as f64 - 1.0) / 2.0;
    let mut out = Array2::zeros(images.dim());
    let at = |src: &ndarray::ArrayView1<'_, f32>, r: isize, col: isize| -> f64 {
        if r < 0 || col < 0 || r >= side as isize || col >= side as isize {
            0.0
        } else {
            f64::from(src[r as usize * side + col as usize])
        }
    };
    for (src, mut dst) in images.rows().into_iter().zip(out.rows_mut()) {
        for r in 0..side {
            for col in 0..side {
                // Inverse map: the source point that lands on (r, col).
                let (y, x) = (r as f64 - c, col as f64 - c);
                let sx = cos * x - sin * y + c;
                let sy = sin * x + cos * y + c;
                let (x0, y0) = (sx.floor(), sy.floor());
                let (fx, fy) = (sx - x0, sy - y0);
                let (x0, y0) = (x0 as isize, y0 as isize);
                let v = at(&src, y0, x0) * (1.0 - fx) * (1.0 - fy)
                    + at(&src, y0, x0 + 1) * fx * (1.0 - fy)
                    + at(&src, y0 + 1, x0) * (1.0 - fx) * fy
                    + at(&src, y0 + 1, x0 + 1) * fx * fy;
                dst[r * side + col] = v as f32;
            }
        }
    }
    Ok(out)
}

/// Adds independent `N(0, std²)` noise to every pixel and clips to
/// `[0, max_value]`. O(n·side²).
///
/// # Errors
/// [`Error::EmptyInput`], [`Error::NonFinite`] for the images;
/// [`Error::InvalidParameter`] unless `std ≥ 0` and `max_value > 0` are finite.
pub fn gaussian_noise(
    images: ArrayView2<'_, f32>,
    std: f64,
    max_value: f64,
    rng: &mut impl Rng,
) -> Result<Array2<f32>> {
    if images.is_empty() {
        return Err(Error::EmptyInput { what: "images" });
    }
    if let Some(index) = images.iter().position(|v| !v.is_finite()) {
        return Err(Error::NonFinite {
            what: "images",
            index,
        });
    }
    crate::error::non_negative(std, "noise std")?;
    if !(max_value.is_finite() && max_value > 0.0) {
        return Err(Error::InvalidParameter {
            name: "max value",
            value: max_value,
            expected: "a finite value > 0",
        });
    }
    Ok(images.mapv(|v| {
        let z: f64 = StandardNormal.sample(rng);
        (f64::from(v) + std * z).clamp(0.0, max_value) as f32
    }))
}

/// `count` random `side × side` crops of a grey image `pixels` (`h × w`,
/// values in `[0, 1]`), top-left corners uniform over the valid positions,
/// scaled to `[0, max_value]`: out-of-distribution inputs. O(count·side²).
///
/// # Errors
/// [`Error::EmptyInput`] for an empty image or `count = 0`;
/// [`Error::NonFinite`]; [`Error::InvalidParameter`] for values outside
/// `[0, 1]` or an image smaller than `side`; [`Error::TooLarge`].
pub fn texture_crops(
    pixels: ArrayView2<'_, f64>,
    count: usize,
    side: usize,
    max_value: f64,
    rng: &mut impl Rng,
) -> Result<Array2<f32>> {
    if pixels.is_empty() || count == 0 || side == 0 {
        return Err(Error::EmptyInput {
            what: "texture crops",
        });
    }
    if let Some(index) = pixels.iter().position(|v| !v.is_finite()) {
        return Err(Error::NonFinite {
            what: "texture",
            index,
        });
    }
    if let Some(&value) = pixels.iter().find(|v| !(0.0..=1.0).contains(*v)) {
        return Err(Error::InvalidParameter {
            name: "texture pixel",
            value,
            expected: "in [0, 1]",
        });
    }
    let (h, w) = pixels.dim();
    if h < side || w < side {
        return Err(Error::InvalidParameter {
            name: "texture size",
            value: h.min(w) as f64,
            expected: "at least the crop side",
        });
    }
    alloc(&[count, side, side], "texture crops")?;
    let mut out = Array2::zeros((count, side * side));
    for mut row in out.rows_mut() {
        let r0 = rng.random_range(0..=h - side);
        let c0 = rng.random_range(0..=w - side);
        for r in 0..side {
            for c in 0..side {
                row[r * side + c] = (pixels[[r0 + r, c0 + c]] * max_value) as f32;
            }
        }
    }
    Ok(out)
}
