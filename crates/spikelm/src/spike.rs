//! The elastic bi-spiking neuron on candle tensors, with the LSQ
//! straight-through gradient.
//!
//! The forward values are computed element by element on the host with the
//! same code as the reference ([`crate::neuron`]) and the same operation
//! order as the official PyTorch code, so they agree bit for bit. The
//! gradient is attached with `detach`, exactly as the official backward
//! defines it:
//!
//! ```text
//! s_t = S_t + m_t ⊙ (u_t − sg(u_t)) + (α_t − sg(α_t))·(γ_t/√n)
//! ```
//!
//! where `S_t = α_t·Q(u_t/α_t)` is the spike value, `m_t = 1[Q_n ≤ u_t/α_t ≤ Q_p]`
//! the straight-through mask, `γ_t` the LSQ amplitude coefficient
//! ([`crate::Levels::alpha_coefficient`]) and `sg` stop-gradient. The last
//! term exists only for [`AlphaPolicy::Learnable`]. Both added terms are
//! exactly zero in value, so the output is exactly `S_t`. The reset factor
//! `r_t` enters the next membrane as a constant (detached as in the
//! official code), while the membrane itself carries gradient across steps.

use crate::error::{Error, Result};
use crate::neuron::{ALPHA_EPS, NeuronConfig, check_alphas, check_k, mean_abs, step};
use crate::stats::SpikeStats;
use candle_core::{DType, Tensor, Var};

/// How the amplitudes `α_t` are set.
#[derive(Debug, Clone, PartialEq)]
pub enum AlphaPolicy {
    /// `α_t = k·mean|u_t|` over the first batch (`k = 2`: the official LSQ
    /// init). With `freeze_after_first` the values are kept afterwards (the
    /// official behaviour, where α is never trained); without it they are
    /// recomputed from every batch. A larger `k` raises the threshold `α/2`
    /// and lowers the firing rate (the paper's elastic frequency encoding).
    MeanAbs {
        /// The multiplier `k > 0`.
        k: f32,
        /// Keep the first batch's values.
        freeze_after_first: bool,
    },
    /// Given amplitudes, one per step.
    Fixed(Vec<f32>),
    /// Initialised as `MeanAbs` on the first batch, then trained with the
    /// LSQ gradient (the official backward's α gradient, which the official
    /// code computes and discards).
    Learnable {
        /// The init multiplier `k > 0`.
        k: f32,
    },
}

impl Default for AlphaPolicy {
    /// The official code: `k = 2`, frozen after the first batch.
    fn default() -> Self {
        AlphaPolicy::MeanAbs {
            k: 2.0,
            freeze_after_first: true,
        }
    }
}

/// The elastic bi-spiking neuron over `T` steps (see [`crate::neuron`] for the equations).
#[derive(Debug, Clone)]
pub struct ElasticBiSpike {
    config: NeuronConfig,
    policy: AlphaPolicy,
    alphas: Option<Vec<f32>>,
    var: Option<Var>,
}

impl ElasticBiSpike {
    /// A neuron; fixed amplitudes are set now, data-driven ones by
    /// [`Self::initialize`]. O(T).
    ///
    /// # Errors
    /// [`NeuronConfig::check`]'s errors; [`Error::InvalidParameter`] for `k`
    /// not finite and positive; [`check_alphas`]'s errors for `Fixed`.
    pub fn new(config: NeuronConfig, policy: AlphaPolicy) -> Result<Self> {
        config.check()?;
        let alphas = match &policy {
            AlphaPolicy::MeanAbs { k, .. } | AlphaPolicy::Learnable { k } => {
                check_k(*k)?;
                None
            }
            AlphaPolicy::Fixed(a) => {
                check_alphas(config.t_steps, a)?;
                Some(a.clone())
            }
        };
        Ok(ElasticBiSpike {
            config,
            policy,
            alphas,
            var: None,
        })
    }

    /// The configuration.
    pub fn config(&self) -> &NeuronConfig {
        &self.config
    }

    /// The amplitude policy.
    pub fn policy(&self) -> &AlphaPolicy {
        &self.policy
    }

    /// The current amplitudes `α_t` (`None` before initialisation, and
    /// always for a non-frozen `MeanAbs`, whose amplitudes are per batch).
    ///
    /// # Errors
    /// [`Error::Candle`] reading a learnable variable.
    pub fn alphas(&self) -> Result<Option<Vec<f32>>> {
        match &self.var {
            Some(v) => Ok(Some(v.as_tensor().to_vec1::<f32>()?)),
            None => Ok(self.alphas.clone()),
        }
    }

