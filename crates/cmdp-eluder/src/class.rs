//! Finite reward and dynamics function classes ℱ and 𝒫.
//!
//! Members are stored as tables on the finite domain (contexts × states ×
//! actions): [`RewardClass::from_tables`] takes them directly,
//! [`RewardClass::from_fn`] / [`DynamicsClass::from_fn`] evaluate closures
//! (c, s, a) ↦ f(c, s, a) or (c, s, a, s') ↦ P(s' | c, s, a) once on the
//! domain. Realizability (f* ∈ ℱ, P* ∈ 𝒫) is the user's assumption;
//! [`RewardClass::index_of`] / [`DynamicsClass::index_of`] check it when the
//! truth is known.

use crate::cmdp::{LayeredSpace, check_reward};
use crate::error::{Error, Result, mismatch};
use ndarray::{Array, Array2, Array3, Array4, Dimension};

/// Fails with [`Error::DimensionMismatch`] unless every (c, s, a) point of
/// `domain` lies inside `dims`.
fn check_domain(domain: &[(usize, usize, usize)], dims: (usize, usize, usize)) -> Result<()> {
    let (nc, ns, na) = dims;
    match domain
        .iter()
        .find(|&&(c, s, a)| c >= nc || s >= ns || a >= na)
    {
        Some(p) => Err(mismatch(
            "domain point",
            format!("< ({nc}, {ns}, {na})"),
            format!("{p:?}"),
        )),
        None => Ok(()),
    }
}

/// The first model whose table equals `truth` within `tol` in max-norm (the
/// realizability check shared by both classes).
fn position_within<D: Dimension>(
    models: &[Array<f64, D>],
    truth: &Array<f64, D>,
    tol: f64,
    what: &'static str,
) -> Result<usize> {
    if truth.shape() != models[0].shape() {
        return Err(mismatch(
            if what == "reward" {
                "reward table"
            } else {
                "dynamics table"
            },
            format!("{:?}", models[0].shape()),
            format!("{:?}", truth.shape()),
        ));
    }
    models
        .iter()
        .position(|m| m.iter().zip(truth).all(|(a, b)| (a - b).abs() <= tol))
        .ok_or(Error::Unrealizable { what })
}

/// A finite class ℱ of mean-reward functions f(c, s, a) ∈ [0, 1], each a
/// C × S × A table.
#[derive(Debug, Clone, PartialEq)]
pub struct RewardClass {
    models: Vec<Array3<f64>>,
}

impl RewardClass {
    /// ℱ from tables (all C × S × A with the same shape, entries in [0, 1]).
    ///
    /// # Errors
    /// [`Error::EmptyClass`]; [`Error::DimensionMismatch`] for tables of
    /// different shapes; [`Error::InvalidParameter`] for an entry outside [0, 1].
    pub fn from_tables(models: Vec<Array3<f64>>) -> Result<Self> {
        let first = models.first().ok_or(Error::EmptyClass {
            what: "reward class",
        })?;
        let (_, ns, na) = first.dim();
        for (k, m) in models.iter().enumerate() {
            if m.dim() != first.dim() {
                return Err(mismatch(
                    "reward class member",
                    format!("{:?}", first.dim()),
                    format!("{:?}", m.dim()),
                ));
            }
            check_reward(m.view(), ns, na, k)?;
        }
        Ok(RewardClass { models })
    }

    /// ℱ = {f_k : k < n_models} from a closure `f(k, c, s, a)`, evaluated on
    /// the C × S × A domain (O(|ℱ|·C·S·A) calls).
    ///
    /// # Errors
    /// As [`RewardClass::from_tables`]; [`Error::Core`] (`TooLarge`) when
    /// |ℱ|·C·S·A overflows or exceeds [`mlcore::check::MAX_ALLOC_BYTES`].
    pub fn from_fn<F>(n_models: usize, dims: (usize, usize, usize), f: F) -> Result<Self>
    where
        F: Fn(usize, usize, usize, usize) -> f64,
    {
        mlcore::check::alloc_len(
            &[n_models, dims.0, dims.1, dims.2],
            std::mem::size_of::<f64>(),
            "reward class tables (|ℱ| × C × S × A)",
        )?;
        mlcore::check::alloc_len(
            &[n_models],
            std::mem::size_of::<Array3<f64>>(),
            "reward class members",
        )?;
        Self::from_tables(
            (0..n_models)
                .map(|k| Array3::from_shape_fn(dims, |(c, s, a)| f(k, c, s, a)))
                .collect(),
        )
    }

    /// |ℱ|.
    pub fn len(&self) -> usize {
        self.models.len()
    }
    /// Always false (a class is never empty).
    pub fn is_empty(&self) -> bool {
        self.models.is_empty()
    }
    /// The table of member k.
    ///
    /// # Errors
    /// [`Error::DimensionMismatch`] for k ≥ |ℱ|.
    pub fn model(&self, k: usize) -> Result<&Array3<f64>> {
        self.models
            .get(k)
            .ok_or_else(|| mismatch("class member", format!("< {}", self.models.len()), k))
    }
    /// All members.
    pub fn models(&self) -> &[Array3<f64>] {
        &self.models
    }
    /// (C, S, A).
    pub fn dims(&self) -> (usize, usize, usize) {
        self.models[0].dim()
    }
    /// The first index whose table equals `truth` within `tol` (max-norm),
    /// i.e. a realizability check.
    ///
    /// # Errors
    /// [`Error::Unrealizable`] if no member matches; [`Error::DimensionMismatch`].
    pub fn index_of(&self, truth: &Array3<f64>, tol: f64) -> Result<usize> {
        position_within(&self.models, truth, tol, "reward")
    }
    /// Outputs on a domain of (c, s, a) points, one length-1 row per point,
    /// for [`crate::eluder::eluder_dimension`] with
    /// [`crate::metric::abs_metric`].
    ///
    /// # Errors
    /// [`Error::DimensionMismatch`] for a point out of range.
    pub fn eluder_outputs(&self, domain: &[(usize, usize, usize)]) -> Result<Vec<Array2<f64>>> {
        let (nc, ns, na) = self.dims();
        check_domain(domain, (nc, ns, na))?;
        Ok(self
            .models
            .iter()
            .map(|m| {
                Array2::from_shape_fn((domain.len(), 1), |(i, _)| {
                    let (c, s, a) = domain[i];
                    m[[c, s, a]]
                })
            })
            .collect())
    }
}

