//! Sparse observation sets: triplets `(i, j, y_ij)` of a `rows × cols` matrix.
//!
//! An [`Observations`] holds the observed set Ω of the paper as three parallel
//! arrays (row indices, column indices, values), sorted by `(row, col)`, with
//! no duplicates. Everything downstream (training, soft-impute, metrics) works
//! on these N entries only; no dense mask is ever built.

use crate::error::{Error, Result};
use rand::Rng;
use rand::seq::SliceRandom;
use std::path::Path;

/// What to do when the same `(row, col)` appears more than once.
///
/// The rule: by default a repeated entry is an error (a matrix entry has one
/// value; a repeat usually means a re-rating or a bug in the export). With
/// [`Duplicates::Average`] the repeats become one entry holding the mean of
/// their values (pairwise summation, [`mlcore::stats::mean`], so the mean of
/// finite values is finite: ±1e308 average to 0, not ∞), in the order given.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Duplicates {
    /// Fail with [`Error::DuplicateEntry`] (the default).
    #[default]
    Reject,
    /// Replace the repeats by their mean.
    Average,
}

/// A set of observed entries Ω of a `rows × cols` matrix, sorted by
/// `(row, col)`, without duplicates, every value finite.
#[derive(Debug, Clone, PartialEq)]
pub struct Observations {
    rows: usize,
    cols: usize,
    row_idx: Vec<u32>,
    col_idx: Vec<u32>,
    values: Vec<f64>,
    /// The entries again in `(col, row)` order (a CSC index: row index and
    /// position in the `(row, col)` order), so the gradient's column pass
    /// walks the columns sequentially and reads each entry's residual from
    /// the row pass.
    csc_row: Vec<u32>,
    csc_col: Vec<u32>,
    csc_pos: Vec<u32>,
    /// Fixed blocks of the row pass: entry positions `0 = b₀ < b₁ < … = N`,
    /// cut at row boundaries, about [`BLOCK`] entries each; they depend on the
    /// data only, never on the thread count (see [`crate::kernel`]).
    row_blocks: Vec<usize>,
    /// The same for the column pass (CSC positions cut at column boundaries).
    col_blocks: Vec<usize>,
}

/// Target number of entries in one block of the gradient's passes.
pub(crate) const BLOCK: usize = 4096;

/// Block boundaries of a sorted key sequence: cuts after about `BLOCK`
/// entries, moved forward to the next change of key. O(N).
fn blocks(keys: impl Fn(usize) -> u32, len: usize) -> Vec<usize> {
    let mut b = vec![0];
    let mut e = 0;
    while e < len {
        let mut end = (e + BLOCK).min(len);
        while end < len && keys(end) == keys(end - 1) {
            end += 1;
        }
        b.push(end);
        e = end;
    }
    b
}

/// Empirical row and column marginals of an observation set:
/// `p̂ᵢ = |{(i, ·) ∈ Ω}| / N`, `q̂ⱼ = |{(·, j) ∈ Ω}| / N`.
#[derive(Debug, Clone, PartialEq)]
pub struct Marginals {
    /// `p̂`, length `rows`, sums to 1.
    pub row: Vec<f64>,
    /// `q̂`, length `cols`, sums to 1.
    pub col: Vec<f64>,
}

impl Marginals {
    /// The smoothed marginals `p̃ = (1 − ζ)p̂ + ζ/m`, `q̃ = (1 − ζ)q̂ + ζ/n`
    /// (Foygel et al.'s smoothing of the weighted trace norm).
    ///
    /// # Errors
    /// [`Error::InvalidSmoothing`] unless `ζ ∈ [0, 1]`.
    pub fn smoothed(&self, zeta: f64) -> Result<Marginals> {
        if !(0.0..=1.0).contains(&zeta) {
            return Err(Error::InvalidSmoothing { zeta });
        }
        let m = self.row.len() as f64;
        let n = self.col.len() as f64;
        Ok(Marginals {
            row: self
                .row
                .iter()
                .map(|&p| (1.0 - zeta) * p + zeta / m)
                .collect(),
            col: self
                .col
                .iter()
                .map(|&q| (1.0 - zeta) * q + zeta / n)
                .collect(),
        })
    }
}

