//! Fusion against training from scratch at equal batches, on FLOPs: the
//! experiment of the runner entry and the `fusion_vs_scratch` example.
//!
//! Two small networks (width `w`, `hidden` hidden layers) train `small_steps`
//! steps each on a different half of the training set (or, for
//! self-fusion, one network on the whole set), are fused to width `2w`
//! ([`Combine::Average`], zero cross blocks, the per-layer rates of
//! [`lr_after_fusion`]) and train `fused_steps` more on the whole set. A
//! width-`2w` network from scratch trains `scratch_steps` steps on the same
//! batches (the fused network's batches are the first `fused_steps` of the
//! scratch network's). Test loss is recorded against cumulative training
//! FLOPs (the small networks' training counted, [`Trainer::flops`]).

use crate::error::{Error, Result};
use crate::fuse::{Combine, CrossInit, FuseOptions, fuse, self_fuse};
use crate::mlp::{Activation, Mlp, tensor2};
use crate::train::{BlockMlp, Execution, LayerRates, Loss, Trainer, lr_after_fusion};
use candle_core::{DType, Device, Tensor};
use ndarray::{Array2, ArrayView2, Axis};
use nncore::optim::OptimizerKind;
use rand::Rng;

/// Targets of a task.
#[derive(Debug, Clone)]
pub enum Targets {
    /// Class labels (cross-entropy).
    Classes(Vec<usize>),
    /// Real-valued targets `[n, d_out]` (mean squared error).
    Values(Array2<f64>),
}

impl Targets {
    fn len(&self) -> usize {
        match self {
            Targets::Classes(c) => c.len(),
            Targets::Values(v) => v.nrows(),
        }
    }
    fn loss(&self) -> Loss {
        match self {
            Targets::Classes(_) => Loss::CrossEntropy,
            Targets::Values(_) => Loss::Mse,
        }
    }
    fn tensor(&self, idx: &[usize], dtype: DType) -> Result<Tensor> {
        Ok(match self {
            Targets::Classes(c) => {
                let v: Vec<u32> = idx.iter().map(|&i| c[i] as u32).collect();
                Tensor::from_vec(v, idx.len(), &Device::Cpu)?
            }
            Targets::Values(v) => tensor2(v.select(Axis(0), idx).view(), dtype)?,
        })
    }
}

/// A supervised task: training and test inputs and targets.
#[derive(Debug, Clone)]
pub struct Task {
    /// Training inputs `[n, d]`.
    pub x_train: Array2<f64>,
    /// Training targets.
    pub y_train: Targets,
    /// Test inputs.
    pub x_test: Array2<f64>,
    /// Test targets.
    pub y_test: Targets,
    /// Output width (classes or target dimension).
    pub d_out: usize,
}

impl Task {
    /// Checks shapes and values.
    ///
    /// # Errors
    /// [`Error::EmptyNetwork`] for fewer than 2 training rows or no test row;
    /// [`Error::Shape`]; [`Error::NonFinite`]; [`Error::InvalidParameter`]
    /// for a label `≥ d_out`.
    pub fn check(&self) -> Result<()> {
        if self.x_train.nrows() < 2 || self.x_test.nrows() == 0 {
            return Err(Error::EmptyNetwork { what: "task data" });
        }
        if self.y_train.len() != self.x_train.nrows()
            || self.y_test.len() != self.x_test.nrows()
            || self.x_train.ncols() != self.x_test.ncols()
        {
            return Err(Error::Shape {
                what: "task inputs vs targets",
                expected: vec![self.x_train.nrows(), self.x_test.nrows()],
                got: vec![self.y_train.len(), self.y_test.len()],
            });
        }
        if self
            .x_train
            .iter()
            .chain(self.x_test.iter())
            .any(|v| !v.is_finite())
        {
            return Err(Error::NonFinite {
                what: "task inputs",
            });
        }
        for t in [&self.y_train, &self.y_test] {
            match t {
                Targets::Classes(c) => {
                    if let Some(&bad) = c.iter().find(|&&l| l >= self.d_out) {
                        return Err(Error::InvalidParameter {
                            name: "label",
                            value: bad as f64,
                            expected: "below d_out",
                        });
                    }
                }
                Targets::Values(v) => {
                    if v.ncols() != self.d_out {
                        return Err(Error::Shape {
                            what: "target width",
                            expected: vec![self.d_out],
                            got: vec![v.ncols()],
                        });
                    }
                    if v.iter().any(|a| !a.is_finite()) {
                        return Err(Error::NonFinite { what: "targets" });
                    }
                }
            }
        }
        Ok(())
    }
}

