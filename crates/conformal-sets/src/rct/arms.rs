//! Grouping participants by arm, per-arm summaries and arm comparisons.

use super::common::{Alternative, check_sample, moments};
use super::effect::cohens_d;
use super::mann_whitney::{MannWhitney, MwuMethod, mann_whitney_u};
use super::results_csv::{Outcome, Participant};
use super::ttest::{TTest, welch_t};
use crate::error::{Error, Result};
use ndarray::{Array1, ArrayView1};

/// The participants of one arm (see [`group_by_arm`]).
#[derive(Debug, Clone, PartialEq)]
pub struct ArmGroup<'a> {
    /// The arm's name (`experiment`).
    pub name: &'a str,
    /// Its participants, in file order.
    pub participants: Vec<&'a Participant>,
}

impl ArmGroup<'_> {
    /// The arm's values of `outcome`, in file order.
    pub fn values(&self, outcome: Outcome) -> Array1<f64> {
        self.participants
            .iter()
            .map(|p| p.outcome(outcome))
            .collect()
    }
}

/// Groups participants by arm, arms in order of first appearance. O(n·arms).
///
/// # Errors
/// [`Error::EmptyInput`] for no participants.
pub fn group_by_arm(participants: &[Participant]) -> Result<Vec<ArmGroup<'_>>> {
    if participants.is_empty() {
        return Err(Error::EmptyInput {
            what: "participants",
        });
    }
    let mut groups: Vec<ArmGroup<'_>> = Vec::new();
    for p in participants {
        match groups.iter_mut().find(|g| g.name == p.experiment) {
            Some(g) => g.participants.push(p),
            None => groups.push(ArmGroup {
                name: &p.experiment,
                participants: vec![p],
            }),
        }
    }
    Ok(groups)
}

/// The values of `outcome` for the participants of `arm`, in file order.
/// O(n).
///
/// # Errors
/// [`Error::EmptyInput`] for no participants; [`Error::UnknownArm`] when no
/// participant is in `arm` (the error lists the arms present).
pub fn arm_outcome(
    participants: &[Participant],
    arm: &str,
    outcome: Outcome,
) -> Result<Array1<f64>> {
    let groups = group_by_arm(participants)?;
    match groups.iter().find(|g| g.name == arm) {
        Some(g) => Ok(g.values(outcome)),
        None => Err(Error::UnknownArm {
            arm: arm.to_string(),
            available: groups.iter().map(|g| g.name).collect::<Vec<_>>().join(", "),
        }),
    }
}

/// Descriptive statistics of one arm.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ArmSummary {
    /// Number of participants.
    pub n: usize,
    /// Mean.
    pub mean: f64,
    /// Sample standard deviation (`n − 1` denominator).
    pub sd: f64,
    /// Median (mean of the two middle values for even `n`).
    pub median: f64,
}

/// Size, mean, sample standard deviation and median of a sample. O(n log n).
///
/// # Errors
/// [`Error::EmptyInput`], [`Error::NonFinite`], [`Error::TooFewObservations`]
/// for a single value (no standard deviation).
pub fn summarize(x: ArrayView1<'_, f64>) -> Result<ArmSummary> {
    check_sample(&x, "x", 2)?;
    let m = moments(&x)?;
    Ok(ArmSummary {
        n: x.len(),
        mean: m.mean,
        sd: m.var.sqrt(),
        median: mlcore::stats::median(x)?,
    })
}

/// One row of the paper's results table: a treatment arm against a control
/// arm (see [`compare_samples`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ArmComparison {
    /// The treatment arm (first sample).
    pub treatment: ArmSummary,
    /// The control arm (second sample).
    pub control: ArmSummary,
    /// Difference of means, treatment − control.
    pub difference: f64,
    /// Welch's t-test ([`welch_t`]).
    pub welch: TTest,
    /// The Mann–Whitney U test ([`mann_whitney_u`], `Auto`, continuity
    /// correction: scipy's defaults).
    pub mann_whitney: MannWhitney,
    /// Cohen's d with the pooled sd ([`cohens_d`]).
    pub cohens_d: f64,
    /// The alternative both tests used.
    pub alternative: Alternative,
}

/// Compares a treatment sample with a control sample the way the paper's
/// table does: both arms' mean ± sd (and median), the difference of means,
/// Welch's t-test, the Mann–Whitney U test (scipy defaults: `Auto`,
/// continuity correction) and Cohen's d, all with the treatment first. O(n log n).
///
/// # Errors
/// [`Error::EmptyInput`], [`Error::NonFinite`], [`Error::TooFewObservations`]
/// (`what` is `"treatment"` or `"control"`), and `Error::Core(ZeroVariance)`
/// when both arms are constant.
pub fn compare_samples(
    treatment: ArrayView1<'_, f64>,
    control: ArrayView1<'_, f64>,
    alt: Alternative,
) -> Result<ArmComparison> {
    check_sample(&treatment, "treatment", 2)?;
    check_sample(&control, "control", 2)?;
    let t = summarize(treatment)?;
    let c = summarize(control)?;
    let welch = welch_t(treatment, control, alt)?;
    let mann_whitney = mann_whitney_u(treatment, control, alt, MwuMethod::Auto, true)?;
    let cohens_d = cohens_d(treatment, control)?;
    Ok(ArmComparison {
        treatment: t,
        control: c,
        difference: t.mean - c.mean,
        welch,
        mann_whitney,
        cohens_d,
        alternative: alt,
    })
}

/// One row of the paper's results table from a results file: the arm
/// `treatment` against the arm `control` on `num_correct` (for response
/// times, use [`arm_outcome`] with [`Outcome::Time`] and
/// [`compare_samples`]). The paper's rows are
/// `compare_arms(&p, "conformal", "topk", Alternative::Greater)`. O(n log n).
///
/// # Errors
/// As [`arm_outcome`] and [`compare_samples`].
pub fn compare_arms(
    participants: &[Participant],
    treatment: &str,
    control: &str,
    alt: Alternative,
) -> Result<ArmComparison> {
    let t = arm_outcome(participants, treatment, Outcome::NumCorrect)?;
    let c = arm_outcome(participants, control, Outcome::NumCorrect)?;
    compare_samples(t.view(), c.view(), alt)
}
