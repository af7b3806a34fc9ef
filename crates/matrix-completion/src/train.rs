//! Training: Adam on the closed-form gradients of [`DeepMf::objective_and_gradient`],
//! with optional mini-batches, early stopping and a per-epoch history.
//!
//! (reconstructed) The paper trained in TensorFlow 2 without publishing its
//! optimiser settings; squared loss with Adam (lr 0.01) is the spec's
//! practical choice, and the defaults below follow its reference run.

use crate::data::Observations;
use crate::error::{Error, Result};
use crate::link::{Identity, Link, MonotonePiecewiseLinear, ScalarLink};
use crate::metrics::rmse;
use crate::model::{DeepMf, PenaltyWeights};
use ndarray::Array2;
use rand::Rng;
use rand::seq::SliceRandom;

/// The penalty on the outer factors.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Weighting {
    /// `λ Σ_l ‖A_l‖_F²` (the Schatten model).
    None,
    /// The weighted analogue: `D_r = diag(m p̃)`, `D_c = diag(n q̃)` with
    /// marginals smoothed by `ζ` (see [`PenaltyWeights::smoothed`]); default
    /// `ζ = 0.5` after Foygel et al.
    Smoothed {
        /// `ζ ∈ [0, 1]`.
        zeta: f64,
    },
}

/// Which link to train.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum LinkConfig {
    /// `f(z) = z`: the plain deep factorisation.
    Identity,
    /// FRMC: [`MonotonePiecewiseLinear`] with `knots` knots on `[lo, hi]` and
    /// slopes capped at `cap` (spec default 24 knots on [−4, 4], cap 3).
    Frmc {
        /// Number of knots (≥ 2).
        knots: usize,
        /// Left end of the knot range.
        lo: f64,
        /// Right end of the knot range.
        hi: f64,
        /// Lipschitz cap `ℓ_max` (≥ 1).
        cap: f64,
    },
}

impl LinkConfig {
    /// FRMC with the spec's defaults.
    pub const FRMC_DEFAULT: LinkConfig = LinkConfig::Frmc {
        knots: 24,
        lo: -4.0,
        hi: 4.0,
        cap: 3.0,
    };

    /// Builds the link (initialised to the identity).
    ///
    /// # Errors
    /// [`Error::InvalidLink`] for invalid FRMC parameters.
    pub fn build(&self) -> Result<Link> {
        match *self {
            LinkConfig::Identity => Ok(Link::Identity(Identity)),
            LinkConfig::Frmc { knots, lo, hi, cap } => Ok(Link::Monotone(
                MonotonePiecewiseLinear::identity(knots, lo, hi, cap)?,
            )),
        }
    }
}

/// Adam's hyper-parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Adam {
    /// Learning rate (default 0.01).
    pub lr: f64,
    /// First-moment decay (default 0.9).
    pub beta1: f64,
    /// Second-moment decay (default 0.999).
    pub beta2: f64,
    /// Denominator guard (default 1e-8).
    pub eps: f64,
}

impl Default for Adam {
    fn default() -> Self {
        Adam {
            lr: 0.01,
            beta1: 0.9,
            beta2: 0.999,
            eps: 1e-8,
        }
    }
}

/// Full-batch or mini-batch steps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Batch {
    /// One step per epoch on all N entries (deterministic; the default).
    Full,
    /// Shuffled mini-batches of this size; one epoch is one pass over Ω.
    /// Each step still costs O((m + n) k² L) for the dense products.
    Mini(usize),
}

/// Early stopping on the validation RMSE (or, without a validation set, on the
/// training objective): stop after `patience` epochs without an improvement
/// larger than `min_delta`, and return the best model seen.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EarlyStopping {
    /// Epochs without improvement before stopping.
    pub patience: usize,
    /// Smallest improvement that counts.
    pub min_delta: f64,
}

