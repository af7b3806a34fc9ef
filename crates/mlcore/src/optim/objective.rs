//! What is minimised ([`Objective`]) and what a minimisation returns
//! ([`LocalFit`]).

use crate::error::{Error, Result};

/// A function to minimise: values and gradients on `f64` slices.
///
/// [`Objective::Error`] is what a failed evaluation reports (for example a
/// paper crate's own error); it must absorb this module's [`Error`]s
/// (`From<mlcore::Error>`), which is what every paper crate's error type
/// does with `#[from]`.
pub trait Objective {
    /// What a failed evaluation reports.
    type Error;
    /// `f(x)`.
    ///
    /// # Errors
    /// Whatever the objective reports at `x`.
    fn value(&self, x: &[f64]) -> std::result::Result<f64, Self::Error>;
    /// `(f(x), ∇f(x))`.
    ///
    /// # Errors
    /// Whatever the objective reports at `x`.
    fn value_grad(&self, x: &[f64]) -> std::result::Result<(f64, Vec<f64>), Self::Error>;
    /// `∇f(x)` alone (the logistic method asks for values and gradients
    /// separately); by default the gradient of [`Objective::value_grad`].
    ///
    /// # Errors
    /// Whatever the objective reports at `x`.
    fn gradient(&self, x: &[f64]) -> std::result::Result<Vec<f64>, Self::Error> {
        self.value_grad(x).map(|(_, g)| g)
    }
}

impl<O: Objective + ?Sized> Objective for &O {
    type Error = O::Error;
    fn value(&self, x: &[f64]) -> std::result::Result<f64, Self::Error> {
        (**self).value(x)
    }
    fn value_grad(&self, x: &[f64]) -> std::result::Result<(f64, Vec<f64>), Self::Error> {
        (**self).value_grad(x)
    }
    fn gradient(&self, x: &[f64]) -> std::result::Result<Vec<f64>, Self::Error> {
        (**self).gradient(x)
    }
}

/// A closure `x ↦ (f(x), ∇f(x))` as an [`Objective`] that never fails
/// (its error type is [`Error`]).
#[derive(Debug, Clone, Copy)]
pub struct FnObjective<F>(pub F);

impl<F: Fn(&[f64]) -> (f64, Vec<f64>)> Objective for FnObjective<F> {
    type Error = Error;
    fn value(&self, x: &[f64]) -> Result<f64> {
        Ok((self.0)(x).0)
    }
    fn value_grad(&self, x: &[f64]) -> Result<(f64, Vec<f64>)> {
        Ok((self.0)(x))
    }
}

/// The result of one minimisation.
#[derive(Debug, Clone, PartialEq)]
pub struct LocalFit {
    /// The best point found (inside the box).
    pub params: Vec<f64>,
    /// Its objective value.
    pub loss: f64,
    /// L-BFGS iterations.
    pub iters: u64,
    /// Objective evaluations (values only, line-search trials included; the
    /// start check of [`minimize`](super::minimize) is not counted).
    pub evals: u64,
    /// Gradient evaluations.
    pub grad_evals: u64,
}
