//! The spec's property tests 1–9 of the elastic bi-spiking neuron, and the
//! candle neuron checked against the plain-slice reference.

use candle_core::{Device, Tensor, Var};
use proptest::prelude::*;
use proptest::test_runner::{Config as ProptestConfig, RngSeed};
use spikelm::neuron::{
    clip_surrogate, reference_backward, reference_forward, reference_membranes,
    reference_reset_factors,
};
use spikelm::{AlphaPolicy, ElasticBiSpike, Levels, NeuronConfig, ResetMode};

const MODES: [ResetMode; 3] = [
    ResetMode::Official,
    ResetMode::Normalized,
    ResetMode::Symmetric,
];
const LEVELS: [Levels; 3] = [Levels::Ternary, Levels::Binary, Levels::Unipolar];

fn cfg(t: usize, reset: ResetMode, levels: Levels) -> NeuronConfig {
    NeuronConfig {
        t_steps: t,
        decay: 0.25,
        reset,
        levels,
    }
}

fn candle_spikes(c: NeuronConfig, alphas: &[f32], x: &[f32]) -> Vec<f32> {
    let n = x.len() / c.t_steps;
    let neuron = ElasticBiSpike::new(c, AlphaPolicy::Fixed(alphas.to_vec())).unwrap();
    let xt = Tensor::from_vec(x.to_vec(), (c.t_steps, n), &Device::Cpu).unwrap();
    neuron
        .forward(&xt)
        .unwrap()
        .0
        .flatten_all()
        .unwrap()
        .to_vec1()
        .unwrap()
}

/// Constant input `x` over 4 steps, α = 1.
fn row(reset: ResetMode, x: f32) -> Vec<f32> {
    candle_spikes(cfg(4, reset, Levels::Ternary), &[1.0; 4], &[x; 4])
}

fn proptest_config(cases: u32, seed: u64) -> ProptestConfig {
    ProptestConfig {
        rng_seed: RngSeed::Fixed(seed),
        ..ProptestConfig::with_cases(cases)
    }
}

/// Property 2: the spec's known-value table (α = 1, T = 4, λ = 0.25), all three reset modes.
#[test]
fn known_value_table_exact_in_all_reset_modes() {
    let table: [(f32, [f32; 4], [f32; 4]); 6] = [
        (0.30, [0.0; 4], [0.0; 4]),
        (-1.20, [-1.0; 4], [-1.0; 4]),
        (2.00, [1.0; 4], [1.0; 4]),
        (0.45, [0.0, 1.0, 0.0, 1.0], [0.0, 1.0, 0.0, 1.0]),
        (-0.45, [0.0, -1.0, -1.0, -1.0], [0.0, -1.0, 0.0, -1.0]),
        (0.50, [0.0, 1.0, 0.0, 1.0], [0.0, 1.0, 0.0, 1.0]),
    ];
    for (x, official, symmetric) in table {
        assert_eq!(row(ResetMode::Official, x), official, "official x = {x}");
        // Normalized equals Official at α = 1.
        assert_eq!(
            row(ResetMode::Normalized, x),
            official,
            "normalized x = {x}"
        );
        assert_eq!(row(ResetMode::Symmetric, x), symmetric, "symmetric x = {x}");
        let mean: f32 = official.iter().sum::<f32>() / 4.0;
        assert_eq!(
            reference_forward(
                &cfg(4, ResetMode::Official, Levels::Ternary),
                &[1.0; 4],
                &[x; 4]
            )
            .unwrap(),
            official
        );
        assert!(mean.abs() <= 1.0);
    }
}

/// Property 3 (regression): the official reset is not odd; x = −0.45 fires
/// 0, −1, −1, −1 while x = 0.45 fires 0, 1, 0, 1.
#[test]
fn official_reset_asymmetry_pinned_at_minus_0_45() {
    assert_eq!(row(ResetMode::Official, -0.45), vec![0.0, -1.0, -1.0, -1.0]);
    assert_eq!(row(ResetMode::Official, 0.45), vec![0.0, 1.0, 0.0, 1.0]);
}

/// Property 9's pinned counter-example: the official neuron is not
/// scale-equivariant (x = 0.45α with α = 1 fires 0,1,0,1; with α = 0.2 it
/// never fires), while `Normalized` and `Symmetric` give the same pattern.
#[test]
fn official_not_scale_equivariant_pinned() {
    let c = cfg(4, ResetMode::Official, Levels::Ternary);
    assert_eq!(
        candle_spikes(c, &[1.0; 4], &[0.45; 4]),
        vec![0.0, 1.0, 0.0, 1.0]
    );
    assert_eq!(candle_spikes(c, &[0.2; 4], &[0.45 * 0.2; 4]), vec![0.0; 4]);
    for reset in [ResetMode::Normalized, ResetMode::Symmetric] {
        let c = cfg(4, reset, Levels::Ternary);
        let small = candle_spikes(c, &[0.2; 4], &[0.45 * 0.2; 4]);
        let pattern: Vec<f32> = small.iter().map(|s| s / 0.2).collect();
        assert_eq!(pattern, vec![0.0, 1.0, 0.0, 1.0], "{reset:?}");
    }
}