/// Hyper-parameters of [`fit`]. `Default` is the spec's reference set-up
/// (depth 3, width 32, λ = 1e-3, unweighted, identity link, Adam lr 0.01,
/// full batch, 1000 epochs, centred on the training mean).
#[derive(Debug, Clone, PartialEq)]
pub struct TrainConfig {
    /// Depth `L ≥ 1` (L = 2: nuclear norm, L = 3: S_{2/3}, L = 4: S_{1/2}).
    pub depth: usize,
    /// Inner width `k ≥ 1`.
    pub width: usize,
    /// Regularisation `λ ≥ 0` in `J = (1/2N) Σ r² + λ Σ_l ‖A_l‖_F²`.
    pub lambda: f64,
    /// Unweighted or weighted penalty.
    pub weighting: Weighting,
    /// Identity (Schatten model) or FRMC link.
    pub link: LinkConfig,
    /// Optimiser.
    pub adam: Adam,
    /// Multiply the learning rate by this after every epoch (1 = constant; in (0, 1]).
    pub lr_decay: f64,
    /// Number of epochs (≥ 1).
    pub epochs: usize,
    /// Full or mini-batch.
    pub batch: Batch,
    /// Standard deviation of the entries of `Z` at initialisation (see [`DeepMf::random`]).
    pub init_scale: f64,
    /// Use the training mean as the fixed offset `b` (else `b = 0`).
    pub center: bool,
    /// Clip predictions to `[lo, hi]` when computing RMSEs (training loss is never clipped).
    pub clip: Option<(f64, f64)>,
    /// Optional early stopping.
    pub early_stopping: Option<EarlyStopping>,
    /// Stop with [`Error::Diverged`] when the objective is non-finite or exceeds
    /// this factor times the initial objective (default 1e6).
    pub divergence_factor: f64,
    /// Threads for the full-batch passes over the entries (rayon): 1 (the
    /// default) runs serially on the calling thread, 0 uses rayon's default
    /// (all cores, or `RAYON_NUM_THREADS`), `t` a pool of `t` threads. The
    /// passes run over fixed blocks of entries, so the result is bitwise the
    /// same for every value (mini-batch steps stay serial). A pool that
    /// cannot be built falls back to the serial run.
    pub threads: usize,
}

impl Default for TrainConfig {
    fn default() -> Self {
        TrainConfig {
            depth: 3,
            width: 32,
            lambda: 1e-3,
            weighting: Weighting::None,
            link: LinkConfig::Identity,
            adam: Adam::default(),
            lr_decay: 1.0,
            epochs: 1000,
            batch: Batch::Full,
            init_scale: 0.1,
            center: true,
            clip: None,
            early_stopping: None,
            divergence_factor: 1e6,
            threads: 1,
        }
    }
}

