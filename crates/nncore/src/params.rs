//! Named trainable parameters with frozen-parameter masks.
//!
//! A [`ParamSet`] owns the `candle_core::Var`s of a model under unique names,
//! each either trainable or frozen. The training loop ([`crate::train`])
//! hands only the trainable ones to the optimiser, so a frozen parameter is
//! never changed (not even by weight decay), while gradients still flow
//! through it to the parameters before it.

use crate::error::{Error, Result};
use candle_core::{Tensor, Var};

/// One named parameter.
#[derive(Debug, Clone)]
pub struct Param {
    /// Its unique name (for example `"layer1.weight"`).
    pub name: String,
    /// The variable (shared: cloning a `Var` refers to the same storage).
    pub var: Var,
    /// Whether the optimiser leaves it unchanged.
    pub frozen: bool,
}

/// The parameters of a model, in insertion order.
#[derive(Debug, Clone, Default)]
pub struct ParamSet {
    params: Vec<Param>,
}

impl ParamSet {
    /// An empty set.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a trainable parameter initialised to `init` (for example from
    /// [`crate::init`]) and returns its variable. O(numel) (a copy).
    ///
    /// # Errors
    /// [`Error::Parameter`] when the name is taken, [`Error::Candle`] when
    /// `init` is not a floating-point tensor.
    pub fn add(&mut self, name: impl Into<String>, init: &Tensor) -> Result<Var> {
        let name = name.into();
        if self.get(&name).is_some() {
            return Err(Error::Parameter {
                name,
                reason: "the name is already taken",
            });
        }
        if !init.dtype().is_float() {
            return Err(Error::Parameter {
                name,
                reason: "the initial value is not a floating-point tensor",
            });
        }
        let var = Var::from_tensor(init)?;
        self.params.push(Param {
            name,
            var: var.clone(),
            frozen: false,
        });
        Ok(var)
    }

    /// The variable named `name`.
    pub fn get(&self, name: &str) -> Option<&Var> {
        self.params.iter().find(|p| p.name == name).map(|p| &p.var)
    }

    /// Freezes (`true`) or unfreezes (`false`) the parameter named `name`.
    ///
    /// # Errors
    /// [`Error::Parameter`] when no parameter has that name.
    pub fn set_frozen(&mut self, name: &str, frozen: bool) -> Result<()> {
        match self.params.iter_mut().find(|p| p.name == name) {
            Some(p) => {
                p.frozen = frozen;
                Ok(())
            }
            None => Err(Error::Parameter {
                name: name.to_string(),
                reason: "no parameter has this name",
            }),
        }
    }

    /// Freezes every parameter whose name starts with `prefix` (a block);
    /// returns how many matched.
    pub fn freeze_prefix(&mut self, prefix: &str) -> usize {
        self.params
            .iter_mut()
            .filter(|p| p.name.starts_with(prefix))
            .map(|p| p.frozen = true)
            .count()
    }

    /// Every parameter, in insertion order.
    pub fn iter(&self) -> impl Iterator<Item = &Param> {
        self.params.iter()
    }

    /// The number of parameters (tensors, not scalars).
    pub fn len(&self) -> usize {
        self.params.len()
    }

    /// Whether the set has no parameter.
    pub fn is_empty(&self) -> bool {
        self.params.is_empty()
    }

    /// The variables the optimiser may change.
    pub fn trainable(&self) -> Vec<Var> {
        self.params
            .iter()
            .filter(|p| !p.frozen)
            .map(|p| p.var.clone())
            .collect()
    }

    /// Copies of the current values, in insertion order (for restoring later).
    ///
    /// # Errors
    /// [`Error::Candle`].
    pub fn snapshot(&self) -> Result<Vec<Tensor>> {
        Ok(self
            .params
            .iter()
            .map(|p| p.var.as_tensor().copy())
            .collect::<candle_core::Result<_>>()?)
    }

    /// Sets every parameter to the values of a [`snapshot`](Self::snapshot).
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] for a snapshot of another set, [`Error::Candle`].
    pub fn restore(&self, snapshot: &[Tensor]) -> Result<()> {
        if snapshot.len() != self.params.len() {
            return Err(Error::ShapeMismatch {
                what: "tensors in the snapshot vs parameters",
                expected: self.params.len(),
                got: snapshot.len(),
            });
        }
        for (p, t) in self.params.iter().zip(snapshot) {
            p.var.set(t)?;
        }
        Ok(())
    }
}
