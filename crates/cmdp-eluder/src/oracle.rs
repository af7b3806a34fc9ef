//! Offline regression oracles (paper: least squares for rewards, log loss
//! for dynamics) and the data they are fitted on.
//!
//! - [`LeastSquaresOracle`]: f̂ = argmin_{f ∈ ℱ} Σ_i (f(cᵢ, sᵢ, aᵢ) − rᵢ)².
//! - [`LogLossOracle`]: P̂ = argmin_{P ∈ 𝒫} Σ_i −ln P(s'ᵢ | cᵢ, sᵢ, aᵢ).
//!
//! The enumeration implementations ([`EnumerationLeastSquares`],
//! [`EnumerationLogLoss`]) compute every member's loss exactly and return the
//! first minimiser (ties by index). They evaluate the losses on sufficient
//! statistics (counts n(c,s,a), Σr, Σr², n(c,s,a,s')), so one fit costs
//! O(|ℱ|·C·S·A) or O(|𝒫|·C·S²·A) however much data there is.
//!
//! **Plugging in your own regressor.** Implement the trait: `fit` receives
//! the whole [`Dataset`] (raw [`Transition`]s via [`Dataset::transitions`] or
//! the counts) and returns the fitted table; `log_cardinality` returns the
//! ln|ℱ| (or ln|𝒫|) that enters the confidence width β (an effective
//! log-covering number for an infinite class). The agents only call `fit`
//! at epoch starts (E-UC³RL) or every episode (greedy), never inside
//! planning, which is the paper's "efficient given efficient offline oracles".
//!
//! ```
//! use cmdp_eluder::agent::{EUc3rl, EUc3rlParams};
//! use cmdp_eluder::instances::xor_instance;
//! use cmdp_eluder::oracle::{Dataset, EnumerationLogLoss, LeastSquaresOracle, RewardFit};
//! use cmdp_eluder::regret::run_regret;
//! use ndarray::Array3;
//!
//! /// A user regressor: the empirical mean reward per (c, s, a) (0.5 where
//! /// unseen), i.e. least squares over the class of *all* tables.
//! struct TabularMeans;
//! impl LeastSquaresOracle for TabularMeans {
//!     fn fit(&mut self, data: &Dataset) -> cmdp_eluder::Result<RewardFit> {
//!         let (nc, ns, na) = data.dims();
//!         let (mut sum, mut n) = (Array3::<f64>::zeros((nc, ns, na)), Array3::<f64>::zeros((nc, ns, na)));
//!         for t in data.transitions() {
//!             sum[[t.context, t.state, t.action]] += t.reward;
//!             n[[t.context, t.state, t.action]] += 1.0;
//!         }
//!         let table = Array3::from_shape_fn((nc, ns, na), |i| if n[i] > 0.0 { sum[i] / n[i] } else { 0.5 });
//!         Ok(RewardFit { table, index: None })
//!     }
//!     /// Effective log-size: one Bernoulli mean per (c, s, a) at precision 1/100.
//!     fn log_cardinality(&self) -> f64 {
//!         120.0 * 100f64.ln()
//!     }
//! }
//!
//! let inst = xor_instance(10, 8)?;
//! let mut agent = EUc3rl::new(
//!     inst.cmdp.space().clone(), 10, 2,
//!     TabularMeans,
//!     EnumerationLogLoss::new(inst.dynamics.clone()),
//!     EUc3rlParams::default(),
//! )?;
//! let trace = run_regret(&inst.cmdp, &mut agent, 50, &mut mlcore::sampling::seeded(0))?;
//! assert_eq!(trace.cumulative.len(), 50);
//! # Ok::<(), cmdp_eluder::Error>(())
//! ```

use crate::class::{DynamicsClass, RewardClass};
use crate::cmdp::Trajectory;
use crate::error::{Error, Result, mismatch};
use ndarray::{Array3, Array4};

/// One observed transition (c, s, a, r, s').
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Transition {
    /// Context c.
    pub context: usize,
    /// State s.
    pub state: usize,
    /// Action a.
    pub action: usize,
    /// Reward r.
    pub reward: f64,
    /// Next state s' (`None` in the last layer).
    pub next: Option<usize>,
}