impl TrainConfig {
    /// Validates every field.
    ///
    /// # Errors
    /// [`Error::InvalidDepth`], [`Error::InvalidWidth`], [`Error::InvalidLambda`],
    /// [`Error::InvalidLearningRate`], [`Error::InvalidSmoothing`],
    /// [`Error::InvalidLink`], and [`Error::InvalidParameter`] for the rest
    /// (betas outside [0, 1), eps ≤ 0, lr_decay ∉ (0, 1], 0 epochs, batch 0,
    /// init scale, clip range, patience 0, divergence factor ≤ 1).
    pub fn check(&self) -> Result<()> {
        if self.depth == 0 {
            return Err(Error::InvalidDepth { depth: 0 });
        }
        if self.width == 0 {
            return Err(Error::InvalidWidth { width: 0 });
        }
        crate::error::check_lambda(self.lambda)?;
        if !(self.adam.lr.is_finite() && self.adam.lr > 0.0) {
            return Err(Error::InvalidLearningRate { lr: self.adam.lr });
        }
        if let Weighting::Smoothed { zeta } = self.weighting
            && !(0.0..=1.0).contains(&zeta)
        {
            return Err(Error::InvalidSmoothing { zeta });
        }
        self.link.build()?;
        let bad = |name, value: f64, expected| {
            Err(Error::InvalidParameter {
                name,
                value,
                expected,
            })
        };
        for (name, b) in [("beta1", self.adam.beta1), ("beta2", self.adam.beta2)] {
            if !(0.0..1.0).contains(&b) {
                return bad(name, b, "in [0, 1)");
            }
        }
        if !(self.adam.eps.is_finite() && self.adam.eps > 0.0) {
            return bad("eps", self.adam.eps, "finite and > 0");
        }
        if !(self.lr_decay > 0.0 && self.lr_decay <= 1.0) {
            return bad("lr_decay", self.lr_decay, "in (0, 1]");
        }
        if self.epochs == 0 {
            return bad("epochs", 0.0, ">= 1");
        }
        if self.batch == Batch::Mini(0) {
            return bad("batch size", 0.0, ">= 1");
        }
        if !(self.init_scale.is_finite() && self.init_scale > 0.0) {
            return bad("init_scale", self.init_scale, "finite and > 0");
        }
        if let Some((lo, hi)) = self.clip
            && !(lo.is_finite() && hi.is_finite() && lo < hi)
        {
            return bad("clip.lo", lo, "finite with lo < hi");
        }
        if let Some(es) = self.early_stopping {
            if es.patience == 0 {
                return bad("patience", 0.0, ">= 1");
            }
            if !(es.min_delta.is_finite() && es.min_delta >= 0.0) {
                return bad("min_delta", es.min_delta, "finite and >= 0");
            }
        }
        if !(self.divergence_factor.is_finite() && self.divergence_factor > 1.0) {
            return bad(
                "divergence_factor",
                self.divergence_factor,
                "finite and > 1",
            );
        }
        Ok(())
    }
}

/// What one epoch measured (after its steps).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EpochStats {
    /// 0-based epoch.
    pub epoch: usize,
    /// Training objective `J`.
    pub objective: f64,
    /// Training RMSE (clipped if `clip` is set).
    pub train_rmse: f64,
    /// Validation RMSE, when a validation set was given.
    pub valid_rmse: Option<f64>,
}

/// A trained model and its history.
#[derive(Debug, Clone, PartialEq)]
pub struct Fitted {
    /// The model (the best one seen, under early stopping).
    pub model: DeepMf,
    /// One entry per epoch run.
    pub history: Vec<EpochStats>,
    /// The epoch the returned model comes from.
    pub best_epoch: usize,
    /// Whether early stopping ended training before `epochs`.
    pub stopped_early: bool,
    /// The penalty weights used (all ones when unweighted).
    pub weights: PenaltyWeights,
}

/// Trains a fresh model (random factors from `rng`) on `train`; see [`fit_with`].
///
/// # Errors
/// As [`fit_with`].
pub fn fit<R: Rng + ?Sized>(
    train: &Observations,
    valid: Option<&Observations>,
    cfg: &TrainConfig,
    rng: &mut R,
) -> Result<Fitted> {
    fit_with(train, valid, cfg, None, rng, &mut |_, _| {})
}

/// Continues training from `init` (for example FRMC warm-started from a trained
/// Schatten model: `fitted.model.with_link(link)`); `cfg.depth`, `cfg.width`,
/// `cfg.link` and `cfg.center` are ignored in favour of the model's own.
///
/// # Errors
/// As [`fit_with`].
pub fn fit_from<R: Rng + ?Sized>(
    init: DeepMf,
    train: &Observations,
    valid: Option<&Observations>,
    cfg: &TrainConfig,
    rng: &mut R,
) -> Result<Fitted> {
    fit_with(train, valid, cfg, Some(init), rng, &mut |_, _| {})
}

