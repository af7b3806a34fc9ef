//! Hostile inputs at every public entry point: NaN and infinities, empty and
//! mismatched inputs, zero and overflowing sizes, out-of-range labels and
//! parameters. Each call must return (a typed error where the input is
//! invalid), never panic. Seeded proptest.

use candle_core::{Device, Tensor};
use ndarray::{Array1, Array2};
use nncore::data::{ClassificationData, LastBatch, batches, shuffled_indices, train_test_split};
use nncore::init;
use nncore::metrics;
use nncore::models::Mlp;
use nncore::optim::{OptimizerKind, Schedule};
use nncore::params::ParamSet;
use nncore::readers::{CharCorpus, labelled_csv};
use nncore::train::{EarlyStopping, TrainConfig, fit};
use nncore::{Error, Result};
use proptest::prelude::*;
use proptest::test_runner::RngSeed;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

fn config() -> ProptestConfig {
    ProptestConfig {
        rng_seed: RngSeed::Fixed(0x6e6e_636f_7265),
        ..ProptestConfig::with_cases(192)
    }
}

fn hostile_f64() -> impl Strategy<Value = f64> {
    prop_oneof![
        Just(f64::NAN),
        Just(f64::INFINITY),
        Just(f64::NEG_INFINITY),
        Just(0.0),
        Just(-0.0),
        Just(-1.0),
        Just(1.0),
        Just(1e308),
        Just(5e-324),
        -2.0..2.0f64,
    ]
}

fn dim() -> impl Strategy<Value = usize> {
    prop_oneof![4 => 0usize..5, 1 => Just(usize::MAX / 3), 1 => Just(1usize << 40)]
}

