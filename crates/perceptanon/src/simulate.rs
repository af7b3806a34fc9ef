//! A **simulated** annotator and the corpus of anonymised images the
//! runner and the example use in place of the official human labels
//! (which no package registry ships).
//!
//! The simulated annotator is a stated model, not a person: it looks at the
//! anonymised region only and rates how much identifying detail is gone.
//! With Y the luminance inside the region, B(Y) = mean((Y − G₂Y)²) the
//! band-pass detail energy (G₂: Gaussian blur, σ = 2), c the fraction of
//! region pixels changed by more than 4/255, κ = max(0, corr(G₄Y_orig,
//! G₄Y_anon)) the coarse-shape correlation (0 when either is constant):
//!
//! retained detail   d = min(1, B(Y_anon) / B(Y_orig))  (1 when B(Y_orig) < 10⁻⁸)
//! identifiability   I = (1 − c) + c·(0.6·d + 0.4·κ²)
//! latent anonymity  a = 1 − I ∈ [0, 1]
//!
//! and each of `annotators` raters k reports clamp(round(1 + 9a + bₖ + εₖ),
//! 1, 10) with a personal bias bₖ ~ N(0, bias_sd²) (drawn once per rater)
//! and noise εₖ ~ N(0, noise_sd²) per image; the label is their mean
//! (higher = more anonymous, [`ScaleDirection::HigherIsMoreAnonymous`]).
//! Because the rater looks at the region while SSIM/PSNR/MSE see the whole
//! image, the pixel metrics are informative but not the rater's rule; a
//! learned score can do better only by learning that rule. On these labels
//! the runner tests the machinery, not the paper's human finding.
//!
//! [`ScaleDirection::HigherIsMoreAnonymous`]: crate::labels::ScaleDirection

use rand::{Rng, RngExt};
use rand_distr::{Distribution, Normal};

use crate::anonymize::{Method, anonymize, gaussian_blur};
use crate::error::{Error, Result};
use crate::image::{Image, Region};

/// The simulated raters.
#[derive(Debug, Clone, PartialEq)]
pub struct SimulatedAnnotator {
    biases: Vec<f64>,
    noise_sd: f64,
}

impl SimulatedAnnotator {
    /// `annotators` raters (≥ 1) with biases drawn from N(0, bias_sd²) and
    /// per-image noise sd `noise_sd` (both finite ≥ 0).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`].
    pub fn new(annotators: usize, bias_sd: f64, noise_sd: f64, rng: &mut impl Rng) -> Result<Self> {
        if annotators == 0 || annotators > 10_000 {
            return Err(Error::InvalidParameter {
                name: "annotators",
                value: annotators as f64,
                expected: "1 ≤ annotators ≤ 10000",
            });
        }
        for (name, v) in [("bias_sd", bias_sd), ("noise_sd", noise_sd)] {
            if !(v.is_finite() && v >= 0.0) {
                return Err(Error::InvalidParameter {
                    name,
                    value: v,
                    expected: "a finite value ≥ 0",
                });
            }
        }
        let biases = (0..annotators)
            .map(|_| bias_sd * rng.sample::<f64, _>(rand_distr::StandardNormal))
            .collect();
        Ok(Self { biases, noise_sd })
    }

    /// The latent anonymity a ∈ [0, 1] of `anonymized` against `original`
    /// in `region` (module docs). O(area · σ).
    ///
    /// # Errors
    /// [`Error::SizeMismatch`]; [`Error::RegionOutside`].
    pub fn latent(&self, original: &Image, anonymized: &Image, region: Region) -> Result<f64> {
        if original.view().shape() != anonymized.view().shape() {
            return Err(Error::SizeMismatch {
                what: "original and anonymised image",
                expected: format!("{:?}", original.view().shape()),
                found: format!("{:?}", anonymized.view().shape()),
            });
        }
        let yo = original.crop(region)?.to_grey();
        let ya = anonymized.crop(region)?.to_grey();
        let full = Region::full(&yo);
        let band = |y: &Image| -> Result<f64> {
            let g = gaussian_blur(y, full, 2.0)?;
            let n = y.view().len() as f64;
            Ok(y.view()
                .iter()
                .zip(g.view().iter())
                .map(|(a, b)| (a - b) * (a - b))
                .sum::<f64>()
                / n)
        };
        let (bo, ba) = (band(&yo)?, band(&ya)?);
        let d = if bo < 1e-8 { 1.0 } else { (ba / bo).min(1.0) };
        let n = yo.view().len() as f64;
        let c = yo
            .view()
            .iter()
            .zip(ya.view().iter())
            .filter(|(a, b)| (*a - *b).abs() > 4.0 / 255.0)
            .count() as f64
            / n;
        let go = gaussian_blur(&yo, full, 4.0)?;
        let ga = gaussian_blur(&ya, full, 4.0)?;
        let kappa = crate::corr::pearson(
            ndarray::ArrayView1::from(go.view().as_slice().unwrap_or(&[])),
            ndarray::ArrayView1::from(ga.view().as_slice().unwrap_or(&[])),
        )
        .map_or(0.0, |r| r.value.max(0.0));
        let identifiability = (1.0 - c) + c * (0.6 * d + 0.4 * kappa * kappa);
        Ok((1.0 - identifiability).clamp(0.0, 1.0))
    }