/// Trains with Adam, calling `on_epoch(stats, model)` after every epoch
/// (progress bars, monitoring the link).
///
/// Per epoch: full batch, one step of O(N k + (m + n) k² L); mini-batches of
/// size B, ⌈N/B⌉ steps of O(B k + (m + n) k² L); plus one evaluation pass
/// O((N + N_valid) k + m k² L). Link parameters are projected (monotone,
/// slopes ≤ cap) after every step. Same `rng` seed → bit-identical result,
/// for every [`TrainConfig::threads`] (the full-batch passes and the
/// evaluation pass run over fixed blocks of entries; with `t` threads the
/// time of a full-batch epoch drops by up to `t`×, the result does not move).
///
/// # Errors
/// [`TrainConfig::check`]'s errors; [`Error::ShapeMismatch`] when `valid` or
/// `init` does not match `train`'s shape; [`Error::Diverged`] with the epoch
/// and objective when the objective becomes non-finite or explodes.
pub fn fit_with<R: Rng + ?Sized>(
    train: &Observations,
    valid: Option<&Observations>,
    cfg: &TrainConfig,
    init: Option<DeepMf>,
    rng: &mut R,
    on_epoch: &mut dyn FnMut(&EpochStats, &DeepMf),
) -> Result<Fitted> {
    cfg.check()?;
    let (m, n) = (train.rows(), train.cols());
    if let Some(v) = valid
        && (v.rows() != m || v.cols() != n)
    {
        return Err(Error::ShapeMismatch {
            what: "validation observations",
            expected: format!("{m} x {n}"),
            got: format!("{} x {}", v.rows(), v.cols()),
        });
    }

    let mut model = match init {
        Some(model) => {
            if model.rows() != m || model.cols() != n {
                return Err(Error::ShapeMismatch {
                    what: "initial model",
                    expected: format!("{m} x {n}"),
                    got: format!("{} x {}", model.rows(), model.cols()),
                });
            }
            model
        }
        None => {
            let offset = if cfg.center { train.mean() } else { 0.0 };
            DeepMf::random(
                m,
                n,
                cfg.depth,
                cfg.width,
                cfg.init_scale,
                cfg.link.build()?,
                offset,
                rng,
            )?
        }
    };
    let weights = match cfg.weighting {
        Weighting::None => None,
        Weighting::Smoothed { zeta } => Some(PenaltyWeights::smoothed(train, zeta)?),
    };
    let w = weights.as_ref();
    let initial = model.objective(train, cfg.lambda, w)?;
    let limit = cfg.divergence_factor * initial.max(f64::MIN_POSITIVE);

    let pool = match cfg.threads {
        1 => None,
        t => rayon::ThreadPoolBuilder::new().num_threads(t).build().ok(),
    };
    let pool = pool.as_ref();
    let mut state = AdamState::new(&model);
    let mut lr = cfg.adam.lr;
    let mut history = Vec::with_capacity(cfg.epochs);
    let mut order: Vec<usize> = (0..train.len()).collect();
    let mut best: Option<(f64, usize, DeepMf)> = None;
    let mut since_best = 0usize;
    let mut stopped_early = false;
    for epoch in 0..cfg.epochs {
        match cfg.batch {
            Batch::Full => {
                let ((obj, g), _) = model.grad_impl(train, None, cfg.lambda, w, pool);
                if !obj.is_finite() || obj > limit {
                    return Err(Error::Diverged { epoch, loss: obj });
                }
                state
                    .step(&mut model, &g, lr, &cfg.adam)
                    .map_err(|_| Error::Diverged { epoch, loss: obj })?;
            }
            Batch::Mini(b) => {
                order.shuffle(rng);
                for chunk in order.chunks(b) {
                    let ((obj, g), _) = model.grad_impl(train, Some(chunk), cfg.lambda, w, None);
                    if !obj.is_finite() || obj > limit {
                        return Err(Error::Diverged { epoch, loss: obj });
                    }
                    state
                        .step(&mut model, &g, lr, &cfg.adam)
                        .map_err(|_| Error::Diverged { epoch, loss: obj })?;
                }
            }
        }
        lr *= cfg.lr_decay;
        let pred = model.predict_observed_on(train, None, pool)?;
        let sse: f64 = pred
            .iter()
            .zip(train.values())
            .map(|(p, y)| (p - y) * (p - y))
            .sum();
        let objective = sse / (2.0 * train.len() as f64) + cfg.lambda * model.penalty_unchecked(w);
        if !objective.is_finite() || objective > limit {
            return Err(Error::Diverged {
                epoch,
                loss: objective,
            });
        }
        let train_rmse = match cfg.clip {
            None => (sse / train.len() as f64).sqrt(),
            Some((lo, hi)) => {
                let c: Vec<f64> = pred.iter().map(|p| p.clamp(lo, hi)).collect();
                rmse(&c, train.values())?
            }
        };
        let valid_rmse = match valid {
            Some(v) => Some(rmse(
                &model.predict_observed_on(v, cfg.clip, pool)?,
                v.values(),
            )?),
            None => None,
        };
        let stats = EpochStats {
            epoch,
            objective,
            train_rmse,
            valid_rmse,
        };
        on_epoch(&stats, &model);
        history.push(stats);
        if let Some(es) = cfg.early_stopping {
            let score = valid_rmse.unwrap_or(objective);
            let improved = best
                .as_ref()
                .is_none_or(|(b, _, _)| score < b - es.min_delta);
            if improved {
                best = Some((score, epoch, model.clone()));
                since_best = 0;
            } else {
                since_best += 1;
                if since_best >= es.patience {
                    stopped_early = epoch + 1 < cfg.epochs;
                    break;
                }
            }
        }
    }
    let (model, best_epoch) = match best {
        Some((_, e, m)) => (m, e),
        None => (model, history.len().saturating_sub(1)),
    };
    let weights = match weights {
        Some(w) => w,
        None => PenaltyWeights::uniform(m, n)?,
    };
    Ok(Fitted {
        model,
        history,
        best_epoch,
        stopped_early,
        weights,
    })
}