    /// The learnable amplitudes `[T]` (after initialisation, `Learnable` only);
    /// register them with the optimiser to train them.
    pub fn alpha_var(&self) -> Option<&Var> {
        self.var.as_ref()
    }

    /// Replaces the learnable variable (for example by the one a
    /// `nncore::params::ParamSet` created from [`Self::alpha_var`]'s value).
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] unless the policy is `Learnable` and the variable has shape `[T]`.
    pub fn bind_alpha_var(&mut self, var: Var) -> Result<()> {
        if !matches!(self.policy, AlphaPolicy::Learnable { .. })
            || var.dims() != [self.config.t_steps]
        {
            return Err(Error::ShapeMismatch {
                what: "learnable amplitudes",
                expected: format!("a [{}] variable of a Learnable neuron", self.config.t_steps),
                got: format!("{:?}", var.dims()),
            });
        }
        self.var = Some(var);
        Ok(())
    }

    /// Whether [`Self::forward`] needs [`Self::initialize`] first.
    pub fn needs_init(&self) -> bool {
        match self.policy {
            AlphaPolicy::MeanAbs {
                freeze_after_first: true,
                ..
            } => self.alphas.is_none(),
            AlphaPolicy::Learnable { .. } => self.var.is_none(),
            _ => false,
        }
    }

    /// Sets the amplitudes explicitly (restoring a serialised state). O(T).
    ///
    /// # Errors
    /// [`check_alphas`]'s errors; [`Error::Candle`] writing a learnable variable.
    pub fn set_alphas(&mut self, alphas: &[f32]) -> Result<()> {
        check_alphas(self.config.t_steps, alphas)?;
        match &self.policy {
            AlphaPolicy::Learnable { .. } => {
                let t = Tensor::new(alphas, &candle_core::Device::Cpu)?;
                match &self.var {
                    Some(v) => v.set(&t)?,
                    None => self.var = Some(Var::from_tensor(&t)?),
                }
            }
            _ => self.alphas = Some(alphas.to_vec()),
        }
        Ok(())
    }

    /// The explicit first-batch step: sets `α_t = k·mean|u_t|` from `x`
    /// (`[T, …]`) for `MeanAbs` and `Learnable` (again, if already set) and
    /// returns the amplitudes; `Fixed` returns its own. O(T·n).
    ///
    /// # Errors
    /// As [`Self::forward`].
    pub fn initialize(&mut self, x: &Tensor) -> Result<Vec<f32>> {
        let k = match self.policy {
            AlphaPolicy::MeanAbs { k, .. } | AlphaPolicy::Learnable { k } => k,
            AlphaPolicy::Fixed(ref a) => return Ok(a.clone()),
        };
        let (_, _, used) = self.run(x, AlphaSource::Data(k))?;
        // The exact values k·mean|u_t| are stored; the floor 10⁻⁵ applies at use.
        let stored: Vec<f32> = used.iter().map(|a| a.max(f32::MIN_POSITIVE)).collect();
        match self.policy {
            AlphaPolicy::Learnable { .. } => {
                let t = Tensor::new(stored.as_slice(), &candle_core::Device::Cpu)?;
                match &self.var {
                    Some(v) => v.set(&t)?,
                    None => self.var = Some(Var::from_tensor(&t)?),
                }
            }
            _ => self.alphas = Some(stored.clone()),
        }
        Ok(stored)
    }

    /// Spikes `s = [s₀, …, s_{T−1}]` (same shape as `x`) and their counts,
    /// for `x` of shape `[T, …]` (any trailing dimensions, `n` elements per
    /// step). Differentiable (straight-through) in `x` and, for `Learnable`,
    /// in α. O(T·n) plus one host copy per step.
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] when the first dimension is not `T` or a
    /// step is empty; [`Error::NonFinite`] for a NaN or infinite input;
    /// [`Error::Uninitialized`] when [`Self::needs_init`]; [`Error::Candle`].
    pub fn forward(&self, x: &Tensor) -> Result<(Tensor, SpikeStats)> {
        if self.needs_init() {
            return Err(Error::Uninitialized);
        }
        let source = match (&self.policy, &self.var) {
            (_, Some(v)) => AlphaSource::Var(v.as_tensor().to_vec1::<f32>()?, v),
            (AlphaPolicy::MeanAbs { k, .. }, None) if self.alphas.is_none() => {
                AlphaSource::Data(*k)
            }
            _ => AlphaSource::Given(self.alphas.as_deref().unwrap_or_default()),
        };
        let (s, stats, _) = self.run(x, source)?;
        Ok((s, stats))
    }

    /// [`Self::initialize`] if [`Self::needs_init`], then [`Self::forward`]
    /// (the official code's hidden first-pass init, made explicit).
    ///
    /// # Errors
    /// As [`Self::forward`].
    pub fn forward_init(&mut self, x: &Tensor) -> Result<(Tensor, SpikeStats)> {
        if self.needs_init() {
            self.initialize(x)?;
        }
        self.forward(x)
    }

    fn run(&self, x: &Tensor, source: AlphaSource<'_>) -> Result<(Tensor, SpikeStats, Vec<f32>)> {
        let cfg = &self.config;
        let dims = x.dims();
        if dims.first() != Some(&cfg.t_steps) {
            return Err(Error::ShapeMismatch {
                what: "neuron input",
                expected: format!("[T = {}, …]", cfg.t_steps),
                got: format!("{dims:?}"),
            });
        }
        let n = x.elem_count() / cfg.t_steps;
        if n == 0 {
            return Err(Error::ShapeMismatch {
                what: "neuron input",
                expected: "at least one element per step".into(),
                got: format!("{dims:?}"),
            });
        }
        let x = if x.dtype() == DType::F32 {
            x.clone()
        } else {
            x.to_dtype(DType::F32)?
        };
        if !x.track_op() && !matches!(source, AlphaSource::Var(..)) {
            return self.run_host(&x, n, &source);
        }
        let step_shape = &dims[1..];
        let dev = x.device().clone();
        let scale = (1.0 / (n as f64).sqrt()) as f32;
        let mut stats = SpikeStats {
            elements: (n * cfg.t_steps) as u64,
            ..Default::default()
        };
        let mut used = Vec::with_capacity(cfg.t_steps);
        let mut spikes = Vec::with_capacity(cfg.t_steps);
        let mut prev: Option<(Tensor, Tensor)> = None;
        for t in 0..cfg.t_steps {
            let xt = x.get(t)?;
            let ut = match prev.take() {
                None => xt,
                Some((u, r)) => ((u * f64::from(cfg.decay))? * r)?.add(&xt)?,
            };
            let host = ut.flatten_all()?.to_vec1::<f32>()?;
            if host.iter().any(|v| !v.is_finite()) {
                // A finite input can still overflow under the official
                // reset, whose leak λ·α exceeds 1 for α > 1/λ.
                return Err(Error::NonFinite(if t == 0 {
                    "neuron input"
                } else {
                    "membrane (a non-finite input, or an overflow of the official reset's leak λ·α > 1)"
                }));
            }
            let alpha = match &source {
                AlphaSource::Given(a) => a[t],
                AlphaSource::Var(a, _) => a[t],
                AlphaSource::Data(k) => k * mean_abs(&host),
            };
            used.push(alpha);
            let a = alpha.max(ALPHA_EPS);
            // Only what this step needs: the reset factors before a next
            // step, the mask under autograd, γ for a learnable α.
            let (need_r, need_m) = (t + 1 < cfg.t_steps, ut.track_op());
            let need_g = matches!(source, AlphaSource::Var(..));
            let cap = |need: bool| Vec::with_capacity(if need { n } else { 0 });
            let (mut sv, mut rv, mut mv, mut gv) =
                (cap(true), cap(need_r), cap(need_m), cap(need_g));
            for &u in &host {
                let o = step(cfg, a, u);
                if o.q > 0.0 {
                    stats.positive += 1;
                } else if o.q < 0.0 {
                    stats.negative += 1;
                }
                sv.push(o.s);
                if need_r {
                    rv.push(o.factor);
                }
                if need_m {
                    mv.push(o.mask);
                }
                if need_g {
                    gv.push(o.gamma * scale);
                }
            }
            let mut st = Tensor::from_vec(sv, step_shape, &dev)?;
            if ut.track_op() {
                let m = Tensor::from_vec(mv, step_shape, &dev)?;
                st = (st + (ut.sub(&ut.detach())? * m)?)?;
            }
            if let AlphaSource::Var(_, var) = &source
                && alpha > ALPHA_EPS
            {
                let at = var.as_tensor().narrow(0, t, 1)?;
                let da = (&at - at.detach())?;
                let g = Tensor::from_vec(gv, step_shape, &dev)?;
                st = (st + g.broadcast_mul(&da)?)?;
            }
            spikes.push(st);
            if t + 1 < cfg.t_steps {
                prev = Some((ut, Tensor::from_vec(rv, step_shape, &dev)?));
            }
        }
        Ok((Tensor::stack(&spikes, 0)?, stats, used))
    }

    /// The forward values without autograd (no gradient flows to `x` or
    /// α): one host copy of `x`, then one fused pass per step over flat
    /// buffers (membrane update, spike, reset factor), the same f32
    /// operations in the same order as [`Self::run`]'s autograd path and
    /// the reference, so the values agree bit for bit. O(T·n).
    fn run_host(
        &self,
        x: &Tensor,
        n: usize,
        source: &AlphaSource<'_>,
    ) -> Result<(Tensor, SpikeStats, Vec<f32>)> {
        let cfg = &self.config;
        let xs = x.flatten_all()?.to_vec1::<f32>()?;
        let mut u = vec![0f32; n];
        let mut r = vec![0f32; n];
        let mut out = vec![0f32; xs.len()];
        let mut used = Vec::with_capacity(cfg.t_steps);
        let (mut pos, mut neg) = (0u64, 0u64);
        for t in 0..cfg.t_steps {
            let xt = &xs[t * n..(t + 1) * n];
            if t == 0 {
                u.copy_from_slice(xt);
            } else {
                for ((ui, ri), xi) in u.iter_mut().zip(&r).zip(xt) {
                    *ui = (*ui * cfg.decay) * *ri + *xi;
                }
            }
            if !u.iter().fold(true, |ok, v| ok & v.is_finite()) {
                return Err(Error::NonFinite(if t == 0 {
                    "neuron input"
                } else {
                    "membrane (a non-finite input, or an overflow of the official reset's leak λ·α > 1)"
                }));
            }
            let alpha = match source {
                AlphaSource::Given(a) => a[t],
                AlphaSource::Var(a, _) => a[t],
                AlphaSource::Data(k) => k * mean_abs(&u),
            };
            used.push(alpha);
            let a = alpha.max(ALPHA_EPS);
            let st = &mut out[t * n..(t + 1) * n];
            spike_pass(cfg, a, &u, st, &mut r);
            for &si in st.iter() {
                // s = α·q with α > 0: the sign of the spike is the sign of q.
                pos += u64::from(si > 0.0);
                neg += u64::from(si < 0.0);
            }
        }
        let stats = SpikeStats {
            elements: xs.len() as u64,
            positive: pos,
            negative: neg,
            ..Default::default()
        };
        Ok((Tensor::from_vec(out, x.dims(), x.device())?, stats, used))
    }

    /// The neuron as JSON: configuration, policy and current amplitudes
    /// (the serialisable form of the first-batch initialisation).
    ///
    /// # Errors
    /// [`Error::Candle`] reading a learnable variable.
    pub fn to_json(&self) -> Result<String> {
        let policy = match &self.policy {
            AlphaPolicy::MeanAbs {
                k,
                freeze_after_first,
            } => {
                serde_json::json!({"mean_abs": {"k": k, "freeze_after_first": freeze_after_first}})
            }
            AlphaPolicy::Fixed(a) => serde_json::json!({ "fixed": a }),
            AlphaPolicy::Learnable { k } => serde_json::json!({"learnable": {"k": k}}),
        };
        let c = &self.config;
        Ok(serde_json::json!({
            "t_steps": c.t_steps,
            "decay": c.decay,
            "reset": format!("{:?}", c.reset),
            "levels": format!("{:?}", c.levels),
            "policy": policy,
            "alphas": self.alphas()?,
        })
        .to_string())
    }

    /// Restores a neuron written by [`Self::to_json`]. O(T).
    ///
    /// # Errors
    /// [`Error::Parse`] for malformed text or unknown names; the errors of
    /// [`Self::new`] and [`Self::set_alphas`] for out-of-range values.
    pub fn from_json(text: &str) -> Result<Self> {
        use crate::neuron::{Levels, ResetMode};
        let v: serde_json::Value =
            serde_json::from_str(text).map_err(|e| Error::Parse(e.to_string()))?;
        let bad = |what: &str| Error::Parse(format!("missing or malformed `{what}`"));
        let f = |v: &serde_json::Value, what: &str| v.as_f64().map(|x| x as f32).ok_or(bad(what));
        let floats = |v: &serde_json::Value, what: &str| -> Result<Vec<f32>> {
            v.as_array()
                .ok_or(bad(what))?
                .iter()
                .map(|x| f(x, what))
                .collect()
        };
        let reset = match v["reset"].as_str() {
            Some("Official") => ResetMode::Official,
            Some("Normalized") => ResetMode::Normalized,
            Some("Symmetric") => ResetMode::Symmetric,
            _ => return Err(bad("reset")),
        };
        let levels = match v["levels"].as_str() {
            Some("Ternary") => Levels::Ternary,
            Some("Binary") => Levels::Binary,
            Some("Unipolar") => Levels::Unipolar,
            _ => return Err(bad("levels")),
        };
        let config = NeuronConfig {
            t_steps: v["t_steps"].as_u64().ok_or(bad("t_steps"))? as usize,
            decay: f(&v["decay"], "decay")?,
            reset,
            levels,
        };
        let p = &v["policy"];
        let policy = if let Some(m) = p.get("mean_abs") {
            AlphaPolicy::MeanAbs {
                k: f(&m["k"], "k")?,
                freeze_after_first: m["freeze_after_first"]
                    .as_bool()
                    .ok_or(bad("freeze_after_first"))?,
            }
        } else if let Some(a) = p.get("fixed") {
            AlphaPolicy::Fixed(floats(a, "fixed")?)
        } else if let Some(l) = p.get("learnable") {
            AlphaPolicy::Learnable {
                k: f(&l["k"], "k")?,
            }
        } else {
            return Err(bad("policy"));
        };
        let mut neuron = ElasticBiSpike::new(config, policy)?;
        if !v["alphas"].is_null() {
            neuron.set_alphas(&floats(&v["alphas"], "alphas")?)?;
        }
        Ok(neuron)
    }
}

