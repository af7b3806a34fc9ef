//! The case-based reference: k nearest neighbours on the grid coordinates
//! `(a, b)`, voting on the answer string, as scikit-learn's
//! `KNeighborsClassifier(n_neighbors=k)` (Euclidean metric, uniform weights,
//! ties in the vote to the smallest label in sorted order).
//!
//! A pure case-based solver answers from the nearest solved cases, never
//! from a rule: on addition, a neighbour at distance 1 has another sum, so
//! the kNN measures how far "copying a nearby case" gets.

use crate::error::{Error, Result};
use crate::task::{Sample, Task};

/// A fitted kNN classifier.
#[derive(Debug, Clone, PartialEq)]
pub struct Knn {
    k: usize,
    points: Vec<(i64, i64)>,
    labels: Vec<String>,
}

impl Knn {
    /// Stores the training samples' coordinates and answers. O(n).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for `k = 0` or `k` above the training
    /// size; [`Error::Empty`] for no training sample.
    pub fn fit(task: &Task, train: &[Sample], k: usize) -> Result<Knn> {
        if train.is_empty() {
            return Err(Error::Empty("training set"));
        }
        if k == 0 || k > train.len() {
            return Err(Error::InvalidParameter {
                name: "k",
                value: k.to_string(),
                expected: "1 ≤ k ≤ training size",
            });
        }
        Ok(Knn {
            k,
            points: train.iter().map(|s| task.coords(s.a, s.b)).collect(),
            labels: train.iter().map(|s| s.answer.to_string()).collect(),
        })
    }

    /// The vote of the `k` nearest training points to `(x, y)` (squared
    /// Euclidean distance; equal distances ordered by training index).
    /// O(n log n) per query.
    pub fn predict(&self, x: i64, y: i64) -> String {
        let mut idx: Vec<(u128, usize)> = self
            .points
            .iter()
            .enumerate()
            .map(|(i, &(u, v))| {
                let (dx, dy) = (u128::from(x.abs_diff(u)), u128::from(y.abs_diff(v)));
                (dx * dx + dy * dy, i)
            })
            .collect();
        idx.select_nth_unstable(self.k - 1);
        idx.truncate(self.k);
        let mut votes: Vec<(&str, usize)> = Vec::with_capacity(self.k);
        for &(_, i) in &idx {
            let l = self.labels[i].as_str();
            match votes.iter_mut().find(|(v, _)| *v == l) {
                Some(e) => e.1 += 1,
                None => votes.push((l, 1)),
            }
        }
        votes.sort_by(|p, q| q.1.cmp(&p.1).then(p.0.cmp(q.0)));
        votes.first().map(|v| v.0.to_string()).unwrap_or_default()
    }

    /// Predictions for test samples (their grid coordinates). O(|test| · n log n).
    pub fn predict_samples(&self, task: &Task, test: &[Sample]) -> Vec<String> {
        test.iter()
            .map(|s| {
                let (x, y) = task.coords(s.a, s.b);
                self.predict(x, y)
            })
            .collect()
    }
}