/// A finite class 𝒫 of layered dynamics P(s' | c, s, a), each a
/// C × S × A × S table validated by [`LayeredSpace::check_dynamics`].
#[derive(Debug, Clone, PartialEq)]
pub struct DynamicsClass {
    space: LayeredSpace,
    n_actions: usize,
    models: Vec<Array4<f64>>,
}

impl DynamicsClass {
    /// 𝒫 from tables.
    ///
    /// # Errors
    /// [`Error::EmptyClass`]; [`Error::DimensionMismatch`];
    /// [`Error::InvalidDistribution`]; [`Error::NotLayered`] (naming the model).
    pub fn from_tables(
        space: LayeredSpace,
        n_actions: usize,
        models: Vec<Array4<f64>>,
    ) -> Result<Self> {
        let first = models.first().ok_or(Error::EmptyClass {
            what: "dynamics class",
        })?;
        let nc = first.dim().0;
        for (k, m) in models.iter().enumerate() {
            if m.dim().0 != nc {
                return Err(mismatch(
                    "contexts of a dynamics class member",
                    nc,
                    m.dim().0,
                ));
            }
            space.check_dynamics(m.view(), n_actions, k)?;
        }
        Ok(DynamicsClass {
            space,
            n_actions,
            models,
        })
    }

    /// 𝒫 = {P_k : k < n_models} from a closure `p(k, c, s, a, s')` evaluated
    /// on the C × S × A × S domain (O(|𝒫|·C·S²·A) calls).
    ///
    /// # Errors
    /// As [`DynamicsClass::from_tables`]; [`Error::Core`] (`TooLarge`) when
    /// |𝒫|·C·S²·A overflows or exceeds [`mlcore::check::MAX_ALLOC_BYTES`].
    pub fn from_fn<F>(
        space: LayeredSpace,
        n_actions: usize,
        n_contexts: usize,
        n_models: usize,
        p: F,
    ) -> Result<Self>
    where
        F: Fn(usize, usize, usize, usize, usize) -> f64,
    {
        let ns = space.n_states();
        mlcore::check::alloc_len(
            &[n_models, n_contexts, ns, n_actions, ns],
            std::mem::size_of::<f64>(),
            "dynamics class tables (|𝒫| × C × S × A × S)",
        )?;
        mlcore::check::alloc_len(
            &[n_models],
            std::mem::size_of::<Array4<f64>>(),
            "dynamics class members",
        )?;
        let models = (0..n_models)
            .map(|k| {
                Array4::from_shape_fn((n_contexts, ns, n_actions, ns), |(c, s, a, s2)| {
                    p(k, c, s, a, s2)
                })
            })
            .collect();
        Self::from_tables(space, n_actions, models)
    }

    /// |𝒫|.
    pub fn len(&self) -> usize {
        self.models.len()
    }
    /// Always false (a class is never empty).
    pub fn is_empty(&self) -> bool {
        self.models.is_empty()
    }
    /// The table of member k.
    ///
    /// # Errors
    /// [`Error::DimensionMismatch`] for k ≥ |𝒫|.
    pub fn model(&self, k: usize) -> Result<&Array4<f64>> {
        self.models
            .get(k)
            .ok_or_else(|| mismatch("class member", format!("< {}", self.models.len()), k))
    }
    /// All members.
    pub fn models(&self) -> &[Array4<f64>] {
        &self.models
    }
    /// The layered space.
    pub fn space(&self) -> &LayeredSpace {
        &self.space
    }
    /// A.
    pub fn n_actions(&self) -> usize {
        self.n_actions
    }
    /// C.
    pub fn n_contexts(&self) -> usize {
        self.models[0].dim().0
    }
    /// The first index whose table equals `truth` within `tol`.
    ///
    /// # Errors
    /// [`Error::Unrealizable`]; [`Error::DimensionMismatch`].
    pub fn index_of(&self, truth: &Array4<f64>, tol: f64) -> Result<usize> {
        position_within(&self.models, truth, tol, "dynamics")
    }
    /// Outputs on a domain of (c, s, a) points: row i is P_k(· | c, s, a)
    /// (length S), for [`crate::eluder::eluder_dimension`] with
    /// [`crate::metric::hellinger_metric`]. Points should lie in layers
    /// < H−1 (last-layer rows are zero, not distributions).
    ///
    /// # Errors
    /// [`Error::DimensionMismatch`] for a point out of range.
    pub fn eluder_outputs(&self, domain: &[(usize, usize, usize)]) -> Result<Vec<Array2<f64>>> {
        let (nc, ns, na, _) = self.models[0].dim();
        check_domain(domain, (nc, ns, na))?;
        Ok(self
            .models
            .iter()
            .map(|m| {
                Array2::from_shape_fn((domain.len(), ns), |(i, s2)| {
                    let (c, s, a) = domain[i];
                    m[[c, s, a, s2]]
                })
            })
            .collect())
    }
}