    /// The mean rating (in [1, 10], higher = more anonymous). O(area · σ + raters).
    ///
    /// # Errors
    /// As [`latent`](Self::latent).
    pub fn rate(
        &self,
        original: &Image,
        anonymized: &Image,
        region: Region,
        rng: &mut impl Rng,
    ) -> Result<f64> {
        let a = self.latent(original, anonymized, region)?;
        let noise = Normal::new(0.0, self.noise_sd.max(f64::MIN_POSITIVE)).map_err(|_| {
            Error::InvalidParameter {
                name: "noise_sd",
                value: self.noise_sd,
                expected: "a finite value ≥ 0",
            }
        })?;
        let total: f64 = self
            .biases
            .iter()
            .map(|b| {
                (1.0 + 9.0 * a + b + noise.sample(rng))
                    .round()
                    .clamp(1.0, 10.0)
            })
            .sum();
        Ok(total / self.biases.len() as f64)
    }
}

/// A source image with the box to anonymise.
#[derive(Debug, Clone, PartialEq)]
pub struct Source {
    /// Name (used as the "data set" of leave-one-out splits).
    pub name: String,
    /// The image.
    pub image: Image,
    /// The subject (face) box.
    pub subject: Region,
}

/// One anonymised sample of the corpus.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    /// Source image name.
    pub source: String,
    /// `face` for the subject box, `tile` for a tiled crop.
    pub scope: &'static str,
    /// Index of the base (subject box or tile) within the corpus.
    pub base: usize,
    /// The anonymiser.
    pub method: Method,
    /// Its strength in [0, 1].
    pub strength: f64,
    /// The image before anonymisation (full image or tile).
    pub original: Image,
    /// The image after.
    pub anonymized: Image,
    /// The anonymised region.
    pub region: Region,
}

/// Builds the corpus: for each source, the subject box of the full image,
/// and each `tile × tile` crop (non-overlapping, from the top-left) with its
/// centred half-side box, each anonymised by every [`Method`] at every
/// strength. O(#bases · #methods · #strengths · cost of the anonymiser).
///
/// # Errors
/// [`Error::EmptyInput`] for no source or strength; [`Error::InvalidParameter`]
/// for `tile < 8`; [`Error::StrengthOutOfRange`]; anonymiser errors.
pub fn build_corpus(sources: &[Source], strengths: &[f64], tile: usize) -> Result<Vec<Sample>> {
    if sources.is_empty() || strengths.is_empty() {
        return Err(Error::EmptyInput {
            what: "sources and strengths",
        });
    }
    if tile < 8 {
        return Err(Error::InvalidParameter {
            name: "tile",
            value: tile as f64,
            expected: "at least 8 pixels",
        });
    }
    let mut bases: Vec<(String, &'static str, Image, Region)> = Vec::new();
    for s in sources {
        s.subject.check(&s.image)?;
        bases.push((s.name.clone(), "face", s.image.clone(), s.subject));
        for ti in 0..s.image.height() / tile {
            for tj in 0..s.image.width() / tile {
                let crop = s.image.crop(Region {
                    top: ti * tile,
                    left: tj * tile,
                    height: tile,
                    width: tile,
                })?;
                let q = tile / 4;
                let inner = Region {
                    top: q,
                    left: q,
                    height: tile - 2 * q,
                    width: tile - 2 * q,
                };
                bases.push((s.name.clone(), "tile", crop, inner));
            }
        }
    }
    let mut out = Vec::new();
    for (base, (name, scope, image, region)) in bases.into_iter().enumerate() {
        for method in Method::ALL {
            for &strength in strengths {
                out.push(Sample {
                    source: name.clone(),
                    scope,
                    base,
                    method,
                    strength,
                    anonymized: anonymize(&image, region, method, strength)?,
                    original: image.clone(),
                    region,
                });
            }
        }
    }
    Ok(out)
}

/// The vendored photographs (`data/images`, checked against its
/// `SHA256SUMS`) with their subject boxes (`data/images/SOURCE.md`):
/// astronaut (face), camera (head), chelsea (cat's face), coffee (cup).
///
/// # Errors
/// [`Error::MissingFile`] when the folder or a file is missing or fails
/// its checksum; decoding errors.
pub fn vendored_sources(dir: &std::path::Path) -> Result<Vec<Source>> {
    let ds = mlcore::data::Dataset::open(dir).map_err(|e| Error::MissingFile {
        path: dir.display().to_string(),
        reason: e.to_string(),
    })?;
    let boxes = [
        ("astronaut", "astronaut.ppm.gz", (32, 88, 50, 50)),
        ("camera", "camera.pgm.gz", (32, 78, 64, 56)),
        ("chelsea", "chelsea.ppm.gz", (25, 55, 110, 125)),
        ("coffee", "coffee.ppm.gz", (10, 85, 120, 130)),
    ];
    boxes
        .iter()
        .map(|&(name, file, (top, left, height, width))| {
            let bytes = ds.read(file).map_err(|e| Error::MissingFile {
                path: dir.join(file).display().to_string(),
                reason: e.to_string(),
            })?;
            let image = crate::io::decode_image(&bytes, file)?;
            let subject = Region {
                top,
                left,
                height,
                width,
            };
            subject.check(&image)?;
            Ok(Source {
                name: name.to_string(),
                image,
                subject,
            })
        })
        .collect()
}

/// `n` uniforms in [0, 1) from the 31-bit linear congruential generator
/// `sᵢ₊₁ = (1103515245·sᵢ + 12345) mod 2³¹`, `uᵢ = sᵢ₊₁ / 2³¹`, from `s₀ = seed`:
/// the inputs `scripts/compare/perceptanon_reference.py` and
/// `perceptanon.py` rebuild in Python, so both sides of a side-by-side run
/// see the same numbers (the benchmark, the CPU-time example and the peer
/// tests use it). Not a statistical generator: use `rand` for simulation.
/// O(n).
pub fn reference_lcg(seed: u64, n: usize) -> Vec<f64> {
    let mut s = seed % (1 << 31);
    (0..n)
        .map(|_| {
            s = (1_103_515_245 * s + 12_345) % (1 << 31);
            s as f64 / (1u64 << 31) as f64
        })
        .collect()
}