/// The schedule of one comparison.
#[derive(Debug, Clone, PartialEq)]
pub struct Schedule {
    /// Width `w` of each small network's hidden layers.
    pub small_width: usize,
    /// Hidden layers.
    pub hidden: usize,
    /// Steps of each small network.
    pub small_steps: usize,
    /// Steps after fusion.
    pub fused_steps: usize,
    /// Steps of the wide network from scratch.
    pub scratch_steps: usize,
    /// Mini-batch size.
    pub batch: usize,
    /// AdamW base learning rate η.
    pub lr: f64,
    /// Test-loss evaluation period (steps).
    pub eval_every: usize,
    /// Hidden activation.
    pub activation: Activation,
    /// Self-fusion of one small network instead of fusing two.
    pub self_fusion: bool,
    /// Keep the cross blocks frozen at zero (block-diagonal execution).
    pub freeze_cross: bool,
}

impl Default for Schedule {
    /// The setting: width 32, two hidden layers, 1,000 + 1,000 steps
    /// against 2,000, batch 32, AdamW η = 1e-3, evaluation every 25 steps.
    fn default() -> Self {
        Self {
            small_width: 32,
            hidden: 2,
            small_steps: 1000,
            fused_steps: 1000,
            scratch_steps: 2000,
            batch: 32,
            lr: 1e-3,
            eval_every: 25,
            activation: Activation::Relu,
            self_fusion: false,
            freeze_cross: false,
        }
    }
}

/// The outcome of one seed.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    /// `(cumulative FLOPs, test loss)` of fusion, starting at the fusion
    /// point (the small networks' FLOPs already counted).
    pub fusion: Vec<(f64, f64)>,
    /// `(cumulative FLOPs, test loss)` of the scratch network.
    pub scratch: Vec<(f64, f64)>,
    /// FLOPs of training the small networks.
    pub small_flops: f64,
    /// The scratch network's final test loss.
    pub scratch_final: f64,
    /// Total FLOPs of fusion when its test loss first reaches
    /// `scratch_final` (`None`: not within `fused_steps`).
    pub fusion_flops_to_reach: Option<f64>,
    /// Total FLOPs of the scratch run.
    pub scratch_flops: f64,
}

fn batches<R: Rng + ?Sized>(
    n: usize,
    batch: usize,
    steps: usize,
    rng: &mut R,
) -> Result<Vec<Vec<usize>>> {
    let mut out = Vec::with_capacity(steps);
    while out.len() < steps {
        let order = nncore::data::shuffled_indices(n, rng);
        for b in nncore::data::batches(&order, batch, nncore::data::LastBatch::Drop)? {
            if out.len() == steps {
                break;
            }
            out.push(b.to_vec());
        }
    }
    Ok(out)
}

fn adamw() -> OptimizerKind {
    OptimizerKind::default()
}

struct Data<'a> {
    x: ArrayView2<'a, f64>,
    y: &'a Targets,
    idx: Vec<usize>,
}

fn train(
    t: &mut Trainer,
    d: &Data<'_>,
    order: &[Vec<usize>],
    loss: Loss,
    eval: &mut dyn FnMut(&Trainer, usize) -> Result<()>,
    every: usize,
) -> Result<()> {
    for (s, b) in order.iter().enumerate() {
        let rows: Vec<usize> = b.iter().map(|&i| d.idx[i]).collect();
        let x = tensor2(d.x.select(Axis(0), &rows).view(), DType::F32)?;
        let y = d.y.tensor(&rows, DType::F32)?;
        t.step(&x, &y, loss)?;
        if (s + 1) % every == 0 || s + 1 == order.len() {
            eval(t, s + 1)?;
        }
    }
    Ok(())
}

