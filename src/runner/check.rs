//! Declared checks: what a reproduction measured, compared with a threshold
//! that comes from outside this code (the paper, a theorem, the spec, a peer).
//!
//! A reproduction never decides its own verdict. It returns [`Check`]s; the
//! runner evaluates each one ([`Check::evaluate`]) and derives the
//! reproduction's [`Status`] from them ([`Status::of`]).

use std::fmt;

/// How a measured value is compared with its threshold.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Relation {
    /// `value ≤ threshold`.
    AtMost,
    /// `value ≥ threshold`.
    AtLeast,
    /// `value < threshold`.
    Below,
    /// `value > threshold`.
    Above,
    /// `|value − threshold| ≤ tol`.
    Within(f64),
    /// The measured value's interval `[lo, hi]` does not contain the threshold
    /// (e.g. the interval of a difference excludes 0).
    IntervalExcludes,
    /// The measured value's interval `[lo, hi]` lies entirely above the
    /// threshold (`lo > threshold`): a one-sided interval claim.
    IntervalAbove,
    /// The measured value's interval `[lo, hi]` lies entirely below the
    /// threshold (`hi < threshold`).
    IntervalBelow,
    /// The measured value's interval `[lo, hi]` contains the threshold
    /// (e.g. a Wilson interval of a coverage contains the nominal 1 − α).
    IntervalContains,
    /// The measured value is a p-value and is below the level `threshold`.
    PValueBelow,
}

impl Relation {
    /// Whether the relation needs [`Check::interval`].
    pub fn needs_interval(self) -> bool {
        matches!(
            self,
            Relation::IntervalExcludes
                | Relation::IntervalAbove
                | Relation::IntervalBelow
                | Relation::IntervalContains
        )
    }

    /// The relation in words, with its threshold, e.g. `≤ 0.1` or `interval excludes 0`.
    pub fn describe(self, threshold: f64) -> String {
        let t = super::format_value(threshold);
        match self {
            Relation::AtMost => format!("≤ {t}"),
            Relation::AtLeast => format!("≥ {t}"),
            Relation::Below => format!("< {t}"),
            Relation::Above => format!("> {t}"),
            Relation::Within(tol) => format!("within {} of {t}", super::format_value(tol)),
            Relation::IntervalExcludes => format!("interval excludes {t}"),
            Relation::IntervalAbove => format!("interval above {t}"),
            Relation::IntervalBelow => format!("interval below {t}"),
            Relation::IntervalContains => format!("interval contains {t}"),
            Relation::PValueBelow => format!("p-value < {t}"),
        }
    }

    /// A short machine name for `report.json`.
    pub fn key(self) -> &'static str {
        match self {
            Relation::AtMost => "at_most",
            Relation::AtLeast => "at_least",
            Relation::Below => "below",
            Relation::Above => "above",
            Relation::Within(_) => "within",
            Relation::IntervalExcludes => "interval_excludes",
            Relation::IntervalAbove => "interval_above",
            Relation::IntervalBelow => "interval_below",
            Relation::IntervalContains => "interval_contains",
            Relation::PValueBelow => "p_value_below",
        }
    }
}

/// One declared check of a reproduction.
///
/// Build it with [`Check::new`] (the source of the threshold is required),
/// then add what a stochastic value needs: [`Check::with_interval`],
/// [`Check::with_seeds`]. A check the budget or data cannot decide is
/// marked with [`Check::undecided`]; the runner reports it `incomplete`
/// instead of passing a weaker one.
#[derive(Debug, Clone, PartialEq)]
pub struct Check {
    /// What is compared, e.g. `"coverage of APS at α = 0.1"`.
    pub name: String,
    /// The measured value (a p-value for [`Relation::PValueBelow`]; the point
    /// estimate for the interval relations).
    pub value: f64,
    /// The interval of the measured value (confidence or bootstrap), when stochastic.
    pub interval: Option<(f64, f64)>,
    /// How many seeds (independent runs) the value is computed over.
    pub seeds: Option<usize>,
    /// How the value is compared with the threshold.
    pub relation: Relation,
    /// The threshold.
    pub threshold: f64,
    /// Where the threshold comes from: `"paper Table 2"`, `"Theorem 3.1 bound"`,
    /// `"spec"`, `"peer: MAPIE 1.2 on the same input"`.
    pub source: String,
    /// Why this budget or the data at hand cannot decide the check (then it
    /// is `incomplete`, whatever the value).
    pub undecided: Option<String>,
}

