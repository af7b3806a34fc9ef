//! Solver grids and noisy observations.

use crate::error::{Error, Result};
use ndarray::{Array2, ArrayView2};

/// A fixed solver grid `t₀ < t₁ < … < t_N`.
#[derive(Debug, Clone, PartialEq)]
pub struct Grid {
    times: Vec<f64>,
}

impl Grid {
    /// A grid through the given times.
    ///
    /// # Errors
    /// [`Error::EmptyData`] for fewer than two times,
    /// [`Error::NonMonotoneTimes`] unless finite and strictly increasing.
    pub fn new(times: Vec<f64>) -> Result<Self> {
        if times.len() < 2 {
            return Err(Error::EmptyData);
        }
        check_increasing(&times)?;
        Ok(Grid { times })
    }

    /// The uniform grid `t₀ + i·h`, `i = 0..=n` with `n = round((t₁−t₀)/h)`;
    /// the last point is set to `t₁` exactly.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] unless `t₁ > t₀` and `0 < h ≤ t₁ − t₀`
    /// (all finite, and the span too); [`Error::Core`] (`TooLarge`) when the
    /// grid's `(t₁ − t₀)/h + 1` points would exceed the allocation cap.
    pub fn uniform(t0: f64, t1: f64, h: f64) -> Result<Self> {
        if !(t0.is_finite() && t1.is_finite() && t1 > t0) {
            return Err(Error::InvalidParameter {
                name: "t1",
                value: t1,
                expected: "finite and > t0",
            });
        }
        if !(h.is_finite() && h > 0.0 && h <= t1 - t0) {
            return Err(Error::InvalidParameter {
                name: "step h",
                value: h,
                expected: "0 < h <= t1 - t0",
            });
        }
        if !(t1 - t0).is_finite() {
            return Err(Error::InvalidParameter {
                name: "t1 − t0",
                value: t1 - t0,
                expected: "a finite span",
            });
        }
        let steps = ((t1 - t0) / h).round().max(1.0);
        // The grid holds N + 1 f64 values: check before allocating.
        let n = mlcore::check::alloc_len(
            &[(steps.min(usize::MAX as f64) as usize).saturating_add(1)],
            8,
            "time grid ((t1 − t0)/h + 1 points)",
        )? - 1;
        let mut times: Vec<f64> = (0..=n).map(|i| t0 + i as f64 * h).collect();
        times[n] = t1;
        Grid::new(times)
    }

    /// The grid points.
    pub fn times(&self) -> &[f64] {
        &self.times
    }

    /// Number of points `N + 1`.
    pub fn len(&self) -> usize {
        self.times.len()
    }

    /// Always false (a grid has at least two points).
    pub fn is_empty(&self) -> bool {
        self.times.is_empty()
    }

    /// Index of the grid point equal to `t` (to `10⁻⁹·max(1, |t|)`), by
    /// bisection.
    pub fn index_of(&self, t: f64) -> Option<usize> {
        let tol = 1e-9 * t.abs().max(1.0);
        let i = self.times.partition_point(|&s| s < t - tol);
        (i < self.times.len() && (self.times[i] - t).abs() <= tol).then_some(i)
    }
}

fn check_increasing(times: &[f64]) -> Result<()> {
    for (i, &t) in times.iter().enumerate() {
        if !t.is_finite() || (i > 0 && t <= times[i - 1]) {
            return Err(Error::NonMonotoneTimes { index: i });
        }
    }
    Ok(())
}

/// Noisy linear observations `y_k = H_obs x(t_k) + ε_k`, `ε_k ~ N(0, σ²I)`.
#[derive(Debug, Clone, PartialEq)]
pub struct Observations {
    times: Vec<f64>,
    values: Array2<f64>,
    proj: Array2<f64>,
    noise_var: f64,
}

impl Observations {
    /// Observations at `times` (`n`), `values` (`n × k`), the projection
    /// `H_obs` (`k × d`) and the noise variance `σ²`.
    ///
    /// # Errors
    /// [`Error::EmptyData`], [`Error::NonMonotoneTimes`],
    /// [`Error::DimensionMismatch`] (rows of `values` vs times, columns of
    /// `values` vs rows of `H_obs`), [`Error::NonFiniteInput`],
    /// [`Error::InvalidNoiseVariance`].
    pub fn new(
        times: Vec<f64>,
        values: Array2<f64>,
        proj: Array2<f64>,
        noise_var: f64,
    ) -> Result<Self> {
        if times.is_empty() || values.is_empty() {
            return Err(Error::EmptyData);
        }
        check_increasing(&times)?;
        if values.nrows() != times.len() {
            return Err(Error::DimensionMismatch {
                what: "rows of values vs number of times",
                expected: times.len(),
                got: values.nrows(),
            });
        }
        if values.ncols() != proj.nrows() {
            return Err(Error::DimensionMismatch {
                what: "columns of values vs rows of the projection",
                expected: proj.nrows(),
                got: values.ncols(),
            });
        }
        if proj.ncols() == 0 {
            return Err(Error::EmptyData);
        }
        if let Some(i) = values.iter().position(|v| !v.is_finite()) {
            return Err(Error::NonFiniteInput {
                what: "values",
                index: i,
            });
        }
        if let Some(i) = proj.iter().position(|v| !v.is_finite()) {
            return Err(Error::NonFiniteInput {
                what: "projection",
                index: i,
            });
        }
        if !(noise_var.is_finite() && noise_var > 0.0) {
            return Err(Error::InvalidNoiseVariance(noise_var));
        }
        Ok(Observations {
            times,
            values,
            proj,
            noise_var,
        })
    }

    /// `H_obs` selecting the listed state components of a `dim`-state ODE.
    ///
    /// # Errors
    /// [`Error::DimensionMismatch`] for an index `≥ dim`; [`Error::EmptyData`]
    /// for no index.
    pub fn selector(components: &[usize], dim: usize) -> Result<Array2<f64>> {
        if components.is_empty() {
            return Err(Error::EmptyData);
        }
        let mut h = Array2::zeros((components.len(), dim));
        for (o, &c) in components.iter().enumerate() {
            if c >= dim {
                return Err(Error::DimensionMismatch {
                    what: "observed component index (must be < dim)",
                    expected: dim,
                    got: c,
                });
            }
            h[[o, c]] = 1.0;
        }
        Ok(h)
    }

    /// Observation times.
    pub fn times(&self) -> &[f64] {
        &self.times
    }
    /// Observed values (`n × k`).
    pub fn values(&self) -> ArrayView2<'_, f64> {
        self.values.view()
    }
    /// The projection `H_obs` (`k × d`).
    pub fn proj(&self) -> ArrayView2<'_, f64> {
        self.proj.view()
    }
    /// The noise variance `σ²`.
    pub fn noise_var(&self) -> f64 {
        self.noise_var
    }
    /// Number of observation times.
    pub fn len(&self) -> usize {
        self.times.len()
    }
    /// Never true for a constructed value.
    pub fn is_empty(&self) -> bool {
        self.times.is_empty()
    }
}
