//! The training loop against closed forms: AdamW against Loshchilov & Hutter's
//! Algorithm 2, SGD with momentum against PyTorch's update rule, global-norm
//! clipping, frozen parameters, the NaN-loss error with its step, early
//! stopping with restoration, and the last-batch policy.

use candle_core::{DType, Device, Tensor};
use nncore::Error;
use nncore::data::LastBatch;
use nncore::models::Mlp;
use nncore::optim::{OptimizerKind, Schedule};
use nncore::params::ParamSet;
use nncore::train::{EarlyStopping, TrainConfig, fit};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

const THETA0: [f64; 5] = [0.5, -1.25, 2.0, 0.125, -0.75];
const C: [f64; 5] = [1.0, 0.5, 2.0, 3.0, 0.25];
const D: [f64; 5] = [0.1, -0.3, 0.0, 0.2, 1.0];

fn vec_f32(v: &[f64]) -> Tensor {
    let v: Vec<f32> = v.iter().map(|&x| x as f32).collect();
    Tensor::from_vec(v, 5, &Device::Cpu).unwrap()
}

/// `L(θ) = Σ cᵢθᵢ²/2 + Σ dᵢθᵢ`, gradient `cθ + d`: `steps` steps on one example.
fn quadratic_run(config: TrainConfig, steps: usize) -> Vec<f64> {
    let mut params = ParamSet::new();
    let theta = params.add("theta", &vec_f32(&THETA0)).unwrap();
    let (c, d) = (vec_f32(&C), vec_f32(&D));
    let config = TrainConfig {
        epochs: steps,
        batch_size: 1,
        progress: false,
        ..config
    };
    let mut rng = ChaCha8Rng::seed_from_u64(0);
    fit(
        &params,
        1,
        &config,
        &mut rng,
        |_| {
            let q = (theta.sqr()?.mul(&c)?.sum_all()? * 0.5)?;
            q + theta.mul(&d)?.sum_all()?
        },
        None,
    )
    .unwrap();
    theta
        .to_vec1::<f32>()
        .unwrap()
        .into_iter()
        .map(f64::from)
        .collect()
}

fn grad(theta: &[f64]) -> Vec<f64> {
    theta
        .iter()
        .zip(C.iter().zip(D))
        .map(|(t, (c, d))| c * t + d)
        .collect()
}

/// Loshchilov & Hutter (2019), Algorithm 2 (AdamW), in f64, with α = 1 and
/// the schedule multiplier ηₜ = lr (the parametrisation of PyTorch and candle):
/// gₜ = ∇f(θₜ₋₁); mₜ = β₁mₜ₋₁ + (1−β₁)gₜ; vₜ = β₂vₜ₋₁ + (1−β₂)gₜ²;
/// m̂ₜ = mₜ/(1−β₁ᵗ); v̂ₜ = vₜ/(1−β₂ᵗ); θₜ = θₜ₋₁ − ηₜ(α m̂ₜ/(√v̂ₜ + ε) + λθₜ₋₁).
#[test]
fn adamw_matches_decoupled_weight_decay_algorithm_2() {
    let (lr, b1, b2, eps, wd) = (0.05, 0.9, 0.999, 1e-8, 0.1);
    for steps in [1usize, 3] {
        let got = quadratic_run(
            TrainConfig {
                learning_rate: lr,
                optimizer: OptimizerKind::AdamW {
                    beta1: b1,
                    beta2: b2,
                    eps,
                    weight_decay: wd,
                },
                ..Default::default()
            },
            steps,
        );
        let mut theta = THETA0.to_vec();
        let (mut m, mut v) = (vec![0.0; 5], vec![0.0; 5]);
        for t in 1..=steps {
            let g = grad(&theta);
            for i in 0..5 {
                m[i] = b1 * m[i] + (1.0 - b1) * g[i];
                v[i] = b2 * v[i] + (1.0 - b2) * g[i] * g[i];
                let mh = m[i] / (1.0 - b1.powi(t as i32));
                let vh = v[i] / (1.0 - b2.powi(t as i32));
                theta[i] -= lr * (mh / (vh.sqrt() + eps) + wd * theta[i]);
            }
        }
        for (g, w) in got.iter().zip(&theta) {
            assert!((g - w).abs() <= 1e-6, "{steps} steps: {got:?} vs {theta:?}");
        }
    }
}