/// Runs one seed of fusion against scratch (see the module docs), in f32.
/// O((2·small + fused + scratch steps)·batch·#params).
///
/// # Errors
/// [`Task::check`]'s errors; [`Error::InvalidParameter`] for a zero width,
/// step count, batch or evaluation period, a batch larger than half the
/// training set, or η ≤ 0; training errors.
pub fn fusion_vs_scratch<R: Rng + ?Sized>(
    task: &Task,
    s: &Schedule,
    rng: &mut R,
) -> Result<Comparison> {
    task.check()?;
    for (name, v) in [
        ("small width", s.small_width),
        ("hidden layers", s.hidden),
        ("small steps", s.small_steps),
        ("fused steps", s.fused_steps),
        ("scratch steps", s.scratch_steps),
        ("batch", s.batch),
        ("eval period", s.eval_every),
    ] {
        if v == 0 {
            return Err(Error::InvalidParameter {
                name,
                value: 0.0,
                expected: "at least 1",
            });
        }
    }
    let n = task.x_train.nrows();
    if s.batch > n / 2 {
        return Err(Error::InvalidParameter {
            name: "batch",
            value: s.batch as f64,
            expected: "at most half the training set",
        });
    }
    let loss = task.y_train.loss();
    let d_in = task.x_train.ncols();
    let sizes = |w: usize| {
        let mut v = vec![d_in];
        v.extend(std::iter::repeat_n(w, s.hidden));
        v.push(task.d_out);
        v
    };
    let xt = tensor2(task.x_test.view(), DType::F32)?;
    let all: Vec<usize> = (0..task.y_test.len()).collect();
    let yt = task.y_test.tensor(&all, DType::F32)?;
    let test_loss = |t: &Trainer| t.loss(&xt, &yt, loss);

    // Small networks on halves (or one on everything for self-fusion).
    let perm = nncore::data::shuffled_indices(n, rng);
    let halves: Vec<Vec<usize>> = if s.self_fusion {
        vec![(0..n).collect()]
    } else {
        vec![perm[..n / 2].to_vec(), perm[n / 2..].to_vec()]
    };
    let mut smalls = Vec::new();
    let mut small_flops = 0.0;
    for h in &halves {
        let net = Mlp::random(&sizes(s.small_width), s.activation, DType::F32, rng)?;
        let mut t = Trainer::new(
            BlockMlp::from_mlp(&net)?,
            adamw(),
            &LayerRates::uniform(1, s.lr),
            Execution::Auto,
        )?;
        let order = batches(h.len(), s.batch, s.small_steps, rng)?;
        let d = Data {
            x: task.x_train.view(),
            y: &task.y_train,
            idx: h.clone(),
        };
        train(&mut t, &d, &order, loss, &mut |_, _| Ok(()), s.small_steps)?;
        small_flops += t.flops() as f64;
        smalls.push(t.net().to_mlp()?);
    }
    let opts = FuseOptions {
        combine: Combine::Average,
        cross_init: CrossInit::Zero,
        freeze_cross: s.freeze_cross,
    };
    let fused = if s.self_fusion {
        self_fuse(&smalls[0], &opts, rng)?
    } else {
        fuse(&smalls[0], &smalls[1], &opts, rng)?
    };
    let rates = lr_after_fusion(&fused.weights, &adamw(), s.lr)?;
    let mut tf = Trainer::new(
        BlockMlp::from_fused(&fused)?,
        adamw(),
        &rates,
        Execution::Auto,
    )?;
    let scratch = Mlp::random(&sizes(2 * s.small_width), s.activation, DType::F32, rng)?;
    let mut ts = Trainer::new(
        BlockMlp::from_mlp(&scratch)?,
        adamw(),
        &LayerRates::uniform(1, s.lr),
        Execution::Auto,
    )?;
    let order = batches(n, s.batch, s.scratch_steps.max(s.fused_steps), rng)?;
    let d = Data {
        x: task.x_train.view(),
        y: &task.y_train,
        idx: (0..n).collect(),
    };

    let mut scratch_curve = vec![(0.0, test_loss(&ts)?)];
    train(
        &mut ts,
        &d,
        &order[..s.scratch_steps],
        loss,
        &mut |t, _| {
            scratch_curve.push((t.flops() as f64, test_loss(t)?));
            Ok(())
        },
        s.eval_every,
    )?;
    let scratch_final = scratch_curve.last().map_or(f64::NAN, |p| p.1);
    let mut fusion_curve = vec![(small_flops, test_loss(&tf)?)];
    train(
        &mut tf,
        &d,
        &order[..s.fused_steps],
        loss,
        &mut |t, _| {
            fusion_curve.push((small_flops + t.flops() as f64, test_loss(t)?));
            Ok(())
        },
        s.eval_every,
    )?;
    let reach = fusion_curve
        .iter()
        .find(|p| p.1 <= scratch_final)
        .map(|p| p.0);
    Ok(Comparison {
        fusion: fusion_curve,
        scratch: scratch_curve,
        small_flops,
        scratch_final,
        fusion_flops_to_reach: reach,
        scratch_flops: ts.flops() as f64,
    })
}

