//! The spike-sparse kernel against the dense GEMM, and the spiking layers and models.

use candle_core::{Device, Tensor};
use ndarray::Array2;
use nncore::params::ParamSet;
use nncore::train::TrainConfig;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use spikelm::corpus::{Vocab, mask_tokens, synthetic_corpus};
use spikelm::layers::{SpikeLinear, SpikeSettings};
use spikelm::model::{LmConfig, Objective, SpikeLm};
use spikelm::sparse::SpikeMatrix;
use spikelm::{AlphaPolicy, Levels, NeuronConfig, ResetMode};

fn spikes(rng: &mut ChaCha8Rng, n: usize, d: usize, rate: f64, alpha: f32) -> Array2<f32> {
    Array2::from_shape_fn((n, d), |_| {
        if rng.random_bool(rate) {
            if rng.random_bool(0.5) { alpha } else { -alpha }
        } else {
            0.0
        }
    })
}

/// With dyadic weights and α a power of two every sum is exact, so the
/// spike-sparse product equals the dense GEMM bit for bit.
#[test]
fn sparse_kernel_equals_dense_gemm_exactly_on_dyadic_values() {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    for &(n, d_in, d_out, rate) in &[
        (1, 1, 1, 0.5),
        (7, 33, 5, 0.1),
        (16, 64, 48, 0.3),
        (5, 20, 9, 1.0),
    ] {
        let alpha = 0.25f32;
        let s = spikes(&mut rng, n, d_in, rate, alpha);
        let w = Array2::from_shape_fn((d_in, d_out), |_| {
            rng.random_range(-64i32..64) as f32 / 16.0
        });
        let m = SpikeMatrix::from_dense(s.view(), alpha).unwrap();
        assert_eq!(m.nnz(), s.iter().filter(|v| **v != 0.0).count());
        assert_eq!(m.matmul(w.view()).unwrap(), s.dot(&w));
    }
}

/// On general floats the two agree to the rounding of the additions:
/// |Δ| ≤ 1e-5·α·Σ_j |W_j·| per output.
#[test]
fn sparse_kernel_matches_dense_gemm_on_floats() {
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    let (n, d_in, d_out) = (32, 128, 96);
    for rate in [0.05, 0.2, 0.5] {
        let alpha = 0.37f32;
        let s = spikes(&mut rng, n, d_in, rate, alpha);
        let w = Array2::from_shape_fn((d_in, d_out), |_| rng.random_range(-1.0f32..1.0));
        let got = SpikeMatrix::from_dense(s.view(), alpha)
            .unwrap()
            .matmul(w.view())
            .unwrap();
        let want = s.dot(&w);
        let bound = w.mapv(f32::abs).sum_axis(ndarray::Axis(0)) * alpha * 1e-5;
        for ((r, c), g) in got.indexed_iter() {
            assert!(
                (g - want[[r, c]]).abs() <= bound[c],
                "{g} vs {}",
                want[[r, c]]
            );
        }
    }
}

fn settings(t: usize, levels: Levels) -> SpikeSettings {
    SpikeSettings {
        neuron: NeuronConfig {
            t_steps: t,
            decay: 0.25,
            reset: ResetMode::Official,
            levels,
        },
        alpha: AlphaPolicy::default(),
    }
}

/// `SpikeLinear` = membrane spikes, then `W·s + b`: its output equals the
/// sparse kernel applied to the neuron's own spikes (per step, plus the bias),
/// and its AC count is nnz·d_out.
#[test]
fn spike_linear_is_neuron_then_sparse_product() {
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let mut params = ParamSet::new();
    let (t, n, d_in, d_out) = (3, 10, 24, 12);
    let mut lin = SpikeLinear::new(
        &mut params,
        "l",
        d_in,
        d_out,
        Some(&settings(t, Levels::Ternary)),
        &mut rng,
    )
    .unwrap();
    let x = nncore::init::normal(&[t, n, d_in], 0.0, 1.0, &mut rng, &Device::Cpu).unwrap();
    let (y, stats) = lin.forward_init(&x).unwrap();
    let neuron = lin.neuron().unwrap().clone();
    let (s, _) = neuron.forward(&x).unwrap();
    let alphas = neuron.alphas().unwrap().unwrap();
    let w: Vec<f32> = lin
        .weight()
        .as_tensor()
        .flatten_all()
        .unwrap()
        .to_vec1()
        .unwrap();
    let w = Array2::from_shape_vec((d_in, d_out), w).unwrap();
    let mut nnz = 0;
    for (step, &alpha) in alphas.iter().enumerate().take(t) {
        let st: Vec<f32> = s
            .get(step)
            .unwrap()
            .flatten_all()
            .unwrap()
            .to_vec1()
            .unwrap();
        let m = SpikeMatrix::from_dense(
            Array2::from_shape_vec((n, d_in), st).unwrap().view(),
            alpha.max(1e-5),
        )
        .unwrap();
        nnz += m.nnz();
        let want = m.matmul(w.view()).unwrap();
        let got: Vec<f32> = y
            .get(step)
            .unwrap()
            .flatten_all()
            .unwrap()
            .to_vec1()
            .unwrap();
        for (g, e) in got.iter().zip(want.iter()) {
            assert!((g - e).abs() <= 1e-5 * (1.0 + e.abs()), "{g} vs {e}");
        }
    }
    assert_eq!(stats.ac_ops, (nnz * d_out) as u64);
    assert_eq!(stats.mac_ops, 0);
}