impl Observations {
    /// Builds an observation set from `(row, col, value)` triplets.
    ///
    /// Sorts by `(row, col)`; O(N log N). Repeated `(row, col)` pairs follow
    /// `dup` (see [`Duplicates`]: rejected by default, else averaged).
    ///
    /// # Errors
    /// [`Error::EmptyObservations`] when `rows`, `cols` or the triplets are empty;
    /// [`Error::IndexOutOfBounds`]; [`Error::NonFiniteValue`] (index = position
    /// in the input); [`Error::DuplicateEntry`] under [`Duplicates::Reject`];
    /// [`Error::InvalidParameter`] for `rows` or `cols` above `u32::MAX`;
    /// [`Error::TooLarge`] when the per-row and per-column tables (`rows + cols`
    /// entries, built by the marginals and the column index) would exceed
    /// [`mlcore::check::MAX_ALLOC_BYTES`], or for `u32::MAX` triplets or more.
    pub fn from_triplets<I>(rows: usize, cols: usize, triplets: I, dup: Duplicates) -> Result<Self>
    where
        I: IntoIterator<Item = (usize, usize, f64)>,
    {
        if rows == 0 || cols == 0 {
            return Err(Error::EmptyObservations {
                what: "matrix dimensions",
            });
        }
        if rows > u32::MAX as usize || cols > u32::MAX as usize {
            return Err(Error::InvalidParameter {
                name: "rows/cols",
                value: rows.max(cols) as f64,
                expected: "at most u32::MAX",
            });
        }
        crate::error::check_alloc(&[rows.saturating_add(cols)], "row and column tables")?;
        let mut t: Vec<(u32, u32, f64)> = Vec::new();
        for (index, (i, j, y)) in triplets.into_iter().enumerate() {
            if i >= rows || j >= cols {
                return Err(Error::IndexOutOfBounds {
                    row: i,
                    col: j,
                    rows,
                    cols,
                });
            }
            if !y.is_finite() {
                return Err(Error::NonFiniteValue {
                    what: "observation values",
                    index,
                });
            }
            if t.len() == u32::MAX as usize {
                return Err(Error::TooLarge {
                    what: "observations (the column index holds u32 positions)",
                    size: "more than u32::MAX entries".into(),
                });
            }
            t.push((i as u32, j as u32, y));
        }
        if t.is_empty() {
            return Err(Error::EmptyObservations {
                what: "observations",
            });
        }
        // Stable sort keeps input order among duplicates (for a deterministic average).
        t.sort_by_key(|&(i, j, _)| (i, j));
        let mut out = Observations {
            rows,
            cols,
            row_idx: Vec::with_capacity(t.len()),
            col_idx: Vec::with_capacity(t.len()),
            values: Vec::with_capacity(t.len()),
            csc_row: Vec::new(),
            csc_col: Vec::new(),
            csc_pos: Vec::new(),
            row_blocks: Vec::new(),
            col_blocks: Vec::new(),
        };
        let mut s = 0;
        while s < t.len() {
            let (i, j, _) = t[s];
            let mut e = s + 1;
            while e < t.len() && t[e].0 == i && t[e].1 == j {
                e += 1;
            }
            if e - s > 1 && dup == Duplicates::Reject {
                return Err(Error::DuplicateEntry {
                    row: i as usize,
                    col: j as usize,
                });
            }
            let mean = if e - s == 1 {
                t[s].2
            } else {
                let vals: Vec<f64> = t[s..e].iter().map(|x| x.2).collect();
                mlcore::stats::mean(ndarray::ArrayView1::from(&vals[..]))?
            };
            out.row_idx.push(i);
            out.col_idx.push(j);
            out.values.push(mean);
            s = e;
        }
        out.build_col_order();
        Ok(out)
    }

    /// Counting sort of the entries by column (stable, so rows stay increasing
    /// within a column), stored as the CSC index, and the fixed blocks of both
    /// passes. O(N + n).
    fn build_col_order(&mut self) {
        let mut start = vec![0u32; self.cols + 1];
        for &j in &self.col_idx {
            start[j as usize + 1] += 1;
        }
        for j in 0..self.cols {
            start[j + 1] += start[j];
        }
        let n = self.len();
        let (mut rows, mut cols, mut pos) = (vec![0u32; n], vec![0u32; n], vec![0u32; n]);
        for (e, &j) in self.col_idx.iter().enumerate() {
            let q = start[j as usize] as usize;
            rows[q] = self.row_idx[e];
            cols[q] = j;
            // N < 2³² (from_triplets checks the entry count), so e fits.
            pos[q] = e as u32;
            start[j as usize] += 1;
        }
        self.row_blocks = blocks(|e| self.row_idx[e], n);
        self.col_blocks = blocks(|q| cols[q], n);
        (self.csc_row, self.csc_col, self.csc_pos) = (rows, cols, pos);
    }