/// PyTorch's SGD (no dampening): g ← ∇ + λθ; b ← g (first step) or μb + g;
/// d ← g + μb (Nesterov) or b; θ ← θ − ηd.
#[test]
fn sgd_momentum_matches_pytorch_rule() {
    let (lr, mu, wd) = (0.1, 0.9, 0.01);
    for nesterov in [false, true] {
        let got = quadratic_run(
            TrainConfig {
                learning_rate: lr,
                optimizer: OptimizerKind::Sgd {
                    momentum: mu,
                    weight_decay: wd,
                    nesterov,
                },
                ..Default::default()
            },
            4,
        );
        let mut theta = THETA0.to_vec();
        let mut b: Option<Vec<f64>> = None;
        for _ in 0..4 {
            let g: Vec<f64> = grad(&theta)
                .iter()
                .zip(&theta)
                .map(|(g, t)| g + wd * t)
                .collect();
            let nb: Vec<f64> = match &b {
                None => g.clone(),
                Some(b) => b.iter().zip(&g).map(|(b, g)| mu * b + g).collect(),
            };
            let dir: Vec<f64> = if nesterov {
                g.iter().zip(&nb).map(|(g, b)| g + mu * b).collect()
            } else {
                nb.clone()
            };
            for i in 0..5 {
                theta[i] -= lr * dir[i];
            }
            b = Some(nb);
        }
        for (g, w) in got.iter().zip(&theta) {
            assert!(
                (g - w).abs() <= 1e-6,
                "nesterov {nesterov}: {got:?} vs {theta:?}"
            );
        }
    }
}

/// Global-norm clipping: one plain SGD step moves θ by −η·g·c/(‖g‖ + 1e-6) when ‖g‖ > c.
#[test]
fn clipping_scales_the_step_to_the_clip_norm() {
    let (lr, clip) = (1.0, 0.5);
    let got = quadratic_run(
        TrainConfig {
            learning_rate: lr,
            optimizer: OptimizerKind::Sgd {
                momentum: 0.0,
                weight_decay: 0.0,
                nesterov: false,
            },
            clip_norm: Some(clip),
            ..Default::default()
        },
        1,
    );
    let g = grad(&THETA0);
    let norm = g.iter().map(|x| x * x).sum::<f64>().sqrt();
    assert!(norm > clip);
    for i in 0..5 {
        let want = THETA0[i] - lr * g[i] * clip / (norm + 1e-6);
        assert!((got[i] - want).abs() <= 1e-6);
    }
}

fn toy_data() -> (Tensor, Tensor) {
    let dev = Device::Cpu;
    let x: Vec<f32> = (0..40 * 4)
        .map(|i| ((i * 7919) % 17) as f32 / 17.0 - 0.5)
        .collect();
    let y: Vec<u32> = (0..40).map(|i| (i % 3) as u32).collect();
    (
        Tensor::from_vec(x, (40, 4), &dev).unwrap(),
        Tensor::from_vec(y, 40, &dev).unwrap(),
    )
}

#[test]
fn frozen_parameters_do_not_move_even_with_weight_decay() {
    let dev = Device::Cpu;
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let mut params = ParamSet::new();
    let mlp = Mlp::new(&[4, 8, 3], "fc", &mut params, &mut rng, &dev).unwrap();
    assert_eq!(params.freeze_prefix("fc0."), 2);
    let before = params.snapshot().unwrap();
    let (x, y) = toy_data();
    let config = TrainConfig {
        epochs: 5,
        batch_size: 8,
        learning_rate: 0.05,
        progress: false,
        ..Default::default() // AdamW with weight decay 0.01
    };
    fit(
        &params,
        40,
        &config,
        &mut rng,
        |idx| {
            let idx = Tensor::from_vec(
                idx.iter().map(|&i| i as u32).collect::<Vec<_>>(),
                idx.len(),
                &dev,
            )?;
            let logits = mlp.forward(&x.index_select(&idx, 0)?)?;
            candle_nn::loss::cross_entropy(&logits, &y.index_select(&idx, 0)?)
        },
        None,
    )
    .unwrap();
    for (p, b) in params.iter().zip(&before) {
        let same = p
            .var
            .flatten_all()
            .unwrap()
            .to_vec1::<f32>()
            .unwrap()
            .iter()
            .zip(b.flatten_all().unwrap().to_vec1::<f32>().unwrap())
            .all(|(a, b)| a.to_bits() == b.to_bits());
        assert_eq!(
            same, p.frozen,
            "{}: frozen {} but unchanged {}",
            p.name, p.frozen, same
        );
    }
}

