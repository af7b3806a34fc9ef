//! The official splits: stratified 60/20/20 ('all'), leave-one-dataset-out,
//! task (person / face) and leave-one-method-out, all seeded.

use rand::Rng;
use rand::seq::SliceRandom;

use crate::error::{Error, Result};
use crate::labels::check_score;

/// Indices of a train / validation / test partition.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Split {
    /// Training indices.
    pub train: Vec<usize>,
    /// Validation indices.
    pub val: Vec<usize>,
    /// Test indices.
    pub test: Vec<usize>,
}

/// What a split needs to know about one sample.
#[derive(Debug, Clone, PartialEq)]
pub struct SampleMeta {
    /// Mean human score in [1, 10].
    pub score: f64,
    /// Source data set (`coco`, `voc`, `lfw`, `celeba`, or any name).
    pub dataset: String,
    /// Anonymisation family (`mask`, `inpaint`, `blurpix`, or any name).
    pub method: String,
}

/// Which split.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SplitKind {
    /// Stratified 60/20/20 over everything (the paper's 'all').
    All,
    /// Test on one data set, train/validate (80/20, stratified) on the others (`loov-*`).
    LeaveOneDatasetOut(String),
    /// Stratified 60/20/20 restricted to these data sets (`task-person`
    /// = coco + voc, `task-face` = celeba + lfw).
    Task(Vec<String>),
    /// Test on one method family, train/validate on the others (`anon-*`).
    LeaveOneMethodOut(String),
}

/// The stratum of a score: round(s) (half to even) when ≥ 5, and one
/// merged stratum for scores that round to ≤ 4 (the official code's rule).
pub fn stratum(score: f64) -> usize {
    (score.round_ties_even().max(4.0)) as usize
}

/// Largest-remainder allocation of `n` items to `fractions`: every count is
/// within 1 of `n·fraction`.
fn allocate(n: usize, fractions: [f64; 3]) -> [usize; 3] {
    let exact: Vec<f64> = fractions.iter().map(|f| f * n as f64).collect();
    let mut counts = [0usize; 3];
    for k in 0..3 {
        counts[k] = exact[k].floor() as usize;
    }
    let mut left = n - counts.iter().sum::<usize>();
    let mut order: Vec<usize> = (0..3).collect();
    order.sort_by(|&a, &b| {
        (exact[b] - exact[b].floor())
            .total_cmp(&(exact[a] - exact[a].floor()))
            .then(a.cmp(&b))
    });
    for &k in order.iter().cycle() {
        if left == 0 {
            break;
        }
        counts[k] += 1;
        left -= 1;
    }
    counts
}

/// Stratified split of the samples `indices` with scores `scores[i]` into
/// fractions (train, val, test) summing to 1: within each [`stratum`] the
/// indices are shuffled and cut so each part is within one item of its
/// exact share. O(n log n).
///
/// # Errors
/// [`Error::EmptyInput`]; [`Error::ScoreOutOfRange`];
/// [`Error::InvalidParameter`] for fractions that are negative or do not
/// sum to 1 (±1e-9); [`Error::SizeMismatch`] for an index outside `scores`.
pub fn stratified(
    scores: &[f64],
    indices: &[usize],
    fractions: [f64; 3],
    rng: &mut impl Rng,
) -> Result<Split> {
    if indices.is_empty() {
        return Err(Error::EmptyInput {
            what: "samples to split",
        });
    }
    let total: f64 = fractions.iter().sum();
    if fractions.iter().any(|f| !(f.is_finite() && *f >= 0.0)) || (total - 1.0).abs() > 1e-9 {
        return Err(Error::InvalidParameter {
            name: "split fractions",
            value: total,
            expected: "three non-negative fractions summing to 1",
        });
    }
    let mut strata: std::collections::BTreeMap<usize, Vec<usize>> = Default::default();
    for &i in indices {
        let s = *scores.get(i).ok_or_else(|| Error::SizeMismatch {
            what: "split index and scores",
            expected: format!("an index below {}", scores.len()),
            found: i.to_string(),
        })?;
        check_score(s, i)?;
        strata.entry(stratum(s)).or_default().push(i);
    }
    let mut split = Split::default();
    for (_, mut members) in strata {
        members.shuffle(rng);
        let [a, b, _] = allocate(members.len(), fractions);
        split.train.extend_from_slice(&members[..a]);
        split.val.extend_from_slice(&members[a..a + b]);
        split.test.extend_from_slice(&members[a + b..]);
    }
    Ok(split)
}

/// The split `kind` of `samples` (seeded through `rng`). The paper's 'all'
/// fractions are 60/20/20; the held-out variants put the held-out group in
/// test and split the rest 80/20 (stratified) into train and validation.
/// O(n log n).
///
/// # Errors
/// As [`stratified`]; [`Error::EmptyInput`] when the held-out group (or the
/// task's data sets) matches no sample, or leaves nothing to train on.
pub fn make_split(samples: &[SampleMeta], kind: &SplitKind, rng: &mut impl Rng) -> Result<Split> {
    let scores: Vec<f64> = samples.iter().map(|s| s.score).collect();
    let all: Vec<usize> = (0..samples.len()).collect();
    let pick: Vec<bool> = match kind {
        SplitKind::All => return stratified(&scores, &all, [0.6, 0.2, 0.2], rng),
        SplitKind::Task(names) => {
            let chosen: Vec<usize> = all
                .iter()
                .copied()
                .filter(|&i| names.iter().any(|n| n == &samples[i].dataset))
                .collect();
            if chosen.is_empty() {
                return Err(Error::EmptyInput {
                    what: "task data sets (no sample matches)",
                });
            }
            return stratified(&scores, &chosen, [0.6, 0.2, 0.2], rng);
        }
        SplitKind::LeaveOneDatasetOut(name) => samples.iter().map(|s| &s.dataset == name).collect(),
        SplitKind::LeaveOneMethodOut(name) => samples.iter().map(|s| &s.method == name).collect(),
    };
    let (test, rest): (Vec<usize>, Vec<usize>) = all.iter().partition(|&&i| pick[i]);
    if test.is_empty() {
        return Err(Error::EmptyInput {
            what: "held-out group (no sample matches)",
        });
    }
    if rest.is_empty() {
        return Err(Error::EmptyInput {
            what: "training samples (every sample is held out)",
        });
    }
    let mut s = stratified(&scores, &rest, [0.8, 0.2, 0.0], rng)?;
    s.test = test;
    Ok(s)
}