/// Ties go to even: x = 0.5α gives no spike at T = 1 (torch's `round`), x = 1.5α saturates.
#[test]
fn ties_round_to_even() {
    let c = cfg(1, ResetMode::Official, Levels::Ternary);
    assert_eq!(
        candle_spikes(c, &[2.0], &[1.0, -1.0, 1.0000001, 3.0]),
        vec![0.0, 0.0, 2.0, 2.0]
    );
}

fn inputs(max_t: usize) -> impl Strategy<Value = (usize, Vec<f32>, Vec<f32>)> {
    (1..=max_t, 1usize..12).prop_flat_map(|(t, n)| {
        (
            Just(t),
            prop::collection::vec(0.05f32..3.0, t),
            prop::collection::vec(-5.0f32..5.0, t * n),
        )
    })
}

proptest! {
    #![proptest_config(proptest_config(96, 26_01))]

    /// Property 1: every output is exactly one of {−α_t, 0, α_t} (bitwise,
    /// +0.0 for no spike), for T ∈ 1..8, every reset mode and level set; and
    /// the candle neuron equals the reference bit for bit.
    #[test]
    fn outputs_are_exact_levels_and_match_reference((t, alphas, x) in inputs(8)) {
        let n = x.len() / t;
        for reset in MODES {
            for levels in LEVELS {
                let c = cfg(t, reset, levels);
                let s = candle_spikes(c, &alphas, &x);
                let r = reference_forward(&c, &alphas, &x).unwrap();
                for (i, (&a, &b)) in s.iter().zip(&r).enumerate() {
                    prop_assert_eq!(a.to_bits(), b.to_bits());
                    let al = alphas[i / n];
                    let ok = a.to_bits() == al.to_bits()
                        || a.to_bits() == 0f32.to_bits()
                        || (levels != Levels::Unipolar && a.to_bits() == (-al).to_bits());
                    prop_assert!(ok, "{a} is not a level of α = {al}");
                }
            }
        }
    }

    /// Property 3: `Symmetric` is odd, f(−x) = −f(x), bitwise.
    #[test]
    fn symmetric_reset_is_odd((t, alphas, x) in inputs(8)) {
        for levels in [Levels::Ternary, Levels::Binary] {
            let c = cfg(t, ResetMode::Symmetric, levels);
            let neg: Vec<f32> = x.iter().map(|v| -v).collect();
            let a = candle_spikes(c, &alphas, &x);
            let b = candle_spikes(c, &alphas, &neg);
            for (p, q) in a.iter().zip(&b) {
                prop_assert_eq!(*p, -*q);
            }
        }
    }

    /// Property 4: a constant input x ≥ α fires +α at every step, x ≤ −α fires −α (`Official`).
    #[test]
    fn saturation_beyond_alpha(t in 1usize..=8, alpha in 0.05f32..4.0, c in 1.0f32..6.0) {
        let cf = cfg(t, ResetMode::Official, Levels::Ternary);
        let up = candle_spikes(cf, &vec![alpha; t], &vec![alpha * c; t]);
        prop_assert!(up.iter().all(|&s| s == alpha));
        let down = candle_spikes(cf, &vec![alpha; t], &vec![-alpha * c; t]);
        prop_assert!(down.iter().all(|&s| s == -alpha));
    }

    /// Property 5: at T = 1 the output is α·round_ties_even(clip(x/α, −1, 1)).
    #[test]
    fn single_step_is_rounded_clip(alpha in 0.01f32..10.0, x in prop::collection::vec(-20.0f32..20.0, 1..40)) {
        for reset in MODES {
            let s = candle_spikes(cfg(1, reset, Levels::Ternary), &[alpha], &x);
            for (&si, &xi) in s.iter().zip(&x) {
                let want = alpha * (xi / alpha).clamp(-1.0, 1.0).round_ties_even();
                prop_assert_eq!(si, want);
            }
        }
    }

    /// Property 9: `Normalized` and `Symmetric` satisfy f(c·x; c·α) = c·f(x; α)
    /// (c a power of two, so the identity is exact in floating point).
    #[test]
    fn normalized_and_symmetric_are_scale_equivariant((t, alphas, x) in inputs(8), e in -6i32..6) {
        let c = 2f32.powi(e);
        for reset in [ResetMode::Normalized, ResetMode::Symmetric] {
            let cf = cfg(t, reset, Levels::Ternary);
            let base = candle_spikes(cf, &alphas, &x);
            let ca: Vec<f32> = alphas.iter().map(|a| a * c).collect();
            let cx: Vec<f32> = x.iter().map(|v| v * c).collect();
            let scaled = candle_spikes(cf, &ca, &cx);
            for (p, q) in base.iter().zip(&scaled) {
                prop_assert_eq!(p * c, *q);
            }
        }
    }
}

