//! Exact-match evaluation (parse failures counted apart), accuracy by L∞
//! distance to the nearest training point, and by operand length.

use crate::error::{Error, Result};
use crate::task::{Sample, Task, TaskName};

/// The numbers an answer is judged on: the last number of the output
/// (chicken & rabbit: the last two). `None` when the output has too few
/// numbers (the official `extract_answer` raises or returns `None` there).
pub fn extract_answer(output: &str, task: TaskName) -> Option<Vec<String>> {
    let numbers: Vec<&str> = output
        .split(|c: char| !c.is_ascii_digit())
        .filter(|t| !t.is_empty())
        .collect();
    let k = if task == TaskName::RabbitsAndChickens {
        2
    } else {
        1
    };
    (numbers.len() >= k).then(|| {
        numbers[numbers.len() - k..]
            .iter()
            .map(|t| {
                let t = t.trim_start_matches('0');
                if t.is_empty() {
                    "0".to_string()
                } else {
                    t.to_string()
                }
            })
            .collect()
    })
}

/// Exact-match counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ExactMatch {
    /// Outputs whose extracted answer equals the true one.
    pub correct: usize,
    /// Outputs with an answer that is wrong.
    pub wrong: usize,
    /// Outputs with no answer to extract.
    pub parse_failures: usize,
}

impl ExactMatch {
    /// All outputs.
    pub fn total(&self) -> usize {
        self.correct + self.wrong + self.parse_failures
    }

    /// `correct / total` (0 for no outputs).
    pub fn accuracy(&self) -> f64 {
        if self.total() == 0 {
            0.0
        } else {
            self.correct as f64 / self.total() as f64
        }
    }
}

/// Judges one output against a sample. `Some(true/false)`, or `None` for a parse failure.
pub fn judge(task: &Task, sample: &Sample, output: &str) -> Option<bool> {
    let got = extract_answer(output, task.name())?;
    let want = extract_answer(&sample.answer.to_string(), task.name());
    Some(want.as_ref() == Some(&got))
}

/// Exact-match evaluation of `outputs[i]` against `samples[i]`. O(total length).
///
/// # Errors
/// [`Error::Empty`] for no samples; [`Error::InvalidParameter`] for differing lengths.
pub fn exact_match(
    task: &Task,
    samples: &[Sample],
    outputs: &[String],
) -> Result<(ExactMatch, Vec<bool>)> {
    if samples.is_empty() {
        return Err(Error::Empty("samples"));
    }
    if samples.len() != outputs.len() {
        return Err(Error::InvalidParameter {
            name: "outputs",
            value: outputs.len().to_string(),
            expected: "one output per sample",
        });
    }
    let mut m = ExactMatch::default();
    let mut ok = Vec::with_capacity(samples.len());
    for (s, o) in samples.iter().zip(outputs) {
        match judge(task, s, o) {
            Some(true) => {
                m.correct += 1;
                ok.push(true);
            }
            Some(false) => {
                m.wrong += 1;
                ok.push(false);
            }
            None => {
                m.parse_failures += 1;
                ok.push(false);
            }
        }
    }
    Ok((m, ok))
}

/// The L∞ distance `min_t max(|x − x_t|, |y − y_t|)` from each test sample's
/// grid coordinates to the nearest training sample's. O(|test| · |train|).
///
/// # Errors
/// [`Error::Empty`] for an empty training or test set.
pub fn linf_to_train(task: &Task, train: &[Sample], test: &[Sample]) -> Result<Vec<u64>> {
    if train.is_empty() {
        return Err(Error::Empty("training set"));
    }
    if test.is_empty() {
        return Err(Error::Empty("test set"));
    }
    let pts: Vec<(i64, i64)> = train.iter().map(|s| task.coords(s.a, s.b)).collect();
    Ok(test
        .iter()
        .map(|s| {
            let (x, y) = task.coords(s.a, s.b);
            pts.iter()
                .map(|&(u, v)| x.abs_diff(u).max(y.abs_diff(v)))
                .min()
                .unwrap_or(0)
        })
        .collect())
}

/// Accuracy per group: `(key, correct, total)` sorted by key, for keys such
/// as the L∞ ring or the operand length. O(n log n).
///
/// # Errors
/// [`Error::Empty`] for no items; [`Error::InvalidParameter`] for differing lengths.
pub fn accuracy_by<K: Ord + Copy>(keys: &[K], correct: &[bool]) -> Result<Vec<(K, usize, usize)>> {
    if keys.is_empty() {
        return Err(Error::Empty("items"));
    }
    if keys.len() != correct.len() {
        return Err(Error::InvalidParameter {
            name: "correct",
            value: correct.len().to_string(),
            expected: "one flag per key",
        });
    }
    let mut m = std::collections::BTreeMap::new();
    for (&k, &c) in keys.iter().zip(correct) {
        let e = m.entry(k).or_insert((0usize, 0usize));
        e.0 += usize::from(c);
        e.1 += 1;
    }
    Ok(m.into_iter().map(|(k, (c, t))| (k, c, t)).collect())
}
