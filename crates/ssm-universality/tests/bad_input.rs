//! Hostile inputs at every public entry point: typed errors, no panic, no NaN out.

use ndarray::{Array1, Array2};
use proptest::prelude::*;
use proptest::test_runner::RngSeed;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use ssm_universality::experiments::{
    Seq2SeqData, cond_draws, lag_error_profile, seq2seq_test_mse, standardise,
};
use ssm_universality::io::{read_csv_series, read_ts};
use ssm_universality::mlp::{Activation, Layer, PositionwiseMlp, Stack};
use ssm_universality::readout::{RandomFeatureMlp, argmax_rows, mse, one_hot};
use ssm_universality::reconstruct::{Mode, Reconstructor, relative_error, state_map};
use ssm_universality::rnn::{DiagLinearRnn, real_features};
use ssm_universality::spectrum::{LruParams, Spectrum, warnings};
use ssm_universality::tasks::{ForcedPendulum, lag_copy};
use ssm_universality::vandermonde::{
    cond2, cond2_matrix, memory_budget, singular_values, vandermonde,
};
use ssm_universality::{C64, Error};

fn hostile() -> impl Strategy<Value = f64> {
    prop_oneof![
        Just(f64::NAN),
        Just(f64::INFINITY),
        Just(f64::NEG_INFINITY),
        Just(0.0),
        Just(-0.0),
        Just(1e308),
        Just(-1e308),
        Just(1e-320),
        Just(1.0),
        Just(-1.0),
        Just(1.0 + 1e-12),
        Just(2.0),
        Just(0.5),
        -3.0f64..3.0,
    ]
}

fn size() -> impl Strategy<Value = usize> {
    prop_oneof![
        Just(0usize),
        1usize..6,
        Just(usize::MAX),
        Just(1usize << 40)
    ]
}

fn all_finite(a: &Array2<f64>) -> bool {
    a.iter().all(|x| x.is_finite())
}