    /// The entries in `(col, row)` order: row indices, column indices and
    /// positions in the `(row, col)` order.
    pub(crate) fn csc(&self) -> (&[u32], &[u32], &[u32]) {
        (&self.csc_row, &self.csc_col, &self.csc_pos)
    }

    /// Block boundaries of the row pass and of the column pass.
    pub(crate) fn blocks(&self) -> (&[usize], &[usize]) {
        (&self.row_blocks, &self.col_blocks)
    }

    /// Number of rows `m` of the matrix.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Number of columns `n` of the matrix.
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// Number of observed entries `N = |Ω|`.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Always false: an observation set holds at least one entry.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// Observed fraction `N / (m n)`.
    pub fn density(&self) -> f64 {
        self.len() as f64 / (self.rows as f64 * self.cols as f64)
    }

    /// Row indices, in entry order.
    pub fn row_indices(&self) -> &[u32] {
        &self.row_idx
    }

    /// Column indices, in entry order.
    pub fn col_indices(&self) -> &[u32] {
        &self.col_idx
    }

    /// Observed values `y`, in entry order.
    pub fn values(&self) -> &[f64] {
        &self.values
    }

    /// Iterates over `(row, col, value)`.
    pub fn iter(&self) -> impl Iterator<Item = (usize, usize, f64)> + '_ {
        (0..self.len()).map(|e| {
            (
                self.row_idx[e] as usize,
                self.col_idx[e] as usize,
                self.values[e],
            )
        })
    }

    /// Mean of the observed values ([`mlcore::stats::mean`]: pairwise
    /// summation, finite for any finite values); NaN when there is none. O(N).
    pub fn mean(&self) -> f64 {
        mlcore::stats::mean(ndarray::ArrayView1::from(&self.values[..])).unwrap_or(f64::NAN)
    }

    /// Population standard deviation `√(Σ(v − v̄)²/N)` of the observed values
    /// ([`mlcore::stats::variance`], numpy's `np.std`); NaN when there is none. O(N).
    /// Scaled first (`c·std(v/c)`, `c = max |v|`), so it is finite for any
    /// finite values (±1e308 included).
    pub fn std(&self) -> f64 {
        let c = crate::error::max_abs(&self.values);
        if c == 0.0 {
            return if self.values.is_empty() {
                f64::NAN
            } else {
                0.0
            };
        }
        let scaled: Vec<f64> = self.values.iter().map(|v| v / c).collect();
        mlcore::stats::variance(ndarray::ArrayView1::from(&scaled[..]), 0)
            .map_or(f64::NAN, |v| c * v.sqrt())
    }

    /// Empirical row and column marginals (see [`Marginals`]). O(N + m + n).
    pub fn marginals(&self) -> Marginals {
        let mut row = vec![0.0; self.rows];
        let mut col = vec![0.0; self.cols];
        let w = 1.0 / self.len() as f64;
        for e in 0..self.len() {
            row[self.row_idx[e] as usize] += w;
            col[self.col_idx[e] as usize] += w;
        }
        Marginals { row, col }
    }

    /// The subset of entries at the given positions (which must be valid, distinct
    /// positions; the result is re-sorted).
    fn subset(&self, positions: &[usize]) -> Observations {
        let mut pos = positions.to_vec();
        pos.sort_unstable();
        let mut o = Observations {
            rows: self.rows,
            cols: self.cols,
            row_idx: pos.iter().map(|&e| self.row_idx[e]).collect(),
            col_idx: pos.iter().map(|&e| self.col_idx[e]).collect(),
            values: pos.iter().map(|&e| self.values[e]).collect(),
            csc_row: Vec::new(),
            csc_col: Vec::new(),
            csc_pos: Vec::new(),
            row_blocks: Vec::new(),
            col_blocks: Vec::new(),
        };
        o.build_col_order();
        o
    }

    /// A random train/test split: `round(test_frac · N)` entries go to the test
    /// set, uniformly at random, the rest to the training set. O(N).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] unless `0 < test_frac < 1` and both parts
    /// are non-empty.
    pub fn split<R: Rng + ?Sized>(
        &self,
        test_frac: f64,
        rng: &mut R,
    ) -> Result<(Observations, Observations)> {
        let n_test = (test_frac * self.len() as f64).round() as usize;
        if !(test_frac > 0.0 && test_frac < 1.0) || n_test == 0 || n_test >= self.len() {
            return Err(Error::InvalidParameter {
                name: "test_frac",
                value: test_frac,
                expected: "in (0, 1), leaving both parts non-empty",
            });
        }
        let mut perm: Vec<usize> = (0..self.len()).collect();
        perm.shuffle(rng);
        let test = self.subset(&perm[..n_test]);
        let train = self.subset(&perm[n_test..]);
        Ok((train, test))
    }

    /// The same entries with every value replaced by `f(row, col, value)`.
    ///
    /// # Errors
    /// [`Error::NonFiniteValue`] if `f` returns a non-finite value.
    pub fn map_values(&self, mut f: impl FnMut(usize, usize, f64) -> f64) -> Result<Observations> {
        let mut out = self.clone();
        for e in 0..self.len() {
            let v = f(
                self.row_idx[e] as usize,
                self.col_idx[e] as usize,
                self.values[e],
            );
            if !v.is_finite() {
                return Err(Error::NonFiniteValue {
                    what: "mapped values",
                    index: e,
                });
            }
            out.values[e] = v;
        }
        Ok(out)
    }
}

