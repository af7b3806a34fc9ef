//! A batch of prediction sets in one flat (CSR) structure: all labels in one
//! buffer, row `i`'s set is `labels[offsets[i]..offsets[i+1]]`. Predicting
//! a batch allocates two buffers, not one `Vec` per row.

use crate::error::{Error, Result};
use crate::score::PredictionSet;

/// The prediction sets of a batch of rows, stored flat (compressed sparse
/// rows): `labels` concatenates every set (each ascending), `offsets` has
/// one entry per row plus one, `offsets[0] = 0`, non-decreasing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PredictionSets {
    labels: Vec<usize>,
    offsets: Vec<usize>,
}

impl Default for PredictionSets {
    fn default() -> Self {
        PredictionSets {
            labels: Vec::new(),
            offsets: vec![0],
        }
    }
}

impl PredictionSets {
    /// An empty batch with room for `rows` sets and `labels` labels.
    pub(crate) fn with_capacity(rows: usize, labels: usize) -> Self {
        let mut offsets = Vec::with_capacity(rows.saturating_add(1));
        offsets.push(0);
        PredictionSets {
            labels: Vec::with_capacity(labels),
            offsets,
        }
    }

    /// The label buffer, to which the next row's set is appended.
    pub(crate) fn buffer(&mut self) -> &mut Vec<usize> {
        &mut self.labels
    }

    /// Closes the row whose labels were appended since the last call.
    pub(crate) fn end_row(&mut self) {
        self.offsets.push(self.labels.len());
    }

    /// Number of sets (rows).
    pub fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    /// Whether the batch has no rows.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The set of row `i`, labels ascending; `None` when `i ≥ len()`. O(1).
    pub fn get(&self, i: usize) -> Option<&[usize]> {
        let (a, b) = (*self.offsets.get(i)?, *self.offsets.get(i + 1)?);
        Some(&self.labels[a..b])
    }

    /// The sets in row order. O(1) per set.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &[usize]> + '_ {
        self.offsets.windows(2).map(|w| &self.labels[w[0]..w[1]])
    }

    /// The size of every set, in row order.
    pub fn sizes(&self) -> impl ExactSizeIterator<Item = usize> + '_ {
        self.offsets.windows(2).map(|w| w[1] - w[0])
    }

    /// All labels, concatenated in row order (CSR `indices`).
    pub fn labels(&self) -> &[usize] {
        &self.labels
    }

    /// Row boundaries, `len() + 1` entries (CSR `indptr`).
    pub fn offsets(&self) -> &[usize] {
        &self.offsets
    }

    /// Total number of labels over all sets.
    pub fn total_size(&self) -> usize {
        self.labels.len()
    }

    /// Empirical coverage `#{i : yᵢ ∈ Cᵢ} / n`, as
    /// [`crate::metrics::coverage`]. O(n log |C|).
    ///
    /// # Errors
    /// [`Error::EmptyInput`], [`Error::ShapeMismatch`].
    pub fn coverage(&self, labels: &[usize]) -> Result<f64> {
        if self.is_empty() {
            return Err(Error::EmptyInput { what: "sets" });
        }
        if labels.len() != self.len() {
            return Err(Error::ShapeMismatch {
                what: "labels vs sets",
                expected: self.len(),
                got: labels.len(),
            });
        }
        let hits = self
            .iter()
            .zip(labels)
            .filter(|(s, y)| s.binary_search(y).is_ok())
            .count();
        Ok(hits as f64 / self.len() as f64)
    }

    /// Mean set size, as [`crate::metrics::mean_size`]. O(1).
    ///
    /// # Errors
    /// [`Error::EmptyInput`].
    pub fn mean_size(&self) -> Result<f64> {
        if self.is_empty() {
            return Err(Error::EmptyInput { what: "sets" });
        }
        Ok(self.labels.len() as f64 / self.len() as f64)
    }

    /// One [`PredictionSet`] per row (allocates one `Vec` per row).
    pub fn to_sets(&self) -> Vec<PredictionSet> {
        self.iter()
            .map(|s| PredictionSet::from_sorted(s.to_vec()))
            .collect()
    }
}

impl From<&[PredictionSet]> for PredictionSets {
    fn from(sets: &[PredictionSet]) -> Self {
        let total = sets.iter().map(PredictionSet::len).sum();
        let mut out = PredictionSets::with_capacity(sets.len(), total);
        for s in sets {
            out.labels.extend_from_slice(s.labels());
            out.end_row();
        }
        out
    }
}
