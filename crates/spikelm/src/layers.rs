//! Spiking layers: the spiking linear layer and spiking self-attention,
//! each with an `ann` switch (the same layer without spikes).
//!
//! Inputs carry the time axis first: `[T, …, d]`. In ANN mode the layers
//! take `[1, …, d]` and apply the plain real-valued operation.

use crate::error::{Error, Result};
use crate::neuron::NeuronConfig;
use crate::spike::{AlphaPolicy, ElasticBiSpike};
use crate::stats::SpikeStats;
use candle_core::{Tensor, Var};
use nncore::params::ParamSet;
use rand::Rng;
use std::cell::RefCell;

/// How the layers spike: the neuron and its amplitude policy, or `None` for the ANN.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SpikeSettings {
    /// The neuron of the membranes in front of each linear layer.
    pub neuron: NeuronConfig,
    /// The amplitude policy of every neuron.
    pub alpha: AlphaPolicy,
}

fn neuron(s: &SpikeSettings, membrane: bool) -> Result<RefCell<ElasticBiSpike>> {
    let mut cfg = s.neuron;
    if !membrane {
        cfg.decay = 0.0;
    }
    Ok(RefCell::new(ElasticBiSpike::new(cfg, s.alpha.clone())?))
}

/// Runs a neuron, initialising its amplitudes first when `init` is set.
fn fire(n: &RefCell<ElasticBiSpike>, x: &Tensor, init: bool) -> Result<(Tensor, SpikeStats)> {
    if init {
        let mut n = n.borrow_mut();
        n.initialize(x)?;
        n.forward(x)
    } else {
        n.borrow().forward(x)
    }
}

/// `SpikeLinear`: a membrane over `T` steps, then the dense layer on the spikes,
/// `y_t = W·s_t + b` (official `SpikeLinear`; weights stay full precision).
#[derive(Debug)]
pub struct SpikeLinear {
    w: Var,
    b: Var,
    neuron: Option<RefCell<ElasticBiSpike>>,
}

impl SpikeLinear {
    /// A layer `d_in → d_out` with weights `N(0, 0.02²)`, bias 0, registered
    /// in `params` under `name.w`, `name.b`; `spiking = None` gives the ANN layer.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for a zero size; the neuron's errors; nncore's (a taken name).
    pub fn new<R: Rng + ?Sized>(
        params: &mut ParamSet,
        name: &str,
        d_in: usize,
        d_out: usize,
        spiking: Option<&SpikeSettings>,
        rng: &mut R,
    ) -> Result<Self> {
        if d_in == 0 || d_out == 0 {
            return Err(Error::InvalidParameter {
                name: "linear layer width",
                value: format!("{d_in} → {d_out}"),
                expected: "positive sizes",
            });
        }
        mlcore::check::alloc_len(&[d_in, d_out], 4, "linear weights")?;
        let dev = candle_core::Device::Cpu;
        let w = params.add(
            format!("{name}.w"),
            &nncore::init::normal(&[d_in, d_out], 0.0, 0.02, rng, &dev)?,
        )?;
        let b = params.add(
            format!("{name}.b"),
            &Tensor::zeros(d_out, candle_core::DType::F32, &dev)?,
        )?;
        let neuron = spiking.map(|s| neuron(s, true)).transpose()?;
        Ok(SpikeLinear { w, b, neuron })
    }

    /// The weights `[d_in, d_out]`.
    pub fn weight(&self) -> &Var {
        &self.w
    }

    /// The layer's neuron (`None` in ANN mode).
    pub fn neuron(&self) -> Option<std::cell::Ref<'_, ElasticBiSpike>> {
        self.neuron.as_ref().map(RefCell::borrow)
    }

    /// `[T, …, d_in] → [T, …, d_out]` and the counts: spiking, `nnz·d_out`
    /// accumulates; ANN, `n·d_in·d_out` multiply–accumulates. O(T·n·d_in·d_out).
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] for a last dimension other than `d_in`; the neuron's errors.
    pub fn forward(&self, x: &Tensor) -> Result<(Tensor, SpikeStats)> {
        self.run(x, false)
    }

    /// [`Self::forward`] after setting the neuron's amplitudes from `x` (the first-batch step).
    ///
    /// # Errors
    /// As [`Self::forward`].
    pub fn forward_init(&mut self, x: &Tensor) -> Result<(Tensor, SpikeStats)> {
        self.run(x, true)
    }

    pub(crate) fn run(&self, x: &Tensor, init: bool) -> Result<(Tensor, SpikeStats)> {
        let (d_in, d_out) = self.w.dims2()?;
        if x.dims().last() != Some(&d_in) {
            return Err(Error::ShapeMismatch {
                what: "linear input",
                expected: format!("[…, {d_in}]"),
                got: format!("{:?}", x.dims()),
            });
        }
        let rows = (x.elem_count() / d_in) as u64;
        let (input, mut stats) = match &self.neuron {
            Some(n) => {
                let (s, st) = fire(n, x, init)?;
                (s, st)
            }
            None => (x.clone(), SpikeStats::default()),
        };
        match &self.neuron {
            Some(_) => stats.ac_ops += (stats.positive + stats.negative) * d_out as u64,
            None => stats.mac_ops += rows * (d_in * d_out) as u64,
        }
        let y = input
            .broadcast_matmul(self.w.as_tensor())?
            .broadcast_add(self.b.as_tensor())?;
        Ok((y, stats))
    }

    pub(crate) fn register_alpha(&self, params: &mut ParamSet, name: &str) -> Result<()> {
        register(self.neuron.as_ref(), params, name)
    }
}