/// Adam's moment estimates for every factor and the link parameters.
struct AdamState {
    t: i32,
    m: Vec<Array2<f64>>,
    v: Vec<Array2<f64>>,
    ml: Vec<f64>,
    vl: Vec<f64>,
}

impl AdamState {
    fn new(model: &DeepMf) -> Self {
        let z = |a: &Array2<f64>| Array2::zeros(a.raw_dim());
        let p = model.link().num_params();
        AdamState {
            t: 0,
            m: model.factors().iter().map(z).collect(),
            v: model.factors().iter().map(z).collect(),
            ml: vec![0.0; p],
            vl: vec![0.0; p],
        }
    }

    /// One Adam step; fails (leaving the link unchanged) when the link's new
    /// parameters are not finite.
    fn step(
        &mut self,
        model: &mut DeepMf,
        g: &crate::model::Gradient,
        lr: f64,
        a: &Adam,
    ) -> Result<()> {
        self.t += 1;
        let c1 = 1.0 - a.beta1.powi(self.t);
        let c2 = 1.0 - a.beta2.powi(self.t);
        let (b1, b2, eps) = (a.beta1, a.beta2, a.eps);
        for (((p, gr), m), v) in model
            .factors_mut()
            .iter_mut()
            .zip(&g.factors)
            .zip(&mut self.m)
            .zip(&mut self.v)
        {
            ndarray::Zip::from(p)
                .and(gr)
                .and(m)
                .and(v)
                .for_each(|p, &g, m, v| {
                    *m = b1 * *m + (1.0 - b1) * g;
                    *v = b2 * *v + (1.0 - b2) * g * g;
                    *p -= lr * (*m / c1) / ((*v / c2).sqrt() + eps);
                });
        }
        if !g.link.is_empty() {
            let mut theta = model.link().params();
            for (((th, &gt), ml), vl) in theta
                .iter_mut()
                .zip(&g.link)
                .zip(&mut self.ml)
                .zip(&mut self.vl)
            {
                *ml = b1 * *ml + (1.0 - b1) * gt;
                *vl = b2 * *vl + (1.0 - b2) * gt * gt;
                *th -= lr * (*ml / c1) / ((*vl / c2).sqrt() + eps);
            }
            model.link_mut().set_params_projected(&theta)?;
        }
        Ok(())
    }
}