fn small(vocab: usize, objective: Objective, spiking: Option<SpikeSettings>) -> LmConfig {
    LmConfig {
        vocab,
        d_model: 16,
        layers: 1,
        heads: 2,
        d_ff: 32,
        context: 12,
        objective,
        spiking,
    }
}

/// The causal LM's logits at position i do not depend on tokens after i
/// (ANN and spiking): the causal mask holds through the spiking layers.
#[test]
fn causal_lm_does_not_look_ahead() {
    for spiking in [None, Some(settings(2, Levels::Ternary))] {
        let mut rng = ChaCha8Rng::seed_from_u64(6);
        let mut m = SpikeLm::new(small(7, Objective::Causal, spiking), &mut rng).unwrap();
        let a: Vec<u32> = vec![1, 2, 3, 4, 5, 0, 1, 2];
        let mut b = a.clone();
        b[6] = 5;
        b[7] = 4;
        m.initialize(&a, 1).unwrap();
        let la: Vec<Vec<Vec<f32>>> = m.forward(&a, 1).unwrap().0.to_vec3().unwrap();
        let lb: Vec<Vec<Vec<f32>>> = m.forward(&b, 1).unwrap().0.to_vec3().unwrap();
        assert_eq!(la[0][..6], lb[0][..6]);
        assert_ne!(la[0][7], lb[0][7]);
    }
}

/// Training lowers the masked-LM validation loss below the uniform
/// `log₂ |chars|` for the ANN and the spiking model, and the spiking model
/// fires (0 < rate < 1) with accumulate operations only in its linear layers.
#[test]
fn masked_lm_learns_ann_and_spiking() {
    let mut rng = ChaCha8Rng::seed_from_u64(8);
    let text = synthetic_corpus(30_000, 60, &mut rng).unwrap();
    let vocab = Vocab::from_text(&text).unwrap();
    let ids = vocab.encode(&text).unwrap();
    let (train, val) = ids.split_at(25_000);
    let uniform = ((vocab.len() - 1) as f64).log2();
    for spiking in [None, Some(settings(2, Levels::Ternary))] {
        let ann = spiking.is_none();
        let mut cfg = small(
            vocab.len(),
            Objective::MaskedLm { mask_prob: 0.15 },
            spiking,
        );
        cfg.context = 32;
        let mut m = SpikeLm::new(cfg, &mut rng).unwrap();
        let tc = TrainConfig {
            epochs: 1,
            batch_size: 16,
            learning_rate: 3e-3,
            progress: false,
            ..Default::default()
        };
        m.train(train, &vocab, 16 * 80, &tc, &mut rng).unwrap();
        let ev = m.evaluate(val, &vocab, 40, 1).unwrap();
        assert!(
            ev.bits_per_char < uniform - 0.3,
            "ann = {ann}: {} vs uniform {uniform}",
            ev.bits_per_char
        );
        if ann {
            assert_eq!(ev.stats.ac_ops, 0);
        } else {
            assert!(ev.stats.rate() > 0.0 && ev.stats.rate() < 1.0);
            assert!(ev.stats.ac_ops > 0);
        }
    }
}

/// BERT masking: about 15% selected; of those about 80% `[MASK]`, 10% random, 10% kept
/// (binomial bounds at more than 6 standard deviations).
#[test]
fn masking_is_80_10_10() {
    let vocab = Vocab::from_text("abcdefghij").unwrap();
    let ids: Vec<u32> = (0..200_000).map(|i| (i % 10) as u32).collect();
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    let (out, sel) = mask_tokens(&ids, 0.15, &vocab, &mut rng).unwrap();
    let n = sel.iter().filter(|s| **s).count() as f64;
    assert!((n / 200_000.0 - 0.15).abs() < 6.0 * (0.15f64 * 0.85 / 200_000.0).sqrt());
    let masked = out.iter().filter(|&&o| o == vocab.mask_id()).count() as f64;
    assert!((masked / n - 0.8).abs() < 6.0 * (0.16f64 / n).sqrt());
    let unselected_changed = out
        .iter()
        .zip(&ids)
        .zip(&sel)
        .filter(|((o, i), s)| !**s && o != i)
        .count();
    assert_eq!(unselected_changed, 0);
    let _ = Tensor::new(0f32, &Device::Cpu).unwrap();
}