fn register(n: Option<&RefCell<ElasticBiSpike>>, params: &mut ParamSet, name: &str) -> Result<()> {
    if let Some(n) = n {
        let mut n = n.borrow_mut();
        if let Some(v) = n.alpha_var() {
            let var = params.add(format!("{name}.alpha"), v.as_tensor())?;
            n.bind_alpha_var(var)?;
        }
    }
    Ok(())
}

/// Spiking self-attention: `Q = W_q·s(h)` stays real, `K` and `V` are
/// re-spiked at each step with their own amplitudes and no membrane,
/// `A = softmax(Q·Kᵀ/√d_h + M)·V` per head (softmax kept), then the output
/// projection (a [`SpikeLinear`]). `M` is the causal mask when `causal`.
#[derive(Debug)]
pub struct SpikeSelfAttention {
    q: SpikeLinear,
    k: SpikeLinear,
    v: SpikeLinear,
    o: SpikeLinear,
    k_spike: Option<RefCell<ElasticBiSpike>>,
    v_spike: Option<RefCell<ElasticBiSpike>>,
    heads: usize,
    causal: bool,
}

impl SpikeSelfAttention {
    /// An attention layer of width `d` with `heads` heads, parameters under `name.*`.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] unless `d` is a positive multiple of `heads`; [`SpikeLinear::new`]'s errors.
    pub fn new<R: Rng + ?Sized>(
        params: &mut ParamSet,
        name: &str,
        d: usize,
        heads: usize,
        causal: bool,
        spiking: Option<&SpikeSettings>,
        rng: &mut R,
    ) -> Result<Self> {
        if heads == 0 || d == 0 || !d.is_multiple_of(heads) {
            return Err(Error::InvalidParameter {
                name: "heads",
                value: format!("{heads} heads for width {d}"),
                expected: "a positive width divisible by the heads",
            });
        }
        let mut lin =
            |s: &str| SpikeLinear::new(params, &format!("{name}.{s}"), d, d, spiking, rng);
        let (q, k, v, o) = (lin("q")?, lin("k")?, lin("v")?, lin("o")?);
        let k_spike = spiking.map(|s| neuron(s, false)).transpose()?;
        let v_spike = spiking.map(|s| neuron(s, false)).transpose()?;
        Ok(SpikeSelfAttention {
            q,
            k,
            v,
            o,
            k_spike,
            v_spike,
            heads,
            causal,
        })
    }

    /// `[T, B, L, d] → [T, B, L, d]` and the counts. O(T·B·(L·d² + L²·d)).
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] for an input that is not `[T, B, L, d]`; the layers' errors.
    pub fn forward(&self, x: &Tensor) -> Result<(Tensor, SpikeStats)> {
        self.run(x, false)
    }

    pub(crate) fn run(&self, x: &Tensor, init: bool) -> Result<(Tensor, SpikeStats)> {
        let (t, b, l, d) = x.dims4().map_err(|_| Error::ShapeMismatch {
            what: "attention input",
            expected: "[T, B, L, d]".into(),
            got: format!("{:?}", x.dims()),
        })?;
        let h = self.heads;
        let dh = d / h;
        let (q, mut stats) = self.q.run(x, init)?;
        let (k, sk) = self.k.run(x, init)?;
        let (v, sv) = self.v.run(x, init)?;
        stats += sk + sv;
        let pairs = (t * b * l * l * d) as u64;
        let (k, v) = match (&self.k_spike, &self.v_spike) {
            (Some(nk), Some(nv)) => {
                let (k, sk) = fire(nk, &k, init)?;
                let (v, sv) = fire(nv, &v, init)?;
                // Q·Kᵀ with spiking K and A·V with spiking V: one accumulate
                // per non-zero spike and query (or key) position.
                stats.ac_ops += (sk.positive + sk.negative + sv.positive + sv.negative) * l as u64;
                stats += SpikeStats {
                    ac_ops: 0,
                    mac_ops: 0,
                    ..sk
                };
                stats += SpikeStats {
                    ac_ops: 0,
                    mac_ops: 0,
                    ..sv
                };
                (k, v)
            }
            _ => {
                stats.mac_ops += 2 * pairs;
                (k, v)
            }
        };
        let split = |z: &Tensor| -> candle_core::Result<Tensor> {
            z.reshape((t * b, l, h, dh))?.transpose(1, 2)?.contiguous()
        };
        let (q, k, v) = (split(&q)?, split(&k)?, split(&v)?);
        let mut scores = (q.matmul(&k.t()?)? / (dh as f64).sqrt())?;
        if self.causal {
            let mask: Vec<f32> = (0..l * l)
                .map(|i| {
                    if i % l > i / l {
                        f32::NEG_INFINITY
                    } else {
                        0.0
                    }
                })
                .collect();
            scores = scores.broadcast_add(&Tensor::from_vec(mask, (l, l), x.device())?)?;
        }
        let att = candle_nn::ops::softmax_last_dim(&scores)?.matmul(&v)?;
        let att = att.transpose(1, 2)?.contiguous()?.reshape((t, b, l, d))?;
        let (y, so) = self.o.run(&att, init)?;
        stats += so;
        Ok((y, stats))
    }

    pub(crate) fn register_alpha(&self, params: &mut ParamSet, name: &str) -> Result<()> {
        for (lin, s) in [
            (&self.q, "q"),
            (&self.k, "k"),
            (&self.v, "v"),
            (&self.o, "o"),
        ] {
            lin.register_alpha(params, &format!("{name}.{s}"))?;
        }
        register(self.k_spike.as_ref(), params, &format!("{name}.k_spike"))?;
        register(self.v_spike.as_ref(), params, &format!("{name}.v_spike"))
    }
}
