//! Fairness assessed over histories (paper §3–4): long-term, anytime,
//! periodic and bounded fairness, as incremental monitors that give a
//! verdict at every step, and an audit that replays a whole history.
//!
//! A history h_t yields cumulative utilities u_t = Σ_{τ ≤ t} Δu_τ (e.g.
//! donuts received). The fairness predicate at a time t is
//! φ(u_t) ⇔ W(u_t) ≥ θ for a welfare W and threshold θ. The schedules say at
//! which times φ is assessed and what "fair so far" means.

use crate::error::{Error, Result, check_finite};
use crate::welfare::Welfare;
use mlcore::check;
use ndarray::ArrayView2;

/// When fairness is assessed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Schedule {
    /// Long-term: assessed once, at the end t = T. The verdict is
    /// [`Status::Pending`] before T and frozen after.
    LongTerm {
        /// The horizon T ≥ 1.
        horizon: usize,
    },
    /// Anytime: φ(u_t) must hold at every t ≥ 1.
    Anytime,
    /// Periodic: φ(u_t) must hold at every t ∈ kℕ (t = k, 2k, …).
    Periodic {
        /// The period k ≥ 1.
        period: usize,
    },
    /// Bounded: the unfairness θ − W(u_t) stays ≤ B at every t ≥ 1
    /// (anytime fairness is the case B = 0). Reading of the paper's
    /// "bounded fairness" (the exact role of its B is not stated in the
    /// summary we follow; documented as a reconstruction).
    Bounded {
        /// The bound B ≥ 0.
        bound: f64,
    },
}

/// A declarative fairness specification ⟨W, θ, schedule⟩.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FairnessSpec {
    /// The welfare W.
    pub welfare: Welfare,
    /// The threshold θ of the predicate W(u_t) ≥ θ.
    pub threshold: f64,
    /// When the predicate is assessed.
    pub schedule: Schedule,
}

impl FairnessSpec {
    /// Validates the specification for `n` stakeholders.
    ///
    /// # Errors
    /// As [`Welfare::check`]; [`Error::NonFinite`] for a non-finite θ;
    /// [`Error::InvalidParameter`] for a zero horizon or period, or a bound
    /// that is negative or not finite.
    pub fn check(&self, n: usize) -> Result<()> {
        self.welfare.check(n)?;
        check_finite(self.threshold, "threshold", 0)?;
        match self.schedule {
            Schedule::LongTerm { horizon } => check::at_least(horizon, 1, "horizon", "at least 1"),
            Schedule::Periodic { period } => check::at_least(period, 1, "period", "at least 1"),
            Schedule::Bounded { bound } => check::non_negative(bound, "bound"),
            _ => Ok(()),
        }
        .map_err(Error::from)
    }

    /// Whether the predicate is assessed at step t ≥ 1.
    pub fn is_assessed(&self, t: usize) -> bool {
        match self.schedule {
            Schedule::LongTerm { horizon } => t == horizon,
            Schedule::Anytime | Schedule::Bounded { .. } => t >= 1,
            Schedule::Periodic { period } => t >= 1 && t.is_multiple_of(period),
        }
    }

    /// Whether the assessment passes for welfare value `w`:
    /// w ≥ θ, or θ − w ≤ B for [`Schedule::Bounded`].
    pub fn passes(&self, w: f64) -> bool {
        match self.schedule {
            Schedule::Bounded { bound } => self.threshold - w <= bound,
            _ => w >= self.threshold,
        }
    }
}

/// The verdict on the history so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// No assessment has happened yet.
    Pending,
    /// Every assessment so far passed (at least one happened).
    Fair,
    /// An assessment failed; `at` is the first failing step.
    Violated {
        /// The first failing step.
        at: usize,
    },
}

