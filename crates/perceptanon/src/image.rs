//! Images as checked `(height, width, channels)` arrays of `f64`, and
//! rectangular regions inside them.

use ndarray::{Array2, Array3, ArrayView3, Axis};

use crate::error::{Error, Result, check_finite};

/// An image: a non-empty `(height, width, channels)` array of finite `f64`
/// (grey images have one channel, colour images three). The value range is
/// the caller's (this crate's readers give [0, 1]); metrics take a
/// `data_range` where it matters.
#[derive(Debug, Clone, PartialEq)]
pub struct Image {
    data: Array3<f64>,
}

impl Image {
    /// Wraps `data` after checking it. O(h·w·c).
    ///
    /// # Errors
    /// [`Error::EmptyInput`] for a zero dimension; [`Error::NonFinite`].
    pub fn new(data: Array3<f64>) -> Result<Self> {
        if data.is_empty() {
            return Err(Error::EmptyInput { what: "image" });
        }
        check_finite(data.iter(), "image")?;
        Ok(Self { data })
    }

    /// A one-channel image from a `(height, width)` array.
    ///
    /// # Errors
    /// As [`Image::new`].
    pub fn grey(data: Array2<f64>) -> Result<Self> {
        Self::new(data.insert_axis(Axis(2)))
    }

    /// Rows.
    pub fn height(&self) -> usize {
        self.data.shape()[0]
    }

    /// Columns.
    pub fn width(&self) -> usize {
        self.data.shape()[1]
    }

    /// Channels.
    pub fn channels(&self) -> usize {
        self.data.shape()[2]
    }

    /// The pixels, `(height, width, channels)`.
    pub fn view(&self) -> ArrayView3<'_, f64> {
        self.data.view()
    }

    /// The pixels, owned.
    pub fn into_array(self) -> Array3<f64> {
        self.data
    }

    /// Luminance Y = 0.2125 R + 0.7154 G + 0.0721 B (ITU-R BT.709, scikit-image's
    /// `rgb2gray`) for three channels; the image itself for one channel; the
    /// channel mean otherwise. O(h·w·c).
    pub fn to_grey(&self) -> Image {
        let grey = match self.channels() {
            1 => self.data.index_axis(Axis(2), 0).to_owned(),
            3 => Array2::from_shape_fn((self.height(), self.width()), |(i, j)| {
                0.2125 * self.data[[i, j, 0]]
                    + 0.7154 * self.data[[i, j, 1]]
                    + 0.0721 * self.data[[i, j, 2]]
            }),
            c => self.data.sum_axis(Axis(2)) / c as f64,
        };
        Image {
            data: grey.insert_axis(Axis(2)),
        }
    }

    /// The pixels of `region`, as a new image. O(area·c).
    ///
    /// # Errors
    /// [`Error::RegionOutside`].
    pub fn crop(&self, region: Region) -> Result<Image> {
        region.check(self)?;
        Ok(Image {
            data: self
                .data
                .slice(ndarray::s![
                    region.top..region.top + region.height,
                    region.left..region.left + region.width,
                    ..
                ])
                .to_owned(),
        })
    }

    /// Mean of 2×2 … `f`×`f` blocks (box downsampling by an integer factor;
    /// trailing rows/columns that do not fill a block are dropped). O(h·w·c).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for `f = 0` or `f` larger than a side.
    pub fn downsample(&self, f: usize) -> Result<Image> {
        if f == 0 || f > self.height() || f > self.width() {
            return Err(Error::InvalidParameter {
                name: "downsampling factor",
                value: f as f64,
                expected: "1 ≤ f ≤ min(height, width)",
            });
        }
        let (h, w, c) = (self.height() / f, self.width() / f, self.channels());
        let scale = 1.0 / (f * f) as f64;
        let data = Array3::from_shape_fn((h, w, c), |(i, j, k)| {
            let mut s = 0.0;
            for a in 0..f {
                for b in 0..f {
                    s += self.data[[i * f + a, j * f + b, k]];
                }
            }
            s * scale
        });
        Ok(Image { data })
    }

    /// Area resampling to `height × width`: output pixel (i, j) is the mean
    /// of the input rows ⌊iH/h⌋ .. max(⌊(i+1)H/h⌋, ⌊iH/h⌋+1) and likewise for
    /// columns (exact box averaging when shrinking by an integer factor,
    /// nearest-neighbour replication when enlarging). O(H·W·c + h·w·c).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for a zero size; [`Error::TooLarge`].
    pub fn resize(&self, height: usize, width: usize) -> Result<Image> {
        if height == 0 || width == 0 {
            return Err(Error::InvalidParameter {
                name: "resize target",
                value: 0.0,
                expected: "height and width ≥ 1",
            });
        }
        crate::error::alloc_len(&[height, width, self.channels()], 8, "resized image")?;
        let span = |k: usize, out: usize, inp: usize| {
            let a = k * inp / out;
            let b = ((k + 1) * inp / out).max(a + 1).min(inp);
            (a, b)
        };
        let (hh, ww) = (self.height(), self.width());
        let data = Array3::from_shape_fn((height, width, self.channels()), |(i, j, c)| {
            let (r0, r1) = span(i, height, hh);
            let (c0, c1) = span(j, width, ww);
            let mut s = 0.0;
            for r in r0..r1 {
                for q in c0..c1 {
                    s += self.data[[r, q, c]];
                }
            }
            s / ((r1 - r0) * (c1 - c0)) as f64
        });
        Ok(Image { data })
    }

    pub(crate) fn data_mut(&mut self) -> &mut Array3<f64> {
        &mut self.data
    }

    /// One channel as a row-major vector.
    pub(crate) fn plane(&self, c: usize) -> Vec<f64> {
        self.data.index_axis(Axis(2), c).iter().copied().collect()
    }
}