/// The outcome of evaluating one [`Check`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CheckStatus {
    /// The relation holds.
    Pass,
    /// The relation does not hold (the reason when it is not the plain comparison).
    Fail(Option<String>),
    /// The check cannot be decided at this budget or with this data.
    Incomplete(String),
}

impl CheckStatus {
    /// `pass`, `fail` or `incomplete`.
    pub fn key(&self) -> &'static str {
        match self {
            CheckStatus::Pass => "pass",
            CheckStatus::Fail(_) => "fail",
            CheckStatus::Incomplete(_) => "incomplete",
        }
    }
}

impl Check {
    /// A check of `value` against `threshold` by `relation`, whose threshold comes from `source`.
    pub fn new(
        name: impl Into<String>,
        value: f64,
        relation: Relation,
        threshold: f64,
        source: impl Into<String>,
    ) -> Self {
        Check {
            name: name.into(),
            value,
            interval: None,
            seeds: None,
            relation,
            threshold,
            source: source.into(),
            undecided: None,
        }
    }

    /// The check with the interval `[lo, hi]` of its value.
    pub fn with_interval(mut self, lo: f64, hi: f64) -> Self {
        self.interval = Some((lo, hi));
        self
    }

    /// The check with the number of seeds its value is computed over.
    pub fn with_seeds(mut self, seeds: usize) -> Self {
        self.seeds = Some(seeds);
        self
    }

    /// Marks the check as not decidable here, with the reason (e.g. `"the
    /// quick budget runs 4 seeds; the paired test needs ≥ 10: run --budget full"`).
    pub fn undecided(mut self, reason: impl Into<String>) -> Self {
        self.undecided = Some(reason.into());
        self
    }

    /// Marks the check undecided when `cond` is true (see [`Check::undecided`]).
    pub fn undecided_if(self, cond: bool, reason: impl Into<String>) -> Self {
        if cond { self.undecided(reason) } else { self }
    }

    /// Evaluates the check. A missing source, a non-finite value, a
    /// non-finite threshold or tolerance, or an interval relation without an
    /// interval fail with the reason: they are defects of the reproduction,
    /// never a pass.
    pub fn evaluate(&self) -> CheckStatus {
        if let Some(reason) = &self.undecided {
            return CheckStatus::Incomplete(reason.clone());
        }
        let fail = |why: &str| CheckStatus::Fail(Some(why.to_string()));
        if self.source.trim().is_empty() {
            return fail("the threshold names no source");
        }
        if !self.threshold.is_finite() {
            return fail("the threshold is not finite");
        }
        let ok = if self.relation.needs_interval() {
            let Some((lo, hi)) = self.interval else {
                return fail("the relation needs an interval and none was given");
            };
            if !(lo.is_finite() && hi.is_finite()) || lo > hi {
                return fail("the interval is not a finite [lo, hi]");
            }
            let t = self.threshold;
            match self.relation {
                Relation::IntervalExcludes => t < lo || t > hi,
                Relation::IntervalAbove => lo > t,
                Relation::IntervalBelow => hi < t,
                Relation::IntervalContains => lo <= t && t <= hi,
                _ => unreachable!("needs_interval covers exactly these"),
            }
        } else {
            if !self.value.is_finite() {
                return fail("the measured value is not finite");
            }
            let (v, t) = (self.value, self.threshold);
            match self.relation {
                Relation::AtMost => v <= t,
                Relation::AtLeast => v >= t,
                Relation::Below | Relation::PValueBelow => v < t,
                Relation::Above => v > t,
                Relation::Within(tol) => {
                    if !(tol.is_finite() && tol >= 0.0) {
                        return fail("the tolerance is not a finite non-negative number");
                    }
                    (v - t).abs() <= tol
                }
                _ => unreachable!("interval relations handled above"),
            }
        };
        if ok {
            CheckStatus::Pass
        } else {
            CheckStatus::Fail(None)
        }
    }

    /// The measured value in words: the value, its interval and seeds.
    pub fn describe_value(&self) -> String {
        let mut s = super::format_value(self.value);
        if let Some((lo, hi)) = self.interval {
            s.push_str(&format!(
                " [{}, {}]",
                super::format_value(lo),
                super::format_value(hi)
            ));
        }
        if let Some(n) = self.seeds {
            s.push_str(&format!(" ({n} seeds)"));
        }
        s
    }
}

impl fmt::Display for Check {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {} {} (source: {})",
            self.name,
            self.describe_value(),
            self.relation.describe(self.threshold),
            self.source
        )
    }
}

/// The status of one reproduction, derived by the runner.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    /// Every check passes.
    Held,
    /// At least one check fails.
    NotHeld,
    /// No check fails, but at least one cannot be decided (or none was declared).
    Incomplete,
    /// The reproduction returned an error or panicked; the message.
    Error(String),
}