/// Parses MovieLens `u.data` text: one rating per line, `user item rating
/// timestamp` separated by tabs (or any whitespace), 1-based ids. The matrix is
/// `max user × max item`; ids become 0-based indices. Blank lines are skipped.
///
/// # Errors
/// [`Error::Parse`] with the 1-based line number for a line with fewer than
/// three fields, a non-integer or zero id, or a non-numeric or non-finite
/// rating; [`Error::DuplicateEntry`] under [`Duplicates::Reject`];
/// [`Error::EmptyObservations`] for a file without ratings.
pub fn parse_movielens_udata(text: &str, dup: Duplicates) -> Result<Observations> {
    let mut trip = Vec::new();
    let (mut m, mut n) = (0usize, 0usize);
    for (k, line) in text.lines().enumerate() {
        let line_no = k + 1;
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() < 3 {
            return Err(Error::Parse {
                line: line_no,
                message: format!(
                    "expected `user item rating [timestamp]`, got {} field(s)",
                    f.len()
                ),
            });
        }
        let id = |s: &str, what: &str| -> Result<usize> {
            match s.parse::<usize>() {
                Ok(v) if v >= 1 => Ok(v),
                _ => Err(Error::Parse {
                    line: line_no,
                    message: format!("{what} id {s:?} is not a positive integer"),
                }),
            }
        };
        let u = id(f[0], "user")?;
        let i = id(f[1], "item")?;
        let r: f64 = match f[2].parse::<f64>() {
            Ok(v) if v.is_finite() => v,
            _ => {
                return Err(Error::Parse {
                    line: line_no,
                    message: format!("rating {:?} is not a finite number", f[2]),
                });
            }
        };
        m = m.max(u);
        n = n.max(i);
        trip.push((u - 1, i - 1, r));
    }
    if trip.is_empty() {
        return Err(Error::EmptyObservations {
            what: "ratings file",
        });
    }
    Observations::from_triplets(m, n, trip, dup)
}

/// Reads a MovieLens `u.data` file (see [`parse_movielens_udata`]).
///
/// # Errors
/// [`Error::Io`] when the file cannot be read, and those of [`parse_movielens_udata`].
pub fn read_movielens_udata(path: impl AsRef<Path>, dup: Duplicates) -> Result<Observations> {
    let p = path.as_ref();
    let text = std::fs::read_to_string(p).map_err(|e| Error::Io {
        path: p.display().to_string(),
        message: e.to_string(),
    })?;
    parse_movielens_udata(&text, dup)
}