/// All data seen so far: the raw transitions and their sufficient statistics.
#[derive(Debug, Clone, PartialEq)]
pub struct Dataset {
    transitions: Vec<Transition>,
    /// n(c, s, a), Σ r, Σ r².
    n: Array3<f64>,
    sum_r: Array3<f64>,
    sum_r2: Array3<f64>,
    /// n(c, s, a, s').
    trans: Array4<f64>,
}

impl Dataset {
    /// An empty dataset for C contexts, S states and A actions: count tables
    /// of C·S·A and C·S·A·S entries. O(C·S²·A) memory.
    ///
    /// # Errors
    /// [`Error::Core`] (`TooLarge`) when C·S·A·S overflows or the tables
    /// would exceed [`mlcore::check::MAX_ALLOC_BYTES`].
    pub fn new(n_contexts: usize, n_states: usize, n_actions: usize) -> Result<Self> {
        mlcore::check::alloc_len(
            &[n_contexts, n_states, n_actions, n_states.max(3)],
            std::mem::size_of::<f64>(),
            "dataset count tables (C × S × A × max(S, 3))",
        )?;
        let d3 = (n_contexts, n_states, n_actions);
        Ok(Dataset {
            transitions: Vec::new(),
            n: Array3::zeros(d3),
            sum_r: Array3::zeros(d3),
            sum_r2: Array3::zeros(d3),
            trans: Array4::zeros((n_contexts, n_states, n_actions, n_states)),
        })
    }

    /// Adds one transition. O(1).
    ///
    /// # Errors
    /// [`Error::DimensionMismatch`] for an index out of range;
    /// [`Error::InvalidParameter`] for a non-finite reward.
    pub fn push(&mut self, t: Transition) -> Result<()> {
        let (nc, ns, na) = self.n.dim();
        if t.context >= nc || t.state >= ns || t.action >= na || t.next.is_some_and(|s| s >= ns) {
            return Err(mismatch(
                "transition indices",
                format!("c < {nc}, s, s' < {ns}, a < {na}"),
                format!("{t:?}"),
            ));
        }
        if !t.reward.is_finite() {
            return Err(Error::InvalidParameter {
                name: "reward",
                value: t.reward,
                expected: "a finite reward",
            });
        }
        let i = [t.context, t.state, t.action];
        self.n[i] += 1.0;
        self.sum_r[i] += t.reward;
        self.sum_r2[i] += t.reward * t.reward;
        if let Some(s2) = t.next {
            self.trans[[t.context, t.state, t.action, s2]] += 1.0;
        }
        self.transitions.push(t);
        Ok(())
    }

    /// Adds every step of an episode.
    ///
    /// # Errors
    /// As [`Dataset::push`].
    pub fn push_trajectory(&mut self, traj: &Trajectory) -> Result<()> {
        for st in &traj.steps {
            self.push(Transition {
                context: traj.context,
                state: st.state,
                action: st.action,
                reward: st.reward,
                next: st.next,
            })?;
        }
        Ok(())
    }

    /// The raw transitions, in arrival order.
    pub fn transitions(&self) -> &[Transition] {
        &self.transitions
    }
    /// Number of transitions.
    pub fn len(&self) -> usize {
        self.transitions.len()
    }
    /// Whether no data was seen.
    pub fn is_empty(&self) -> bool {
        self.transitions.is_empty()
    }
    /// (C, S, A).
    pub fn dims(&self) -> (usize, usize, usize) {
        self.n.dim()
    }
    /// n(c, s, a, s'), the transition counts.
    pub fn transition_counts(&self) -> &Array4<f64> {
        &self.trans
    }

