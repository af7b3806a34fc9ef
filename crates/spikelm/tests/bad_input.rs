//! Hostile inputs at every public entry point: a typed error or a valid
//! result, never a panic.

use candle_core::{Device, Tensor};
use ndarray::Array2;
use nncore::train::TrainConfig;
use proptest::prelude::*;
use proptest::test_runner::{Config as ProptestConfig, RngSeed};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use spikelm::corpus::{Vocab, mask_tokens, synthetic_corpus};
use spikelm::layers::SpikeSettings;
use spikelm::model::{LmConfig, Objective, SpikeLm};
use spikelm::neuron::{
    check_alphas, clip_surrogate, reference_backward, reference_forward, reference_init_alphas,
};
use spikelm::sparse::SpikeMatrix;
use spikelm::{AlphaPolicy, ElasticBiSpike, Error, Levels, NeuronConfig, ResetMode};

fn any_f32() -> impl Strategy<Value = f32> {
    prop_oneof![
        Just(f32::NAN),
        Just(f32::INFINITY),
        Just(f32::NEG_INFINITY),
        Just(0.0f32),
        Just(-0.0f32),
        Just(f32::MAX),
        Just(f32::MIN_POSITIVE),
        -10.0f32..10.0,
    ]
}

fn config() -> ProptestConfig {
    ProptestConfig {
        rng_seed: RngSeed::Fixed(26_99),
        ..ProptestConfig::with_cases(128)
    }
}

fn cfg(t: usize, decay: f32) -> NeuronConfig {
    NeuronConfig {
        t_steps: t,
        decay,
        reset: ResetMode::Official,
        levels: Levels::Ternary,
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn neuron_constructor_and_forward(t in 0usize..4, decay in any_f32(), k in any_f32(),
                                      alphas in prop::collection::vec(any_f32(), 0..5),
                                      x in prop::collection::vec(any_f32(), 0..13), rows in 0usize..5) {
        let c = cfg(t, decay);
        for policy in [AlphaPolicy::MeanAbs { k, freeze_after_first: true }, AlphaPolicy::Fixed(alphas.clone()), AlphaPolicy::Learnable { k }] {
            match ElasticBiSpike::new(c, policy) {
                Err(Error::ZeroTimeSteps) => prop_assert_eq!(t, 0),
                Err(Error::DecayOutOfRange(_)) => prop_assert!(!(0.0..=1.0).contains(&decay)),
                Err(Error::InvalidParameter { .. } | Error::NonPositiveAlpha { .. } | Error::ShapeMismatch { .. }) => {}
                Err(e) => prop_assert!(false, "unexpected {}", e),
                Ok(mut n) => {
                    if rows > 0 && x.len() >= rows {
                        let cols = x.len() / rows;
                        if cols > 0 {
                            let xt = Tensor::from_vec(x[..rows * cols].to_vec(), (rows, cols), &Device::Cpu).unwrap();
                            let _ = n.forward(&xt);
                            if let Ok((s, _)) = n.forward_init(&xt) {
                                prop_assert!(s.flatten_all().unwrap().to_vec1::<f32>().unwrap().iter().all(|v| v.is_finite()));
                            }
                        }
                    }
                    let _ = n.set_alphas(&alphas);
                    let _ = ElasticBiSpike::from_json(&n.to_json().unwrap());
                }
            }
        }
    }

    #[test]
    fn reference_functions(t in 0usize..4, decay in any_f32(), k in any_f32(),
                           alphas in prop::collection::vec(any_f32(), 0..5),
                           x in prop::collection::vec(any_f32(), 0..13),
                           g in prop::collection::vec(any_f32(), 0..13)) {
        let c = cfg(t, decay);
        let _ = check_alphas(t, &alphas);
        if let Ok(s) = reference_forward(&c, &alphas, &x) {
            prop_assert!(s.iter().all(|v| v.is_finite()));
        }
        let _ = reference_init_alphas(&c, k, &x);
        let _ = reference_backward(&c, &alphas, &x, &g);
        let _ = clip_surrogate(&c, &alphas, &x, &g, &g);
    }

    #[test]
    fn sparse_matrix(n in 0usize..4, d in 0usize..4, m in 0usize..4, alpha in any_f32(),
                     vals in prop::collection::vec(any_f32(), 16), w in prop::collection::vec(any_f32(), 16)) {
        let s = Array2::from_shape_fn((n, d), |(i, j)| vals[(i * 4 + j) % 16]);
        if let Ok(sm) = SpikeMatrix::from_dense(s.view(), alpha) {
            let wm = Array2::from_shape_fn((d, m), |(i, j)| w[(i * 4 + j) % 16]);
            let _ = sm.matmul(wm.view());
            let wrong = Array2::from_shape_fn((d + 1, m), |(i, j)| w[(i * 4 + j) % 16]);
            let shape_err = matches!(sm.matmul(wrong.view()), Err(Error::ShapeMismatch { .. }));
            prop_assert!(shape_err);
        }
    }

    #[test]
    fn corpus_and_masking(text in ".{0,20}", p in -1.0f64..2.0, ids in prop::collection::vec(0u32..40, 0..20),
                          n in 0usize..50, words in 0usize..5) {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let _ = synthetic_corpus(n, words, &mut rng);
        match Vocab::from_text(&text) {
            Err(Error::Empty(_)) => prop_assert!(text.is_empty()),
            Err(e) => prop_assert!(false, "unexpected {}", e),
            Ok(v) => {
                let _ = v.encode("zZ\u{1F600}");
                let _ = v.decode(&ids);
                match mask_tokens(&ids, p, &v, &mut rng) {
                    Err(Error::InvalidParameter { .. }) => prop_assert!(!(p > 0.0 && p < 1.0)),
                    Err(Error::TokenOutOfRange { .. }) | Ok(_) => {}
                    Err(e) => prop_assert!(false, "unexpected {}", e),
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { rng_seed: RngSeed::Fixed(26_98), ..ProptestConfig::with_cases(24) })]

    #[test]
    fn model_entry_points(vocab in 0usize..6, d in 0usize..9, heads in 0usize..3, layers in 0usize..2,
                          context in 0usize..6, p in -0.5f64..1.5, t in 0usize..3, spiking in any::<bool>(),
                          ids in prop::collection::vec(0u32..8, 0..12), batch in 0usize..3) {
        let mut rng = ChaCha8Rng::seed_from_u64(2);
        let s = spiking.then(|| SpikeSettings { neuron: cfg(t, 0.25), alpha: AlphaPolicy::default() });
        let c = LmConfig { vocab, d_model: d, layers, heads, d_ff: 4, context, objective: Objective::MaskedLm { mask_prob: p }, spiking: s };
        if let Ok(mut m) = SpikeLm::new(c, &mut rng) {
            let _ = m.forward(&ids, batch);
            let _ = m.initialize(&ids, batch);
            let _ = m.forward(&ids, batch);
            let v = Vocab::from_text("abc").unwrap();
            let tc = TrainConfig { epochs: 1, batch_size: 2, progress: false, ..Default::default() };
            let _ = m.train(&ids, &v, 2, &tc, &mut rng);
            let _ = m.evaluate(&ids, &v, 2, 0);
        }
    }
}
