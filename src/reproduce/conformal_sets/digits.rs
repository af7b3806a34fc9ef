//! Split-conformal coverage on a classifier fitted to real data (issue 33):
//! a multinomial logistic regression — one linear layer 64 → 10, softmax,
//! cross-entropy with AdamW through `nncore` — fitted on 40% of the vendored
//! digits (`data/digits`, pixels scaled to [0, 1]); the other 60% (1,079
//! rows) is the pool. Each draw takes [`N_CAL`] calibration rows and one test
//! row from the pool uniformly without replacement. Given the fitted model
//! the pool's rows are exchangeable, so every draw satisfies the
//! split-conformal theorem's assumptions and its coverage indicator is an
//! independent Bernoulli(P(Y ∈ C(X))) given the model: the same Wilson
//! interval checks as on the synthetic model apply (the band's upper edge
//! 1 − α + 1/(n + 1) assumes tie-free scores, which a continuous softmax
//! gives almost surely).

use super::coverage::{Cell, Draw, Methods, N_CAL, STEP_DRAWS};
use crate::reproduce::nncore::probabilities;
use crate::runner::{BoxError, Context};
use candle_core::Device;
use mlcore::sampling::{WorkspaceRng, seeded};
use ndarray::{Array2, Axis};
use nncore::data::LastBatch;
use nncore::data::train_test_split;
use nncore::models::Mlp;
use nncore::optim::{OptimizerKind, Schedule};
use nncore::params::ParamSet;
use nncore::readers;
use nncore::train::{TrainConfig, fit};
use rand::seq::index::sample;

/// Fraction of the digits used to fit the classifier (the rest is the pool).
pub const TRAIN_FRACTION: f64 = 0.4;
/// Seed of the fit/pool split and of the fit.
pub const FIT_SEED: u64 = 33;
/// Epochs of the fit.
pub const EPOCHS: usize = 60;

/// The fitted classifier's probabilities and labels on the pool, and its
/// accuracy there.
pub struct Pool {
    /// Softmax probabilities (rows sum to 1 to rounding).
    pub probs: Array2<f64>,
    /// True labels.
    pub labels: Vec<usize>,
    /// Top-1 accuracy of the classifier on the pool.
    pub accuracy: f64,
}

/// Fits the multinomial logistic regression and scores the pool.
///
/// # Errors
/// A missing or altered data file (named with its expected SHA-256);
/// nncore and candle errors.
pub fn pool(ctx: &Context) -> Result<Pool, BoxError> {
    let dataset = ctx.dataset("digits")?;
    let all = readers::digits(&dataset)?.scaled(1.0 / 16.0)?;
    // `train_test_split`'s "test" part is the pool.
    let split = train_test_split(all.len(), 1.0 - TRAIN_FRACTION, &mut seeded(FIT_SEED))?;
    let (train, pool) = (all.subset(&split.train)?, all.subset(&split.test)?);
    let device = Device::Cpu;
    let mut params = ParamSet::new();
    let model = Mlp::new(
        &[64, 10],
        "softmax",
        &mut params,
        &mut seeded(FIT_SEED + 1),
        &device,
    )?;
    let config = TrainConfig {
        epochs: EPOCHS,
        batch_size: 32,
        last_batch: LastBatch::Keep,
        learning_rate: 1e-2,
        optimizer: OptimizerKind::AdamW {
            beta1: 0.9,
            beta2: 0.999,
            eps: 1e-8,
            weight_decay: 1e-3,
        },
        schedule: Schedule::Constant,
        clip_norm: None,
        early_stopping: None,
        progress: false,
    };
    fit(
        &params,
        train.len(),
        &config,
        &mut seeded(FIT_SEED + 2),
        |idx| {
            let (x, y) = train
                .batch(idx, &device)
                .map_err(candle_core::Error::wrap)?;
            candle_nn::loss::cross_entropy(&model.forward(&x)?, &y)
        },
        None,
    )?;
    let mut probs = probabilities(&model, &pool, &device)?;
    // Renormalise the f64 softmax rows exactly (sums are 1 ± 1e-16 already).
    for mut row in probs.axis_iter_mut(Axis(0)) {
        let s: f64 = row.sum();
        row.mapv_inplace(|p| p / s);
    }
    let labels = pool.y().to_vec();
    let accuracy = nncore::metrics::accuracy(probs.view(), &labels)?;
    Ok(Pool {
        probs,
        labels,
        accuracy,
    })
}

/// Coverage of the three methods over `draws` draws from the pool.
///
/// # Errors
/// A pool smaller than [`N_CAL`] + 1; conformal-sets errors.
pub fn coverage(
    ctx: &Context,
    pool: &Pool,
    rng: &mut WorkspaceRng,
    draws: usize,
) -> Result<Vec<Cell>, BoxError> {
    let (n, k) = pool.probs.dim();
    if n < N_CAL + 1 {
        return Err(format!("the digits pool has {n} rows, fewer than {} ", N_CAL + 1).into());
    }
    let mut methods = Methods::new()?;
    let mut cal = Array2::<f64>::zeros((N_CAL, k));
    let mut labels = vec![0usize; N_CAL];
    for d in 0..draws {
        let idx = sample(rng, n, N_CAL + 1);
        for (j, i) in idx.iter().take(N_CAL).enumerate() {
            cal.row_mut(j).assign(&pool.probs.row(i));
            labels[j] = pool.labels[i];
        }
        let t = idx.index(N_CAL);
        let test = pool.probs.row(t);
        let draw = Draw {
            cal: cal.view(),
            labels: &labels,
            test: test.as_slice().ok_or("rows are contiguous")?,
            y: pool.labels[t],
        };
        methods.add(&draw, rng)?;
        if (d + 1) % STEP_DRAWS == 0 || d + 1 == draws {
            ctx.step();
        }
    }
    methods.cells()
}
