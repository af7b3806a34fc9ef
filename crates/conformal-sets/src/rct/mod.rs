//! Statistics of the randomised controlled trial (the paper's §5).
//!
//! The trial is between-subjects: each participant saw one arm (`control`,
//! `topk`, `conformal`, or an ablation) and answered a fixed set of questions;
//! the outcome is the number answered correctly (and the time taken). The
//! paper compares arms with two-sample tests. This module provides them with
//! the semantics of the Python peers, so that a table computed here matches
//! one computed with scipy:
//!
//! | item | peer |
//! |---|---|
//! | [`welch_t`], [`student_t`] | `scipy.stats.ttest_ind(equal_var=False / True)` |
//! | [`mann_whitney_u`] | `scipy.stats.mannwhitneyu` (scipy 1.17) |
//! | [`cohens_d`], [`hedges_g`] | `pingouin.compute_effsize(eftype="cohen" / "hedges")` |
//! | [`anova_oneway`] | `scipy.stats.f_oneway` |
//! | [`power`], [`n_per_arm`] | `statsmodels.stats.power.TTestIndPower` |
//! | [`noncentral_t_cdf`], [`noncentral_t_sf`] | `scipy.stats.nct.cdf / sf` |
//! | [`bootstrap_ci`] | `scipy.stats.bootstrap(method="percentile")` (own resampling stream) |
//! | [`read_results_csv`], [`compare_arms`] | the official `data/<task>/results.csv` files |
//! | [`SCIPY_TABLE`] | the paper's table as scipy 1.17.1 / pingouin compute it on those files (reference values) |
//!
//! Distribution functions are built on `statrs`'s special functions: the
//! regularised incomplete beta `I_x(a, b)` (Student t, F, and the
//! non-central t, which `statrs` lacks, as its exact Poisson-mixture series —
//! see [`noncentral_t_cdf`]) and the regularised incomplete gamma `Q(a, x)`
//! (the normal tail `Φ(−z) = ½ Q(½, z²/2)`). They are called so that the
//! argument of each continued fraction is exact: `statrs` 0.19's
//! `StudentsT::cdf`/`sf` lose about `ε·ν/t²` of relative accuracy (they form
//! `1 − ν/(ν+t²)` themselves) and its `erfc` is accurate to only ~1e-10,
//! which would show at the 1e-10 level at which these functions match scipy.
//! Beyond that, the log-gamma prefactors inside `statrs`'s incomplete beta
//! and gamma functions cost about `ν·1e-16` relative for large ν.
//!
//! Deliberate deviations from scipy, each documented at the item: inputs with
//! NaN or infinities are rejected (scipy propagates NaN); a statistic that
//! would divide by a zero variance is an error (scipy returns `±inf` or NaN);
//! samples too small for a variance are an error (scipy returns NaN).
//!
//! ```
//! use conformal_sets::rct::{welch_t, mann_whitney_u, cohens_d, Alternative, MwuMethod};
//! use ndarray::array;
//!
//! let conformal = array![41.0, 44.0, 39.0, 42.0, 40.0, 43.0];
//! let top_k = array![37.0, 40.0, 35.0, 41.0, 36.0, 38.0];
//! let t = welch_t(conformal.view(), top_k.view(), Alternative::Greater)?;
//! let u = mann_whitney_u(conformal.view(), top_k.view(), Alternative::Greater, MwuMethod::Auto, true)?;
//! let d = cohens_d(conformal.view(), top_k.view())?;
//! assert!(t.p_value < 0.01 && u.p_value < 0.05 && d > 1.0);
//! # Ok::<(), conformal_sets::Error>(())
//! ```

// One file per idea: `common` (alternative, checks, moments, Φ), `tdist`
// (central t), `ttest`, `mann_whitney`, `effect` (Cohen's d, Hedges' g),
// `bootstrap`, `anova`, `noncentral` (non-central t) over `quadrature`
// (Gauss–Kronrod), `power` (power and sample size), `results_csv` (the
// trial's files) and `arms` (grouping and comparing arms).
mod anova;
mod arms;
mod bootstrap;
mod common;
mod effect;
mod mann_whitney;
mod noncentral;
mod power;
mod quadrature;
mod reference;
mod results_csv;
mod tdist;
mod ttest;

pub use anova::{Anova, anova_oneway};
pub use arms::{
    ArmComparison, ArmGroup, ArmSummary, arm_outcome, compare_arms, compare_samples, group_by_arm,
    summarize,
};
pub use bootstrap::{BootstrapCi, bootstrap_ci};
pub use common::Alternative;
pub use effect::{cohens_d, hedges_g};
pub use mann_whitney::{MannWhitney, MwuMethod, mann_whitney_u};
pub use noncentral::{noncentral_t_cdf, noncentral_t_sf};
pub use power::{SampleSize, n_per_arm, power};
pub use reference::{SCIPY_TABLE, ScipyRow};
pub use results_csv::{Outcome, Participant, parse_results_csv, read_results_csv, read_trial};
pub use ttest::{TTest, student_t, welch_t};