/// What the monitor reports at step t.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Verdict {
    /// The step t ≥ 1.
    pub t: usize,
    /// W(u_t).
    pub welfare: f64,
    /// Whether t is an assessment time.
    pub assessed: bool,
    /// Whether the assessment at t passed (false when not assessed).
    pub holds: bool,
    /// The verdict on h_t.
    pub status: Status,
}

/// An incremental fairness monitor: O(N) per step (O(N²) for Gini), O(N) memory.
///
/// Holds u_t and the status; [`Monitor::observe`] adds Δu_t, evaluates
/// W(u_t) once and updates the status, so every verdict equals a
/// brute-force recomputation from the full history (tested exactly, P1).
#[derive(Debug, Clone)]
pub struct Monitor {
    spec: FairnessSpec,
    u: Vec<f64>,
    t: usize,
    status: Status,
}

impl Monitor {
    /// A monitor for `n` stakeholders, u_0 = 0.
    ///
    /// # Errors
    /// As [`FairnessSpec::check`].
    pub fn new(spec: FairnessSpec, n: usize) -> Result<Self> {
        spec.check(n)?;
        Ok(Monitor {
            spec,
            u: vec![0.0; n],
            t: 0,
            status: Status::Pending,
        })
    }

    /// Observes the utility increments Δu_t of step t (u_t = u_{t−1} + Δu_t)
    /// and returns the verdict on h_t.
    ///
    /// # Errors
    /// [`Error::DimensionMismatch`] for a wrong length; [`Error::NonFinite`];
    /// the welfare's [`Error::InvalidUtility`] (the monitor is then unchanged).
    pub fn observe(&mut self, increment: &[f64]) -> Result<Verdict> {
        self.check_len(increment.len())?;
        for (i, &x) in increment.iter().enumerate() {
            check_finite(x, "utility increment", i)?;
        }
        let next: Vec<f64> = self.u.iter().zip(increment).map(|(a, b)| a + b).collect();
        self.advance(next)
    }

    /// Observes the cumulative utilities u_t directly.
    ///
    /// # Errors
    /// As [`Monitor::observe`].
    pub fn observe_utilities(&mut self, u: &[f64]) -> Result<Verdict> {
        self.check_len(u.len())?;
        self.advance(u.to_vec())
    }

    fn check_len(&self, got: usize) -> Result<()> {
        if got == self.u.len() {
            Ok(())
        } else {
            Err(Error::DimensionMismatch {
                what: "utility vector",
                expected: self.u.len(),
                got,
            })
        }
    }

    fn advance(&mut self, u: Vec<f64>) -> Result<Verdict> {
        let w = self.spec.welfare.eval(&u)?;
        let t = self.t + 1;
        let assessed = self.spec.is_assessed(t);
        let holds = assessed && self.spec.passes(w);
        if assessed && !matches!(self.status, Status::Violated { .. }) {
            self.status = if holds {
                Status::Fair
            } else {
                Status::Violated { at: t }
            };
        }
        self.u = u;
        self.t = t;
        Ok(Verdict {
            t,
            welfare: w,
            assessed,
            holds,
            status: self.status,
        })
    }

    /// The current cumulative utilities u_t.
    pub fn utilities(&self) -> &[f64] {
        &self.u
    }

    /// Steps observed so far.
    pub fn t(&self) -> usize {
        self.t
    }

    /// The verdict on the history so far.
    pub fn status(&self) -> Status {
        self.status
    }
}

/// Replays a history of utility increments (rows = steps t = 1…T, columns =
/// stakeholders) through a [`Monitor`]: the per-step fairness report.
/// O(T·N).
///
/// # Errors
/// As [`Monitor::new`] (N = number of columns) and [`Monitor::observe`].
pub fn audit(spec: FairnessSpec, increments: ArrayView2<'_, f64>) -> Result<Vec<Verdict>> {
    let mut m = Monitor::new(spec, increments.ncols())?;
    increments
        .rows()
        .into_iter()
        .map(|row| m.observe(&row.to_vec()))
        .collect()
}