/// One step's spikes `s_i` and reset factors `r_i` from the membranes
/// `u_i`: [`crate::neuron::step`]'s values, with the level and reset rules
/// chosen once outside the loop so that the loop is branch-free and
/// vectorises. O(n).
fn spike_pass(cfg: &NeuronConfig, a: f32, u: &[f32], s: &mut [f32], r: &mut [f32]) {
    use crate::neuron::{Levels, ResetMode};
    #[inline(always)]
    fn pass(
        a: f32,
        u: &[f32],
        s: &mut [f32],
        r: &mut [f32],
        q: impl Fn(f32) -> f32,
        f: impl Fn(f32, f32, f32) -> f32,
    ) {
        for ((si, ri), &ui) in s.iter_mut().zip(r.iter_mut()).zip(u) {
            let qi = q(ui / a);
            let v = qi * a;
            *si = v;
            *ri = f(a, qi, v);
        }
    }
    fn by_reset(
        reset: ResetMode,
        a: f32,
        u: &[f32],
        s: &mut [f32],
        r: &mut [f32],
        q: impl Fn(f32) -> f32,
    ) {
        match reset {
            ResetMode::Official => {
                pass(a, u, s, r, q, |a, q, s| ResetMode::Official.factor(a, q, s))
            }
            ResetMode::Normalized => pass(a, u, s, r, q, |a, q, s| {
                ResetMode::Normalized.factor(a, q, s)
            }),
            ResetMode::Symmetric => pass(a, u, s, r, q, |a, q, s| {
                ResetMode::Symmetric.factor(a, q, s)
            }),
        }
    }
    match cfg.levels {
        Levels::Ternary => by_reset(cfg.reset, a, u, s, r, |v| Levels::Ternary.quantize(v)),
        Levels::Binary => by_reset(cfg.reset, a, u, s, r, |v| Levels::Binary.quantize(v)),
        Levels::Unipolar => by_reset(cfg.reset, a, u, s, r, |v| Levels::Unipolar.quantize(v)),
    }
}

enum AlphaSource<'a> {
    Given(&'a [f32]),
    Var(Vec<f32>, &'a Var),
    Data(f32),
}
