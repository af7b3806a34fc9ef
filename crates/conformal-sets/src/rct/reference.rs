//! The paper's results table recomputed by the peer: scipy 1.17.1
//! (`ttest_ind(equal_var=False)`, `mannwhitneyu` with its defaults) and
//! pingouin's Cohen's d on the official results CSVs (the vendored
//! `hitl-conformal-rct` data), at full precision.
//!
//! One copy, shared by the crate's tests (`tests/rct.rs`, which check every
//! figure to 1e-9 relative) and the runner's reproduction (which declares
//! the spec's 1e-6 check against it). These are the peer's numbers, never
//! this crate's output.

use super::{Alternative, Outcome};

/// One comparison of the paper: treatment vs control arm of one task on one
/// outcome, with every figure as scipy / pingouin compute it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScipyRow {
    /// The task (the data folder: `"few-nerd"`, `"go-emotions"`, `"object-net"`).
    pub task: &'static str,
    /// The treatment arm's name in the CSVs.
    pub treatment: &'static str,
    /// The control arm's name in the CSVs.
    pub control: &'static str,
    /// The outcome compared.
    pub outcome: Outcome,
    /// The alternative of the tests.
    pub alt: Alternative,
    /// Mean, standard deviation (ddof = 1) and median of the treatment arm.
    pub treat: (f64, f64, f64),
    /// Mean, standard deviation (ddof = 1) and median of the control arm.
    pub ctrl: (f64, f64, f64),
    /// Difference of the means, treatment − control.
    pub diff: f64,
    /// Welch's t statistic, degrees of freedom and p-value.
    pub welch: (f64, f64, f64),
    /// Mann–Whitney U of the treatment arm and its p-value (scipy defaults).
    pub mwu: (f64, f64),
    /// Cohen's d (pooled standard deviation).
    pub d: f64,
}

/// The eight comparisons: the three headline tasks (questions correct,
/// conformal > top-k, one-sided), the two ablations, and the three
/// response-time tests (two-sided).
pub const SCIPY_TABLE: [ScipyRow; 8] = [
    // The headline rows: num_correct, conformal > top-k, one-sided.
    ScipyRow {
        task: "few-nerd",
        treatment: "conformal",
        control: "topk",
        outcome: Outcome::NumCorrect,
        alt: Alternative::Greater,
        treat: (40.76, 3.0139810272549927, 41.0),
        ctrl: (37.88, 5.4272178763664005, 39.0),
        diff: 2.8799999999999955,
        welch: (3.2804130737356707, 76.59894709447194, 0.0007807866196206654),
        mwu: (1618.0, 0.005497748095715551),
        d: 0.6560826147471341,
    },
    ScipyRow {
        task: "go-emotions",
        treatment: "conformal",
        control: "topk",
        outcome: Outcome::NumCorrect,
        alt: Alternative::Greater,
        treat: (29.56, 4.262604358648284, 31.0),
        ctrl: (27.68, 4.45586062142332, 28.0),
        diff: 1.879999999999999,
        welch: (2.1558133335796983, 97.807958710872, 0.01677560810165078),
        mwu: (1625.5, 0.004746138849959456),
        d: 0.43116266671593967,
    },
    ScipyRow {
        task: "object-net",
        treatment: "conformal",
        control: "topk",
        outcome: Outcome::NumCorrect,
        alt: Alternative::Greater,
        treat: (88.42, 4.081266310090234, 89.0),
        ctrl: (86.04, 5.771004227681554, 87.0),
        diff: 2.3799999999999955,
        welch: (2.3809233942538244, 88.20634023351859, 0.009710576996617723),
        mwu: (1528.0, 0.027333284233499355),
        d: 0.47618467885076493,
    },
    // Ablations.
    ScipyRow {
        task: "go-emotions",
        treatment: "conformal-large",
        control: "topk",
        outcome: Outcome::NumCorrect,
        alt: Alternative::Greater,
        treat: (28.46, 4.541014900496432, 28.0),
        ctrl: (27.68, 4.45586062142332, 28.0),
        diff: 0.7800000000000011,
        welch: (0.8669288162996042, 97.96490201199371, 0.19404973494957775),
        mwu: (1399.5, 0.15147331058948899),
        d: 0.17338576325992083,
    },
    ScipyRow {
        task: "object-net",
        treatment: "conformal-vitb32",
        control: "topk-vitb32",
        outcome: Outcome::NumCorrect,
        alt: Alternative::Greater,
        treat: (85.74, 4.628262776305015, 86.5),
        ctrl: (85.44, 4.747330076700256, 86.0),
        diff: 0.29999999999999716,
        welch: (0.31995396476578536, 97.93683834087483, 0.37484240060838625),
        mwu: (1281.0, 0.4164350527316595),
        d: 0.06399079295315707,
    },
    // Response times, two-sided.
    ScipyRow {
        task: "few-nerd",
        treatment: "conformal",
        control: "topk",
        outcome: Outcome::Time,
        alt: Alternative::TwoSided,
        treat: (437.912, 210.25918178888315, 380.4),
        ctrl: (655.342, 285.12445838866324, 620.5999999999999),
        diff: -217.43,
        welch: (
            -4.339844424341717,
            90.12970670127687,
            3.7172603575560845e-05,
        ),
        mwu: (639.0, 2.5685588004767397e-05),
        d: -0.8679688848683433,
    },
    ScipyRow {
        task: "go-emotions",
        treatment: "conformal",
        control: "topk",
        outcome: Outcome::Time,
        alt: Alternative::TwoSided,
        treat: (481.532, 265.8239454517035, 413.9),
        ctrl: (530.542, 390.7696487754411, 401.8),
        diff: -49.01000000000005,
        welch: (-0.7332698144214734, 86.35121101756994, 0.4653799403587818),
        mwu: (1244.0, 0.9697543765312099),
        d: -0.14665396288429466,
    },
    ScipyRow {
        task: "object-net",
        treatment: "conformal",
        control: "topk",
        outcome: Outcome::Time,
        alt: Alternative::TwoSided,
        treat: (345.88800000000003, 119.69030724741079, 345.65),
        ctrl: (377.5160000000001, 149.71360599627596, 354.85),
        diff: -31.628000000000043,
        welch: (-1.166776167131019, 93.46978187554083, 0.2462689707224019),
        mwu: (1103.5, 0.3141747646809858),
        d: -0.23335523342620382,
    },
];