fn finite(x: f64) -> bool {
    x.is_finite()
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn initialisers(shape in prop::collection::vec(dim(), 0..4), a in hostile_f64(), b in hostile_f64()) {
        let dev = Device::Cpu;
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let empty = shape.is_empty() || shape.contains(&0);
        let results: Vec<Result<Tensor>> = vec![
            init::normal(&shape, a, b, &mut rng, &dev),
            init::uniform(&shape, a, b, &mut rng, &dev),
            init::xavier_uniform(&shape, a, &mut rng, &dev),
            init::xavier_normal(&shape, a, &mut rng, &dev),
            init::kaiming_uniform(&shape, a, &mut rng, &dev),
            init::kaiming_normal(&shape, a, &mut rng, &dev),
            init::orthogonal(&shape, a, &mut rng, &dev),
            init::dropout_mask(&shape, a, &mut rng, &dev),
        ];
        for (i, r) in results.iter().enumerate() {
            if empty {
                prop_assert!(r.is_err(), "initialiser {i} accepted shape {shape:?}");
            }
            if let Ok(t) = r {
                let v = t.flatten_all().unwrap().to_vec1::<f32>().unwrap();
                prop_assert!(v.iter().all(|x| x.is_finite()), "initialiser {i}: non-finite output");
            }
        }
        // Non-positive or non-finite scales are rejected.
        if !(b > 0.0 && b.is_finite()) {
            prop_assert!(results[0].is_err());
        }
        if !(a > 0.0 && a.is_finite()) {
            prop_assert!(results[2..7].iter().all(Result::is_err));
        }
        if !(0.0..1.0).contains(&a) {
            prop_assert!(results[7].is_err());
        }
        let _ = init::fans(&shape);
    }

    #[test]
    fn data_sets_and_batches(
        rows in 0usize..6, cols in 0usize..4, classes in 0usize..4,
        fill in hostile_f64(), label in 0usize..6, extra in 0usize..2,
        bs in 0usize..8, frac in hostile_f64(), idx in prop::collection::vec(0usize..10, 0..5),
    ) {
        let x = Array2::from_elem((rows, cols), fill as f32);
        let y = vec![label; rows + extra];
        let r = ClassificationData::new(x, y, classes);
        let valid = rows > 0 && cols > 0 && classes > 0 && extra == 0
            && (fill as f32).is_finite() && label < classes;
        prop_assert_eq!(r.is_ok(), valid);
        if let Ok(d) = r {
            let _ = d.clone().scaled(fill as f32);
            let sub = d.subset(&idx);
            prop_assert_eq!(sub.is_ok(), !idx.is_empty() && idx.iter().all(|&i| i < rows));
            let _ = d.batch(&idx, &Device::Cpu);
        }
        let order = shuffled_indices(rows, &mut ChaCha8Rng::seed_from_u64(2));
        for last in [LastBatch::Keep, LastBatch::Drop] {
            prop_assert_eq!(batches(&order, bs, last).is_ok(), bs > 0 && rows > 0);
        }
        let split = train_test_split(rows, frac, &mut ChaCha8Rng::seed_from_u64(3));
        if let Ok(s) = split {
            prop_assert_eq!(s.train.len() + s.test.len(), rows);
            prop_assert!(!s.train.is_empty() && !s.test.is_empty());
        } else {
            prop_assert!(!(frac > 0.0 && frac < 1.0) || rows < 2 || (frac * rows as f64).ceil() as usize >= rows);
        }
    }

    #[test]
    fn readers(text in "[0-9,\\-.a-z\\n ]{0,60}", classes in 0usize..12, ids in prop::collection::vec(0u32..40, 0..6)) {
        let _ = labelled_csv(&text, "hostile.csv", classes);
        match CharCorpus::from_text(&text) {
            Ok(c) => {
                prop_assert_eq!(c.decode(&c.ids).unwrap(), text.clone());
                let ok = ids.iter().all(|&i| (i as usize) < c.vocab.len());
                prop_assert_eq!(c.decode(&ids).is_ok(), ok);
            }
            Err(e) => prop_assert!(
                text.is_empty() && matches!(e, Error::Empty { .. }),
                "from_text failed on non-empty text"
            ),
        }
    }

    #[test]
    fn metrics_on_hostile_probabilities(
        rows in 0usize..5, k in 0usize..4, vals in prop::collection::vec(hostile_f64(), 16),
        labels in prop::collection::vec(0usize..5, 0..6), bins in 0usize..20,
        flags in prop::collection::vec(any::<bool>(), 0..6),
    ) {
        let p = Array2::from_shape_fn((rows, k), |(i, j)| vals[(i * 4 + j) % 16]);
        let valid = metrics::check_probabilities(p.view(), &labels).is_ok();
        let results = [
            metrics::accuracy(p.view(), &labels),
            metrics::nll(p.view(), &labels),
            metrics::brier(p.view(), &labels),
            metrics::perplexity(p.view(), &labels),
            metrics::bits_per_character(p.view(), &labels),
            metrics::ece(p.view(), &labels, bins).map(|c| c.ece),
        ];
        for (i, r) in results.iter().enumerate() {
            if i < 5 {
                prop_assert_eq!(r.is_ok(), valid, "metric {}", i);
            } else {
                prop_assert_eq!(r.is_ok(), valid && bins > 0);
            }
            if let Ok(v) = r {
                prop_assert!(finite(*v) && *v >= 0.0);
            }
        }
        let scores = Array1::from_shape_fn(flags.len(), |i| vals[i]);
        let score_ok = !flags.is_empty() && scores.iter().all(|s| s.is_finite());
        let pos = flags.iter().filter(|&&f| f).count();
        let both = pos > 0 && pos < flags.len();
        prop_assert_eq!(metrics::auroc(scores.view(), &flags).is_ok(), score_ok && both);
        prop_assert_eq!(metrics::fpr_at_95_tpr(scores.view(), &flags).is_ok(), score_ok && both);
        prop_assert_eq!(metrics::aupr(scores.view(), &flags).is_ok(), score_ok && pos > 0);
        let a = metrics::aurc(scores.view(), &flags);
        prop_assert_eq!(a.is_ok(), score_ok);
        if let Ok(a) = a {
            prop_assert!(a.e_aurc >= -1e-12 && a.aurc <= 1.0 + 1e-12);
        }
        // Length mismatch.
        if !flags.is_empty() {
            prop_assert!(metrics::auroc(scores.view(), &flags[1..]).is_err());
        }
    }

    #[test]
    fn training_configuration(
        epochs in 0usize..3, bs in 0usize..4, lr in hostile_f64(), clip in hostile_f64(),
        beta in hostile_f64(), patience in 0usize..2, n in 0usize..4, frac in hostile_f64(),
        sgd in any::<bool>(), drop_last in any::<bool>(),
    ) {
        let optimizer = if sgd {
            OptimizerKind::Sgd { momentum: beta, weight_decay: 0.0, nesterov: false }
        } else {
            OptimizerKind::AdamW { beta1: beta, beta2: 0.999, eps: 1e-8, weight_decay: 0.0 }
        };
        let config = TrainConfig {
            epochs,
            batch_size: bs,
            last_batch: if drop_last { LastBatch::Drop } else { LastBatch::Keep },
            learning_rate: lr,
            optimizer,
            schedule: Schedule::WarmupCosine { warmup_steps: 1, final_fraction: frac },
            clip_norm: Some(clip),
            early_stopping: Some(EarlyStopping { patience, min_delta: 0.0, restore_best: true }),
            progress: false,
        };
        let valid_config = epochs > 0 && bs > 0 && lr.is_finite() && lr > 0.0
            && clip.is_finite() && clip > 0.0 && (0.0..1.0).contains(&beta)
            && patience > 0 && (0.0..=1.0).contains(&frac);
        prop_assert_eq!(config.check().is_ok(), valid_config);
        let mut params = ParamSet::new();
        let theta = params.add("theta", &Tensor::new(&[0.5f32, -0.5], &Device::Cpu).unwrap()).unwrap();
        prop_assert!(params.add("theta", &Tensor::new(&[1f32], &Device::Cpu).unwrap()).is_err());
        prop_assert!(params.set_frozen("nope", true).is_err());
        let r = fit(&params, n, &config, &mut ChaCha8Rng::seed_from_u64(4), |_| theta.sqr()?.sum_all(), None);
        let has_batch = n > 0 && (!drop_last || (bs > 0 && n >= bs));
        prop_assert_eq!(r.is_ok(), valid_config && has_batch);
        if let Ok(h) = r {
            prop_assert!(h.step_losses.iter().all(|l| l.is_finite()));
        }
        // A non-scalar loss is a candle error, not a panic.
        if valid_config && has_batch {
            let bad = fit(&params, n, &config, &mut ChaCha8Rng::seed_from_u64(4), |_| theta.sqr(), None);
            prop_assert!(matches!(bad, Err(Error::Candle(_))));
        }
        // Everything frozen: nothing to train.
        params.set_frozen("theta", true).unwrap();
        let quiet = TrainConfig { progress: false, ..Default::default() };
        let frozen = fit(&params, 3, &quiet, &mut ChaCha8Rng::seed_from_u64(4), |_| theta.sqr()?.sum_all(), None);
        prop_assert!(matches!(frozen, Err(Error::Empty { .. })), "all frozen must be an error");
        prop_assert!(params.restore(&[]).is_err());
    }

    #[test]
    fn models(sizes in prop::collection::vec(0usize..4, 0..4)) {
        let mut params = ParamSet::new();
        let r = Mlp::new(&sizes, "m", &mut params, &mut ChaCha8Rng::seed_from_u64(5), &Device::Cpu);
        prop_assert_eq!(r.is_ok(), sizes.len() >= 2 && !sizes.contains(&0));
        if let Ok(m) = r {
            // A batch of the wrong width is a candle error.
            let x = Tensor::zeros((2, sizes[0] + 1), candle_core::DType::F32, &Device::Cpu).unwrap();
            prop_assert!(m.forward(&x).is_err());
            // The same names again are taken.
            prop_assert!(Mlp::new(&sizes, "m", &mut params, &mut ChaCha8Rng::seed_from_u64(5), &Device::Cpu).is_err());
        }
    }
}
