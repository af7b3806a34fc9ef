//! # perceptanon
//!
//! Kartik Patwari, Chen-Nee Chuah, Lingjuan Lyu, Vivek Sharma. *PerceptAnon:
//! Exploring the Human Perception of Image Anonymization Beyond
//! Pseudonymization for GDPR.* ICML 2024. Official code and data:
//! `SonyResearch/gdpr_perceptanon`.
//!
//! The paper asks people how anonymous an anonymised image looks (HA1: the
//! anonymised image alone; HA2: the original–anonymised pair, scores 1–10),
//! trains a network to predict those scores (PerceptAnon), and shows that
//! the learned score tracks human judgement better than pixel metrics
//! (MSE, PSNR, SSIM, LPIPS, FID), measured by Pearson, Spearman and Kendall
//! correlation. This crate is the toolkit around that finding:
//!
//! | paper | item |
//! |---|---|
//! | evaluation (scipy `pearsonr`/`spearmanr`/`kendalltau`) | [`corr`]: Pearson, Spearman (average ranks), Kendall τ-a/τ-b/τ-c in O(n log n) (Knight), p-values, bootstrap intervals |
//! | baselines (DeepPrivacy's MSE/PSNR/SSIM) | [`iqa`]: [`iqa::mse`], [`iqa::psnr`], [`iqa::ssim`] with [`iqa::SsimParams`] and the code's [`iqa::SsimParams::perceptanon_compat`] preset |
//! | anonymisation methods (`mask`, `inpaint`, `blurpix`) | [`anonymize`]: Gaussian blur, pixelation, box/binary masks, biharmonic inpainting |
//! | label granularities, splits, HA1/HA2 CSVs | [`labels`], [`split`], [`io`] |
//! | HA1 head, HA2 Siamese head | [`model`]: [`model::lite::PerceptAnonLite`] on [`features`], [`model::cnn::CnnScorer`] |
//! | correlation tables | [`eval`], [`experiment`] |
//! | (no public labels) | [`simulate`]: a stated, simulated annotator for running the pipeline end to end |
//!
//! No package registry ships the paper's ImageNet backbones, LPIPS or FID
//! weights, or the human annotations: the learned scores here run on
//! handcrafted features or a small CNN trained from scratch, and a user's
//! own backbone (e.g. a ResNet loaded from safetensors into candle) plugs
//! in through [`features::FeatureExtractor`].
//!
//! ```
//! use ndarray::{Array2, array};
//! use perceptanon::corr::{KendallVariant, kendall, spearman};
//! use perceptanon::image::{Image, Region};
//! use perceptanon::iqa::{SsimParams, psnr, ssim};
//! use perceptanon::anonymize::{Method, anonymize};
//! # fn main() -> perceptanon::Result<()> {
//! // The spec's concrete cases.
//! let x = array![1.0, 2.0, 3.0, 4.0, 5.0];
//! let y = array![5.0, 6.0, 7.0, 8.0, 7.0];
//! assert!((spearman(x.view(), y.view())?.value - 0.8207827).abs() < 1e-7);
//! assert!((kendall(x.view(), y.view(), KendallVariant::B)?.value - 0.7378648).abs() < 1e-7);
//! let a = Image::grey(Array2::from_shape_fn((32, 32), |(_, j)| j as f64 / 31.0))?;
//! let b = anonymize(&a, Region { top: 8, left: 8, height: 16, width: 16 }, Method::Mask, 1.0)?;
//! assert!((psnr(&a, &b, 1.0)? - 11.673117).abs() < 1e-6);
//! assert!((ssim(&a, &b, &SsimParams::standard())? - 0.117178).abs() < 1e-6);
//! assert!((ssim(&a, &b, &SsimParams::perceptanon_compat())? - 0.093902).abs() < 1e-6);
//! # Ok(())
//! # }
//! ```

#![deny(missing_docs)]

pub mod anonymize;
pub mod corr;
mod error;
pub mod eval;
pub mod experiment;
pub mod features;
mod filter;
pub mod image;
mod inpaint;
pub mod io;
pub mod iqa;
pub mod labels;
pub mod model;
mod rank;
pub mod simulate;
pub mod split;

pub use error::{Error, Result};

#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