#[test]
fn nan_loss_stops_training_with_its_step() {
    let mut params = ParamSet::new();
    let theta = params.add("theta", &vec_f32(&THETA0)).unwrap();
    let config = TrainConfig {
        epochs: 5,
        batch_size: 3,
        learning_rate: 0.01,
        progress: false,
        ..Default::default()
    };
    let mut calls = 0usize;
    let mut snapshot = None;
    let err = fit(
        &params,
        10, // 4 batches per epoch: step 7 is the last batch of epoch 1
        &config,
        &mut ChaCha8Rng::seed_from_u64(0),
        |_| {
            calls += 1;
            if calls == 8 {
                snapshot = Some(theta.to_vec1::<f32>()?);
                return Tensor::new(f32::NAN, &Device::Cpu);
            }
            theta.sqr()?.sum_all()
        },
        None,
    )
    .unwrap_err();
    match err {
        Error::NonFiniteLoss {
            which,
            step,
            epoch,
            loss,
        } => {
            assert_eq!((which, step, epoch), ("training", 7, 1));
            assert!(loss.is_nan());
        }
        other => panic!("expected NonFiniteLoss, got {other}"),
    }
    // The failing step did not update the parameters.
    assert_eq!(theta.to_vec1::<f32>().unwrap(), snapshot.unwrap());
}

#[test]
fn overflowing_loss_is_reported_at_step_zero() {
    let mut params = ParamSet::new();
    let theta = params.add("theta", &vec_f32(&THETA0)).unwrap();
    let config = TrainConfig {
        epochs: 1,
        batch_size: 1,
        progress: false,
        ..Default::default()
    };
    let err = fit(
        &params,
        1,
        &config,
        &mut ChaCha8Rng::seed_from_u64(0),
        |_| (theta.as_tensor() * 1e30)?.sqr()?.sum_all(),
        None,
    )
    .unwrap_err();
    assert!(
        matches!(err, Error::NonFiniteLoss { step: 0, epoch: 0, loss, .. } if loss == f64::INFINITY),
        "{err}"
    );
}

#[test]
fn early_stopping_restores_the_best_epoch() {
    let mut params = ParamSet::new();
    let theta = params.add("theta", &vec_f32(&THETA0)).unwrap();
    let config = TrainConfig {
        epochs: 20,
        batch_size: 1,
        learning_rate: 0.01,
        optimizer: OptimizerKind::Sgd {
            momentum: 0.0,
            weight_decay: 0.0,
            nesterov: false,
        },
        early_stopping: Some(EarlyStopping {
            patience: 2,
            min_delta: 0.0,
            restore_best: true,
        }),
        progress: false,
        ..Default::default()
    };
    let val = [1.0, 0.9, 0.95, 0.96, 0.5];
    let mut epoch = 0;
    let mut seen = Vec::new();
    let mut validate = || -> candle_core::Result<f64> {
        seen.push(theta.to_vec1::<f32>()?);
        epoch += 1;
        Ok(val[epoch - 1])
    };
    let h = fit(
        &params,
        1,
        &config,
        &mut ChaCha8Rng::seed_from_u64(0),
        |_| theta.sqr()?.sum_all(),
        Some(&mut validate),
    )
    .unwrap();
    assert_eq!(h.epochs.len(), 4);
    assert!(h.stopped_early);
    assert_eq!(h.best_epoch, Some(1));
    assert_eq!(h.epochs[1].val_loss, Some(0.9));
    assert_eq!(theta.to_vec1::<f32>().unwrap(), seen[1]);
}

#[test]
fn last_batch_policy_and_history() {
    let mut params = ParamSet::new();
    let theta = params.add("theta", &vec_f32(&THETA0)).unwrap();
    for (last, per_epoch, sizes) in [
        (LastBatch::Keep, 4, vec![3, 3, 3, 1]),
        (LastBatch::Drop, 3, vec![3, 3, 3]),
    ] {
        let config = TrainConfig {
            epochs: 2,
            batch_size: 3,
            last_batch: last,
            progress: false,
            schedule: Schedule::WarmupCosine {
                warmup_steps: 2,
                final_fraction: 0.0,
            },
            ..Default::default()
        };
        let mut seen = Vec::new();
        let h = fit(
            &params,
            10,
            &config,
            &mut ChaCha8Rng::seed_from_u64(0),
            |idx| {
                seen.push(idx.len());
                theta.sqr()?.sum_all()
            },
            None,
        )
        .unwrap();
        assert_eq!(h.epochs.len(), 2);
        assert!(h.epochs.iter().all(|e| e.steps == per_epoch));
        assert_eq!(h.step_losses.len(), 2 * per_epoch);
        assert_eq!(seen[..per_epoch], sizes[..]);
        // The last step of a warm-up + cosine run to 0 has learning rate
        // 0.5·η·(1 + cos(π·(T − 1 − w)/(T − w))).
        let (t, w) = (2 * per_epoch, 2);
        let want =
            0.5 * 1e-3 * (1.0 + (std::f64::consts::PI * (t - 1 - w) as f64 / (t - w) as f64).cos());
        assert!((h.epochs[1].learning_rate - want).abs() < 1e-15);
    }
    let _ = DType::F32;
}