proptest! {
    #![proptest_config(proptest_config(48, 26_02))]

    /// Property 6: on the first batch α_t = k·mean_i|u_{t,i}| (to 1e-6,
    /// relative), with u recomputed from the returned amplitudes; the values
    /// stay unchanged by later batches.
    #[test]
    fn first_batch_alpha_is_k_mean_abs((t, _a, x) in inputs(8), k in 0.5f32..4.0) {
        for reset in MODES {
            let c = cfg(t, reset, Levels::Ternary);
            let n = x.len() / t;
            let mut neuron = ElasticBiSpike::new(c, AlphaPolicy::MeanAbs { k, freeze_after_first: true }).unwrap();
            // Inputs in [−1, 1]: λ·k·mean|u| ≤ 1, so the official leak cannot overflow.
            let x: Vec<f32> = x.iter().map(|v| v / 5.0).collect();
            let xt = Tensor::from_vec(x.clone(), (t, n), &Device::Cpu).unwrap();
            prop_assert!(neuron.needs_init());
            neuron.forward_init(&xt).unwrap();
            let alphas = neuron.alphas().unwrap().unwrap();
            let u = reference_membranes(&c, &alphas, &x).unwrap();
            for (s, &a) in alphas.iter().enumerate() {
                let m: f64 = u[s * n..(s + 1) * n].iter().map(|v| f64::from(v.abs())).sum::<f64>() / n as f64;
                let want = f64::from(k) * m;
                prop_assert!((f64::from(a) - want).abs() <= 1e-6 * want.max(1e-3), "α_{} = {} vs {}", s, a, want);
            }
            let other = (xt * 3.0).unwrap();
            neuron.forward_init(&other).unwrap();
            prop_assert_eq!(neuron.alphas().unwrap().unwrap(), alphas);
        }
    }

    /// Property 7: the straight-through gradient (candle autograd) equals the
    /// central finite difference of the clip surrogate (reset factors frozen)
    /// to 1e-3, at inputs whose membranes are at least 0.15α from the clip
    /// boundaries; and it equals the closed-form reverse sweep.
    #[test]
    fn ste_gradient_matches_clip_surrogate_fd((t, alphas, x) in inputs(6), seed in 0u64..1000) {
        let alphas: Vec<f32> = alphas.iter().map(|a| a + 0.5).collect();
        let n = x.len() / t;
        let g: Vec<f32> = (0..x.len()).map(|i| (((i as u64 * 7919 + seed) % 17) as f32 - 8.0) / 8.0).collect();
        for reset in MODES {
            for levels in [Levels::Ternary, Levels::Unipolar] {
                let c = cfg(t, reset, levels);
                let neuron = ElasticBiSpike::new(c, AlphaPolicy::Fixed(alphas.clone())).unwrap();
                let var = Var::from_vec(x.clone(), (t, n), &Device::Cpu).unwrap();
                let (s, _) = neuron.forward(var.as_tensor()).unwrap();
                let gt = Tensor::from_vec(g.clone(), (t, n), &Device::Cpu).unwrap();
                let grads = (s * gt).unwrap().sum_all().unwrap().backward().unwrap();
                let gx: Vec<f32> = grads.get(&var).unwrap().flatten_all().unwrap().to_vec1().unwrap();
                let (rx, _) = reference_backward(&c, &alphas, &x, &g).unwrap();
                for (a, b) in gx.iter().zip(&rx) {
                    prop_assert!((a - b).abs() <= 1e-5 * (1.0 + b.abs()));
                }
                let u = reference_membranes(&c, &alphas, &x).unwrap();
                let (lo, hi) = levels.range();
                let far = u.iter().enumerate().all(|(i, &ui)| {
                    let v = ui / alphas[i / n];
                    (v - lo).abs() > 0.15 && (v - hi).abs() > 0.15
                });
                if !far {
                    continue;
                }
                let frozen = reference_reset_factors(&c, &alphas, &x).unwrap();
                let h = 1e-2f32;
                for j in 0..x.len() {
                    let (mut xp, mut xm) = (x.clone(), x.clone());
                    xp[j] += h;
                    xm[j] -= h;
                    let fd = (clip_surrogate(&c, &alphas, &xp, &g, &frozen).unwrap()
                        - clip_surrogate(&c, &alphas, &xm, &g, &frozen).unwrap())
                        / f64::from(xp[j] - xm[j]);
                    prop_assert!((f64::from(gx[j]) - fd).abs() <= 1e-3, "j = {}: {} vs fd {}", j, gx[j], fd);
                }
            }
        }
    }

    /// Property 8: at T = 1 the firing rate is non-increasing in k.
    #[test]
    fn firing_rate_non_increasing_in_k(x in prop::collection::vec(-3.0f32..3.0, 4..64), k1 in 0.2f32..5.0, dk in 0.0f32..3.0) {
        let rate = |k: f32| {
            let mut n = ElasticBiSpike::new(cfg(1, ResetMode::Official, Levels::Ternary),
                AlphaPolicy::MeanAbs { k, freeze_after_first: true }).unwrap();
            let xt = Tensor::from_vec(x.clone(), (1, x.len()), &Device::Cpu).unwrap();
            n.forward_init(&xt).unwrap().1.rate()
        };
        prop_assert!(rate(k1 + dk) <= rate(k1));
    }
}

