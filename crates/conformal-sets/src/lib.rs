//! # conformal-sets
//!
//! Split-conformal prediction sets and the analysis of the randomised trial in
//!
//! > Jesse C. Cresswell, Yi Sui, Bhargava Kumar, Noël Vouitsis.
//! > *Conformal Prediction Sets Improve Human Decision Making.* ICML 2024.
//! > Official code: `layer6ai-labs/hitl-conformal-prediction`.
//!
//! A classifier's probabilities `π(x)` become a set `C(x)` of labels that
//! contains the true label with probability at least `1 − α`: score the
//! held-out calibration data with a conformity score `s(x, y)`, take the
//! `⌈(n+1)(1−α)⌉`-th smallest score as `q̂`, and predict `{y : s(x, y) ≤ q̂}`.
//! The paper showed such sets to people in a pre-registered trial and found
//! they answered more accurately than with fixed top-`k` sets of the same
//! coverage; [`rct`] re-runs that analysis.
//!
//! | paper | item |
//! |---|---|
//! | §2 conformity scores (LAC/THR, APS, RAPS) | [`score::Lac`], [`score::Raps`], [`score::aps`], [`score::ConformityScore`] |
//! | §2 split calibration, quantile rule | [`calibrate::SplitConformal`], [`calibrate::QuantileRule`] |
//! | batch prediction sets (flat CSR) | [`sets::PredictionSets`] |
//! | §4 equal-coverage top-`k` control | [`matching::alpha_matching_top_k`], [`matching::equal_coverage_raps`], [`matching::smallest_k_for_alpha`] |
//! | official `pick_kreg` / `pick_lamda_size`, temperature | [`tune`] |
//! | evaluation (coverage, size, strata) | [`metrics`] |
//! | exact conditional coverage law | [`metrics::CoverageDistribution`] |
//! | §5 trial analysis (t-tests, Mann–Whitney U, effect sizes) | [`rct`] |
//! | synthetic calibrated classifier | [`synthetic`] |
//!
//! Deviations from the official code, each documented at the item: the
//! randomised RAPS set is computed as the sub-level set of the score (equal
//! to the official `gcq` rule for the same `U`, tested); the quantile rule is
//! explicit ([`calibrate::QuantileRule::NumpyHigher`] reproduces the official
//! RAPS path); the temperature fit works ([`tune::fit_temperature`]).
//!
//! ```
//! use conformal_sets::calibrate::{QuantileRule, SplitConformal};
//! use conformal_sets::matching::{alpha_matching_top_k, top_k_sets};
//! use conformal_sets::metrics::coverage;
//! use conformal_sets::score::Raps;
//! use conformal_sets::synthetic::dirichlet_classifier;
//! use mlcore::sampling::seeded;
//!
//! let mut rng = seeded(0);
//! let (p_cal, y_cal) = dirichlet_classifier(2000, 10, 0.1, &mut rng)?;
//! let (p_test, y_test) = dirichlet_classifier(5000, 10, 0.1, &mut rng)?;
//!
//! // The trial's control: match RAPS to the coverage of top-3 sets.
//! let alpha = alpha_matching_top_k(p_cal.view(), &y_cal, 3)?;
//! let raps = SplitConformal::new(Raps::default(), alpha, QuantileRule::FiniteSample)?
//!     .calibrate(p_cal.view(), &y_cal, &mut rng)?;
//! let sets = raps.predict(p_test.view(), &mut rng)?;
//! let top3 = top_k_sets(p_test.view(), 3)?;
//!
//! assert!((sets.coverage(&y_test)? - coverage(&top3, &y_test)?).abs() < 0.03);
//! assert!(sets.mean_size()? < 3.0); // sets: one flat (CSR) batch
//! # Ok::<(), conformal_sets::Error>(())
//! ```
#![deny(missing_docs)]

pub mod calibrate;
pub mod error;
pub mod matching;
pub mod metrics;
pub mod rct;
pub mod score;
pub mod sets;
pub mod synthetic;
pub mod tune;

pub use error::{Error, Result};

#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