/// The vendored digits (`data/digits`, pixels scaled to `[0, 1]`) under a
/// seeded split with `test_fraction` held out.
///
/// # Errors
/// nncore's reader and split errors ([`Error::Nn`]).
pub fn digits_task<R: Rng + ?Sized>(
    dataset: &mlcore::data::Dataset,
    test_fraction: f64,
    rng: &mut R,
) -> Result<Task> {
    let data = nncore::readers::digits(dataset)?.scaled(1.0 / 16.0)?;
    let split = nncore::data::train_test_split(data.len(), test_fraction, rng)?;
    let part = |idx: &[usize]| -> Result<(Array2<f64>, Vec<usize>)> {
        let sub = data.subset(idx)?;
        Ok((sub.x().mapv(f64::from), sub.y().to_vec()))
    };
    let (x_train, y_train) = part(&split.train)?;
    let (x_test, y_test) = part(&split.test)?;
    Ok(Task {
        x_train,
        y_train: Targets::Classes(y_train),
        x_test,
        y_test: Targets::Classes(y_test),
        d_out: 10,
    })
}

/// The spec's teacher–student regression: a random tanh teacher
/// `d_in → teacher_width → teacher_width → 1` (PyTorch initialisation),
/// inputs `x ~ N(0, I)`, targets `teacher(x) + N(0, noise²)`.
///
/// # Errors
/// [`Error::InvalidParameter`] for zero sizes or a negative/non-finite noise.
pub fn teacher_student_task<R: Rng + ?Sized>(
    d_in: usize,
    teacher_width: usize,
    n_train: usize,
    n_test: usize,
    noise: f64,
    rng: &mut R,
) -> Result<Task> {
    if !(noise.is_finite() && noise >= 0.0) {
        return Err(Error::InvalidParameter {
            name: "noise",
            value: noise,
            expected: "a finite value ≥ 0",
        });
    }
    if n_train < 2 || n_test == 0 || d_in == 0 || teacher_width == 0 {
        return Err(Error::InvalidParameter {
            name: "teacher-student sizes",
            value: 0.0,
            expected: "positive sizes, at least 2 training rows",
        });
    }
    let teacher = Mlp::random(
        &[d_in, teacher_width, teacher_width, 1],
        Activation::Tanh,
        DType::F64,
        rng,
    )?;
    let normal = rand_distr::StandardNormal;
    let mut draw = |n: usize| -> Result<(Array2<f64>, Array2<f64>)> {
        use rand_distr::Distribution;
        let x = Array2::from_shape_fn((n, d_in), |_| Distribution::<f64>::sample(&normal, rng));
        let mut y = teacher.forward_array(x.view())?;
        y.mapv_inplace(|v| v + noise * Distribution::<f64>::sample(&normal, rng));
        Ok((x, y))
    };
    let (x_train, y_train) = draw(n_train)?;
    let (x_test, y_test) = draw(n_test)?;
    Ok(Task {
        x_train,
        y_train: Targets::Values(y_train),
        x_test,
        y_test: Targets::Values(y_test),
        d_out: 1,
    })
}