/// The learnable amplitude's gradient (candle autograd) equals the closed
/// form `(1/√n)·Σ g·γ`: by hand for T = 1 (γ = round(v) − v inside, ±1
/// outside) and against the reverse sweep for T = 3.
#[test]
fn learnable_alpha_gradient_is_lsq() {
    let x = [0.3f32, -0.9, 2.5, -4.0];
    let c = cfg(1, ResetMode::Official, Levels::Ternary);
    let mut neuron = ElasticBiSpike::new(c, AlphaPolicy::Learnable { k: 2.0 }).unwrap();
    neuron.set_alphas(&[1.0]).unwrap();
    let xt = Tensor::new(&[x], &Device::Cpu).unwrap();
    let (s, _) = neuron.forward(&xt).unwrap();
    let grads = s.sum_all().unwrap().backward().unwrap();
    let ga = grads
        .get(neuron.alpha_var().unwrap())
        .unwrap()
        .to_vec1::<f32>()
        .unwrap()[0];
    // γ: 0 − 0.3, −1 + 0.9, +1 (above), −1 (below); scale 1/√4.
    let want = ((0.0 - 0.3) + (-1.0 + 0.9) + 1.0 - 1.0) / 2.0;
    assert!((ga - want).abs() < 1e-6, "{ga} vs {want}");

    let c3 = cfg(3, ResetMode::Normalized, Levels::Ternary);
    let alphas = [0.7f32, 1.3, 0.9];
    let xs: Vec<f32> = (0..15)
        .map(|i| ((i * 37 % 23) as f32 - 11.0) / 7.0)
        .collect();
    let g: Vec<f32> = (0..15).map(|i| ((i * 13 % 7) as f32 - 3.0) / 3.0).collect();
    let mut n3 = ElasticBiSpike::new(c3, AlphaPolicy::Learnable { k: 2.0 }).unwrap();
    n3.set_alphas(&alphas).unwrap();
    let (s, _) = n3
        .forward(&Tensor::from_vec(xs.clone(), (3, 5), &Device::Cpu).unwrap())
        .unwrap();
    let gt = Tensor::from_vec(g.clone(), (3, 5), &Device::Cpu).unwrap();
    let grads = (s * gt).unwrap().sum_all().unwrap().backward().unwrap();
    let ga: Vec<f32> = grads
        .get(n3.alpha_var().unwrap())
        .unwrap()
        .to_vec1()
        .unwrap();
    let (_, ra) = reference_backward(&c3, &alphas, &xs, &g).unwrap();
    for (a, b) in ga.iter().zip(&ra) {
        assert!((a - b).abs() < 1e-5, "{a} vs {b}");
    }
}

/// The serialised state restores the same neuron (policy, config and amplitudes).
#[test]
fn json_round_trip() {
    let c = cfg(3, ResetMode::Symmetric, Levels::Unipolar);
    let mut n = ElasticBiSpike::new(
        c,
        AlphaPolicy::MeanAbs {
            k: 1.5,
            freeze_after_first: true,
        },
    )
    .unwrap();
    let x = Tensor::new(&[[0.3f32, -1.0], [2.0, 0.1], [0.0, 0.5]], &Device::Cpu).unwrap();
    n.initialize(&x).unwrap();
    let back = ElasticBiSpike::from_json(&n.to_json().unwrap()).unwrap();
    assert_eq!(back.alphas().unwrap(), n.alphas().unwrap());
    assert_eq!(back.config(), n.config());
    assert_eq!(back.policy(), n.policy());
    assert_eq!(
        back.forward(&x).unwrap().0.to_vec2::<f32>().unwrap(),
        n.forward(&x).unwrap().0.to_vec2::<f32>().unwrap()
    );
}