/// An axis-aligned rectangle of pixels: rows `top..top+height`, columns
/// `left..left+width`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Region {
    /// First row.
    pub top: usize,
    /// First column.
    pub left: usize,
    /// Number of rows (≥ 1).
    pub height: usize,
    /// Number of columns (≥ 1).
    pub width: usize,
}

impl Region {
    /// The whole image.
    pub fn full(image: &Image) -> Region {
        Region {
            top: 0,
            left: 0,
            height: image.height(),
            width: image.width(),
        }
    }

    /// Checks that the region is non-empty and inside `image`.
    ///
    /// # Errors
    /// [`Error::RegionOutside`].
    pub fn check(&self, image: &Image) -> Result<()> {
        let fits = |start: usize, len: usize, side: usize| {
            len >= 1 && start.checked_add(len).is_some_and(|end| end <= side)
        };
        if fits(self.top, self.height, image.height()) && fits(self.left, self.width, image.width())
        {
            Ok(())
        } else {
            Err(Error::RegionOutside {
                top: self.top,
                left: self.left,
                height: self.height,
                width: self.width,
                image_height: image.height(),
                image_width: image.width(),
            })
        }
    }

    /// Number of pixels.
    pub fn area(&self) -> usize {
        self.height.saturating_mul(self.width)
    }

    /// The centred sub-rectangle covering about a fraction `fraction` ∈ [0, 1]
    /// of the area (each side scaled by √fraction, rounded, at least 1 pixel
    /// unless `fraction = 0`, which gives `None`).
    pub fn centred_fraction(&self, fraction: f64) -> Option<Region> {
        if fraction.is_nan() || fraction <= 0.0 {
            return None;
        }
        let s = fraction.min(1.0).sqrt();
        let h = ((self.height as f64 * s).round() as usize).clamp(1, self.height);
        let w = ((self.width as f64 * s).round() as usize).clamp(1, self.width);
        Some(Region {
            top: self.top + (self.height - h) / 2,
            left: self.left + (self.width - w) / 2,
            height: h,
            width: w,
        })
    }

    /// Whether pixel (i, j) is inside.
    pub fn contains(&self, i: usize, j: usize) -> bool {
        i >= self.top && i - self.top < self.height && j >= self.left && j - self.left < self.width
    }
}