    /// Squared loss L_sq(f) = Σᵢ (f(cᵢ,sᵢ,aᵢ) − rᵢ)²
    /// = Σ_{c,s,a} n·f² − 2f·Σr + Σr². O(C·S·A).
    ///
    /// # Errors
    /// [`Error::DimensionMismatch`] if `f` is not C × S × A.
    pub fn squared_loss(&self, f: &Array3<f64>) -> Result<f64> {
        if f.dim() != self.n.dim() {
            return Err(mismatch(
                "reward table",
                format!("{:?}", self.n.dim()),
                format!("{:?}", f.dim()),
            ));
        }
        let mut loss = 0.0;
        let owned;
        let fv_slice = match f.as_slice() {
            Some(x) => x,
            None => {
                owned = f.iter().copied().collect::<Vec<f64>>();
                &owned
            }
        };
        let (n, sr, sr2) = (
            self.n.as_slice().unwrap_or(&[]),
            self.sum_r.as_slice().unwrap_or(&[]),
            self.sum_r2.as_slice().unwrap_or(&[]),
        );
        for (((&n, &sr), &sr2), &fv) in n.iter().zip(sr).zip(sr2).zip(fv_slice) {
            if n > 0.0 {
                loss += n * fv * fv - 2.0 * fv * sr + sr2;
            }
        }
        Ok(loss.max(0.0))
    }

    /// Log loss L_log(P) = −Σᵢ ln P(s'ᵢ | cᵢ, sᵢ, aᵢ) = −Σ n(c,s,a,s')·ln P(s'|c,s,a).
    /// O(C·S²·A). `model` names P in the error.
    ///
    /// # Errors
    /// [`Error::LogZero`] (naming the first such transition) when P gives
    /// probability 0 to an observed transition; [`Error::DimensionMismatch`].
    pub fn log_loss(&self, p: &Array4<f64>, model: usize) -> Result<f64> {
        if p.dim() != self.trans.dim() {
            return Err(mismatch(
                "dynamics table",
                format!("{:?}", self.trans.dim()),
                format!("{:?}", p.dim()),
            ));
        }
        let mut loss = 0.0;
        let mut zero = None;
        let owned;
        let pv_slice = match p.as_slice() {
            Some(x) => x,
            None => {
                owned = p.iter().copied().collect::<Vec<f64>>();
                &owned
            }
        };
        let counts = self.trans.as_slice().unwrap_or(&[]);
        for ((i, &n), &pv) in counts.iter().enumerate().zip(pv_slice) {
            if n > 0.0 {
                if pv <= 0.0 {
                    zero = Some(i);
                    break;
                }
                loss -= n * pv.ln();
            }
        }
        if let Some(i) = zero {
            let (_, ns, na, _) = self.trans.dim();
            return Err(Error::LogZero {
                model,
                context: i / (ns * na * ns),
                state: (i / (na * ns)) % ns,
                action: (i / ns) % na,
                next: i % ns,
            });
        }
        Ok(loss)
    }
}

/// The fitted reward model: f̂ as a C × S × A table, and its index in ℱ when
/// the oracle selects a class member.
#[derive(Debug, Clone, PartialEq)]
pub struct RewardFit {
    /// f̂(c, s, a).
    pub table: Array3<f64>,
    /// Index in ℱ (enumeration oracles).
    pub index: Option<usize>,
}

/// The fitted dynamics: P̂ as a C × S × A × S table, its index in 𝒫, and the
/// models the log-zero rule eliminated (reported, not silently ∞).
#[derive(Debug, Clone, PartialEq)]
pub struct DynamicsFit {
    /// P̂(s' | c, s, a).
    pub table: Array4<f64>,
    /// Index in 𝒫 (enumeration oracles).
    pub index: Option<usize>,
    /// One [`Error::LogZero`] per model with infinite log loss.
    pub eliminated: Vec<Error>,
}

/// Offline least-squares regression oracle for rewards.
pub trait LeastSquaresOracle {
    /// f̂ ∈ argmin_f Σᵢ (f(cᵢ,sᵢ,aᵢ) − rᵢ)² on all of `data`.
    ///
    /// # Errors
    /// Implementation-defined (shape errors for the enumeration oracle).
    fn fit(&mut self, data: &Dataset) -> Result<RewardFit>;
    /// ln|ℱ| (or an effective log-size), used in the confidence width β.
    fn log_cardinality(&self) -> f64;
}