proptest! {
    #![proptest_config(ProptestConfig { rng_seed: RngSeed::Fixed(666), ..ProptestConfig::with_cases(256) })]

    #[test]
    fn spectra(a in hostile(), b in hostile(), c in hostile(), n in size(), l in size()) {
        let mut rng = ChaCha8Rng::seed_from_u64(0);
        for s in [
            Spectrum::RealUniform { lo: a, hi: b },
            Spectrum::RootsOfUnity { r: a },
            Spectrum::LruRing { r_min: a, r_max: b, max_phase: c },
            Spectrum::Custom(vec![C64::new(a, b); 3]),
        ] {
            if let Ok(v) = s.sample(n.min(64), &mut rng) {
                prop_assert!(v.iter().all(|z| z.re.is_finite() && z.im.is_finite() && z.norm() <= 1.0 + 1e-12));
            }
            let _ = s.sample(n, &mut rng);
            let _ = s.sample_lru(n.min(64), &mut rng);
            if let Ok(g) = s.gram_expectation(l.min(40)) {
                prop_assert!(g.iter().all(|x| x.is_finite()));
            }
            let _ = s.gram_expectation_matrix(l);
            let _ = memory_budget(&s, l.min(20), c);
            let _ = memory_budget(&s, l, 10.0);
            let _ = cond_draws(&s, n.min(20), l.min(20), 2, &mut rng);
            let _ = lag_error_profile(&s, n.min(20), l.min(20), c, 2, &mut rng);
        }
        let lam = vec![C64::new(a, b), C64::new(c, 0.0)];
        prop_assert!(LruParams::from_lambda(&lam).map(|p| p.gamma().iter().all(|g| g.is_finite())).unwrap_or(true));
        let _ = warnings(&lam, c);
        prop_assert!(matches!(warnings(&[], 0.0), Err(Error::EmptySequence { .. })), "empty spectrum");
        let _ = vandermonde(&lam, l);
        if let Ok(k) = cond2(&lam, l.min(40)) {
            prop_assert!(!k.is_nan());
        }
        let m = Array2::from_elem((2, n.min(4)), C64::new(a, b));
        let _ = singular_values(m.view());
        let _ = cond2_matrix(m.view());
    }

    #[test]
    fn recurrences(a in hostile(), b in hostile(), n in size(), m in size(), l in size(), gamma: bool, rcond in hostile(), tol in hostile()) {
        let (n, m, l) = (n.min(6), m.min(3), l.min(8));
        let lam = vec![C64::new(a, b); n];
        let bm = Array2::from_elem((n, m), C64::new(1.0, a));
        let _ = DiagLinearRnn::new(lam.clone(), bm.clone(), gamma);
        let _ = DiagLinearRnn::new_unchecked_stability(lam.clone(), bm.clone(), gamma);
        let _ = DiagLinearRnn::new(vec![C64::new(0.5, 0.0)], Array2::from_elem((2, 1), C64::new(1.0, 0.0)), gamma);
        let _ = DiagLinearRnn::block_for_channels(&lam, m, gamma);
        let _ = DiagLinearRnn::block_for_channels(&[C64::new(0.5, 0.0)], usize::MAX, gamma);
        let _ = DiagLinearRnn::from_spectrum(&Spectrum::RootsOfUnity { r: a }, n, gamma, &mut ChaCha8Rng::seed_from_u64(1));
        let good = DiagLinearRnn::new(vec![C64::new(0.5, 0.5), C64::new(-0.2, 0.1)], Array2::from_elem((2, 1), C64::new(1.0, 0.0)), gamma).unwrap();
        let v = Array2::from_elem((l, m), a);
        match good.states(v.view()) {
            Ok(x) => prop_assert!(x.iter().all(|z| z.re.is_finite() && z.im.is_finite())),
            Err(e) => prop_assert!(matches!(e, Error::EmptySequence { .. } | Error::DimensionMismatch { .. } | Error::NonFinite { .. }), "{e:?}"),
        }
        let _ = good.final_state(v.view());
        let _ = real_features(Array2::from_elem((l, n), C64::new(a, b)).view());
        let _ = state_map(&good, l);
        if let Ok(r) = Reconstructor::fit(&good, l, rcond, Mode::Exact) {
            if let Ok(u) = r.reconstruct(Array1::from_elem(2, C64::new(a, b)).view()) {
                prop_assert!(all_finite(&u));
            }
            let _ = r.reconstruct(Array1::from_elem(n, C64::new(a, b)).view());
            let _ = r.recoverable_lags(tol);
        }
        let _ = Reconstructor::fit(&good, l, rcond, Mode::Compressed);
        let _ = relative_error(&Array2::from_elem((l, 1), a), &Array2::from_elem((l, m), b));
        let _ = lag_copy(v.view(), n);
        let p = ForcedPendulum { damping: a, omega: b, gain: rcond, dt: tol, substeps: m };
        if let Ok(th) = p.drive(Array1::from_elem(l, a).view()) {
            prop_assert!(th.iter().all(|x| x.is_finite()));
        }
    }

    #[test]
    fn readouts(a in hostile(), ridge in hostile(), t in size(), p in size(), d in size(), q in size()) {
        let (t, p, q) = (t.min(12), p.min(4), q.min(3));
        let mut rng = ChaCha8Rng::seed_from_u64(2);
        let x = Array2::from_shape_fn((t, p), |(i, j)| (i * 7 + j) as f64 * 0.1 + if i == 0 { a } else { 0.0 });
        let y = Array2::from_elem((t, q), a);
        match RandomFeatureMlp::fit(x.view(), y.view(), d.min(16), ridge, Activation::Relu, &mut rng) {
            Ok(f) => {
                if let Ok(pred) = f.predict(x.view()) {
                    prop_assert!(all_finite(&pred));
                }
                let _ = f.predict(Array2::zeros((2, p + 1)).view());
            }
            Err(e) => prop_assert!(!matches!(e, Error::Core(mlcore::Error::NonFinite { .. })), "non-finite input reached the core: {e:?}"),
        }
        let _ = RandomFeatureMlp::fit(x.view(), y.view(), d, 0.1, Activation::Tanh, &mut rng);
        let _ = PositionwiseMlp::random(p, d.min(8), q, Activation::Tanh, &mut rng);
        let _ = PositionwiseMlp::random(p, d, q, Activation::Relu, &mut rng);
        let _ = PositionwiseMlp::new(Array2::from_elem((d.min(3), p), a), Array1::zeros(d.min(3)), Array2::zeros((q, 3)), Array1::zeros(q), Activation::Relu);
        if let Ok(mlp) = PositionwiseMlp::random(p.max(1), 3, 2, Activation::Relu, &mut rng) {
            let _ = mlp.hidden(x.view());
            let _ = mlp.forward(x.view());
            let _ = Stack::new(vec![Layer::Mlp(mlp.clone()), Layer::Mlp(mlp.clone())]);
            if let Ok(s) = Stack::new(vec![Layer::Mlp(mlp)]) {
                let _ = s.forward(x.view());
            }
        }
        let _ = Stack::new(vec![]);
        let _ = mse(x.view(), y.view());
        let _ = one_hot(&[0, q], q);
        let _ = argmax_rows(y.view());
        let _ = standardise(&Array1::from_elem(t, a));
        let rnn = DiagLinearRnn::new(vec![C64::new(0.5, 0.5)], Array2::from_elem((1, 1), C64::new(1.0, 0.0)), true).unwrap();
        let data = Seq2SeqData {
            train_u: vec![Array2::from_elem((t, 1), a); q],
            train_y: vec![Array2::from_elem((t, 1), 1.0); q.min(2)],
            test_u: vec![Array2::from_elem((t, 1), 1.0)],
            test_y: vec![Array2::from_elem((t.max(1), 1), 1.0)],
        };
        let _ = seq2seq_test_mse(&rnn, &data, d.min(8), ridge, &mut rng);
    }

    #[test]
    fn readers(s in "[@#a-zA-Z0-9 ,:.?\\-\n]{0,200}", col in "[a-zA-Z]{0,3}") {
        let _ = read_ts(&s);
        let _ = read_ts(&format!("@problemName x\n@classLabel true a b\n@data\n{s}"));
        let _ = read_csv_series(&s, &col);
        let _ = read_csv_series(&format!("a,b\n{s}"), "b");
    }
}