impl Status {
    /// The status of a reproduction with these checks (not for a failed run:
    /// that is [`Status::Error`]). No checks at all is `Incomplete`: nothing was decided.
    pub fn of(checks: &[Check]) -> Status {
        let statuses: Vec<CheckStatus> = checks.iter().map(Check::evaluate).collect();
        if statuses.iter().any(|s| matches!(s, CheckStatus::Fail(_))) {
            Status::NotHeld
        } else if statuses.is_empty()
            || statuses
                .iter()
                .any(|s| matches!(s, CheckStatus::Incomplete(_)))
        {
            Status::Incomplete
        } else {
            Status::Held
        }
    }

    /// `held`, `not held`, `incomplete` or `error`.
    pub fn label(&self) -> &'static str {
        match self {
            Status::Held => "held",
            Status::NotHeld => "not held",
            Status::Incomplete => "incomplete",
            Status::Error(_) => "error",
        }
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(value: f64, relation: Relation, threshold: f64) -> Check {
        Check::new("x", value, relation, threshold, "spec")
    }

    #[test]
    fn plain_relations() {
        assert_eq!(c(1.0, Relation::AtMost, 1.0).evaluate(), CheckStatus::Pass);
        assert_eq!(
            c(1.0, Relation::Below, 1.0).evaluate(),
            CheckStatus::Fail(None)
        );
        assert_eq!(c(2.0, Relation::Above, 1.0).evaluate(), CheckStatus::Pass);
        assert_eq!(
            c(0.5, Relation::AtLeast, 1.0).evaluate(),
            CheckStatus::Fail(None)
        );
        assert_eq!(
            c(1.05, Relation::Within(0.1), 1.0).evaluate(),
            CheckStatus::Pass
        );
        assert_eq!(
            c(0.04, Relation::PValueBelow, 0.05).evaluate(),
            CheckStatus::Pass
        );
        assert_eq!(
            c(0.05, Relation::PValueBelow, 0.05).evaluate(),
            CheckStatus::Fail(None)
        );
    }

    #[test]
    fn interval_relations_need_an_interval() {
        let no = c(0.3, Relation::IntervalExcludes, 0.0);
        assert!(matches!(no.evaluate(), CheckStatus::Fail(Some(_))));
        let yes = no.clone().with_interval(0.1, 0.5);
        assert_eq!(yes.evaluate(), CheckStatus::Pass);
        let straddles = c(0.3, Relation::IntervalExcludes, 0.0).with_interval(-0.1, 0.5);
        assert_eq!(straddles.evaluate(), CheckStatus::Fail(None));
        let contains = c(0.9, Relation::IntervalContains, 0.9).with_interval(0.85, 0.93);
        assert_eq!(contains.evaluate(), CheckStatus::Pass);
        let above = c(0.9, Relation::IntervalAbove, 0.8).with_interval(0.85, 0.93);
        assert_eq!(above.evaluate(), CheckStatus::Pass);
        let below = c(0.9, Relation::IntervalBelow, 0.9).with_interval(0.85, 0.93);
        assert_eq!(below.evaluate(), CheckStatus::Fail(None));
    }

    #[test]
    fn defects_never_pass() {
        assert!(matches!(
            c(f64::NAN, Relation::AtMost, 1.0).evaluate(),
            CheckStatus::Fail(Some(_))
        ));
        assert!(matches!(
            c(0.0, Relation::AtMost, f64::INFINITY).evaluate(),
            CheckStatus::Fail(Some(_))
        ));
        assert!(matches!(
            Check::new("x", 0.0, Relation::AtMost, 1.0, " ").evaluate(),
            CheckStatus::Fail(Some(_))
        ));
        assert!(matches!(
            c(1.0, Relation::Within(f64::NAN), 1.0).evaluate(),
            CheckStatus::Fail(Some(_))
        ));
    }

    #[test]
    fn status_of_checks() {
        let pass = c(0.0, Relation::AtMost, 1.0);
        let fail = c(2.0, Relation::AtMost, 1.0);
        let open = c(0.0, Relation::AtMost, 1.0).undecided("quick budget");
        assert_eq!(Status::of(std::slice::from_ref(&pass)), Status::Held);
        assert_eq!(
            Status::of(&[pass.clone(), open.clone()]),
            Status::Incomplete
        );
        assert_eq!(Status::of(&[open, fail.clone()]), Status::NotHeld);
        assert_eq!(Status::of(&[pass, fail]), Status::NotHeld);
        assert_eq!(Status::of(&[]), Status::Incomplete);
    }
}