/// Offline log-loss regression oracle for dynamics.
pub trait LogLossOracle {
    /// P̂ ∈ argmin_P −Σᵢ ln P(s'ᵢ | cᵢ,sᵢ,aᵢ) on all of `data`.
    ///
    /// # Errors
    /// Implementation-defined; the enumeration oracle returns
    /// [`Error::LogZero`] (the first model's) when *every* model has infinite loss.
    fn fit(&mut self, data: &Dataset) -> Result<DynamicsFit>;
    /// ln|𝒫| (or an effective log-size), used in β.
    fn log_cardinality(&self) -> f64;
}

/// Exact least squares over a finite ℱ by enumeration (ties → lowest index).
#[derive(Debug, Clone)]
pub struct EnumerationLeastSquares {
    class: RewardClass,
}

impl EnumerationLeastSquares {
    /// The oracle for ℱ.
    pub fn new(class: RewardClass) -> Self {
        EnumerationLeastSquares { class }
    }
    /// The class.
    pub fn class(&self) -> &RewardClass {
        &self.class
    }
    /// L_sq(f) for every f ∈ ℱ. O(|ℱ|·C·S·A).
    ///
    /// # Errors
    /// [`Error::DimensionMismatch`] when data and class shapes differ.
    pub fn losses(&self, data: &Dataset) -> Result<Vec<f64>> {
        self.class
            .models()
            .iter()
            .map(|f| data.squared_loss(f))
            .collect()
    }
}

/// First index of the minimum (strict `<`, so ties go to the lowest index).
pub(crate) fn argmin_first(losses: impl IntoIterator<Item = f64>) -> Option<usize> {
    let mut best: Option<(usize, f64)> = None;
    for (i, l) in losses.into_iter().enumerate() {
        if best.is_none_or(|(_, b)| l < b) {
            best = Some((i, l));
        }
    }
    best.map(|(i, _)| i)
}

impl LeastSquaresOracle for EnumerationLeastSquares {
    fn fit(&mut self, data: &Dataset) -> Result<RewardFit> {
        let losses = self.losses(data)?;
        let k = argmin_first(losses).ok_or(Error::EmptyClass {
            what: "reward class",
        })?;
        Ok(RewardFit {
            table: self.class.models()[k].clone(),
            index: Some(k),
        })
    }
    fn log_cardinality(&self) -> f64 {
        (self.class.len() as f64).ln()
    }
}

/// Exact log-loss minimisation over a finite 𝒫 by enumeration (ties → lowest
/// index; models with infinite loss are eliminated and reported).
#[derive(Debug, Clone)]
pub struct EnumerationLogLoss {
    class: DynamicsClass,
}

impl EnumerationLogLoss {
    /// The oracle for 𝒫.
    pub fn new(class: DynamicsClass) -> Self {
        EnumerationLogLoss { class }
    }
    /// The class.
    pub fn class(&self) -> &DynamicsClass {
        &self.class
    }
    /// L_log(P) for every P ∈ 𝒫: `Ok(loss)` or `Err(LogZero)`. O(|𝒫|·C·S²·A).
    pub fn losses(&self, data: &Dataset) -> Vec<Result<f64>> {
        self.class
            .models()
            .iter()
            .enumerate()
            .map(|(k, p)| data.log_loss(p, k))
            .collect()
    }
}

impl LogLossOracle for EnumerationLogLoss {
    fn fit(&mut self, data: &Dataset) -> Result<DynamicsFit> {
        let losses = self.losses(data);
        let mut eliminated = Vec::new();
        let mut finite = Vec::with_capacity(losses.len());
        for l in losses {
            match l {
                Ok(v) => finite.push(v),
                Err(e @ Error::LogZero { .. }) => {
                    eliminated.push(e);
                    finite.push(f64::INFINITY);
                }
                Err(e) => return Err(e),
            }
        }
        if eliminated.len() == finite.len() {
            return Err(eliminated.swap_remove(0));
        }
        let k = argmin_first(finite).ok_or(Error::EmptyClass {
            what: "dynamics class",
        })?;
        Ok(DynamicsFit {
            table: self.class.models()[k].clone(),
            index: Some(k),
            eliminated,
        })
    }
    fn log_cardinality(&self) -> f64 {
        (self.class.len() as f64).ln()
    }
}
