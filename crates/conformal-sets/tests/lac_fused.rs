//! The fused LAC pass (row check + threshold + branch-free write in one loop
//! over the row, in chunks of eight) against a brute-force reference: the
//! set `{y : 1 − π_y ≤ q̂}` label by label, and the row check as written in
//! the docs (every entry finite and ≥ 0, sum within 1e-6 of 1), for K that
//! are and are not multiples of the chunk width, with the offending entry in
//! the chunks and in the tail.

use conformal_sets::Error;
use conformal_sets::calibrate::{QuantileRule, SplitConformal, check_probabilities};
use conformal_sets::score::{ConformityScore, Lac};
use mlcore::sampling::seeded;
use ndarray::Array2;
use rand::RngExt;

/// A batch of random probability rows (normalised uniforms, some exact zeros).
fn rows(n: usize, k: usize, seed: u64) -> Array2<f64> {
    let mut rng = seeded(seed);
    let mut p = Array2::from_shape_fn((n, k), |_| {
        let u: f64 = rng.random();
        if u < 0.1 { 0.0 } else { u }
    });
    for mut r in p.rows_mut() {
        if r.sum() == 0.0 {
            r[0] = 1.0;
        }
        let s = r.sum();
        r.mapv_inplace(|v| v / s);
    }
    p
}

fn brute_set(p: &[f64], q: f64) -> Vec<usize> {
    (0..p.len()).filter(|&y| 1.0 - p[y] <= q).collect()
}

#[test]
fn fused_lac_sets_equal_the_brute_force_threshold() {
    for k in [1, 2, 3, 7, 8, 9, 15, 16, 17, 100, 1001] {
        let cal = rows(50, k, 1 + k as u64);
        let test = rows(40, k, 1000 + k as u64);
        let labels: Vec<usize> = (0..50).map(|i| (i * 7) % k).collect();
        let fitted = SplitConformal::new(Lac, 0.1, QuantileRule::FiniteSample)
            .unwrap()
            .calibrate(cal.view(), &labels, &mut seeded(0))
            .unwrap();
        let q = fitted.q_hat();
        let sets = fitted.predict(test.view(), &mut seeded(0)).unwrap();
        assert_eq!(sets.len(), 40);
        for (i, row) in test.rows().into_iter().enumerate() {
            let p = row.as_slice().unwrap();
            let want = brute_set(p, q);
            assert_eq!(sets.get(i).unwrap(), &want[..], "K = {k}, row {i}");
            assert_eq!(Lac.set(p, q, 0.0).labels(), &want[..], "K = {k}, row {i}");
            // Thresholds at every entry's own score: the ties ≤ are kept.
            for &v in p {
                assert_eq!(
                    Lac.set(p, 1.0 - v, 0.0).labels(),
                    &brute_set(p, 1.0 - v)[..]
                );
            }
        }
    }
}

#[test]
fn fused_lac_check_rejects_exactly_the_invalid_rows() {
    let bad_values = [
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        -1e-3,
        -f64::MIN_POSITIVE,
        2.0,
    ];
    for k in [1, 3, 8, 9, 17, 100] {
        let cal = rows(30, k, 7);
        let labels = vec![0; 30];
        let fitted = SplitConformal::new(Lac, 0.2, QuantileRule::FiniteSample)
            .unwrap()
            .calibrate(cal.view(), &labels, &mut seeded(0))
            .unwrap();
        for (b, &bad) in bad_values.iter().enumerate() {
            for at in [0, k / 2, k - 1] {
                let mut test = rows(6, k, 50 + b as u64);
                let row = 3;
                test[[row, at]] = bad;
                let got = fitted.predict(test.view(), &mut seeded(0));
                assert!(
                    matches!(got, Err(Error::NotAProbability { row: 3, .. })),
                    "K = {k}, value {bad} at {at}: {got:?}"
                );
                assert!(check_probabilities(test.view()).is_err());
            }
        }
        // −0.0 is a valid zero (its sign bit alone must not reject the row),
        // and a row summing to 1 within 1e-6 is accepted.
        let mut test = rows(6, k, 99);
        let zero_at = k - 1;
        let moved = test[[2, zero_at]];
        test[[2, zero_at]] = -0.0;
        test[[2, 0]] += moved;
        test[[4, 0]] += 5e-7;
        let sets = fitted.predict(test.view(), &mut seeded(0)).unwrap();
        for (i, row) in test.rows().into_iter().enumerate() {
            let p = row.as_slice().unwrap();
            assert_eq!(sets.get(i).unwrap(), &brute_set(p, fitted.q_hat())[..]);
        }
        assert!(check_probabilities(test.view()).is_ok());
        // Off by more than 1e-6: rejected.
        test[[4, 0]] += 2e-6;
        assert!(matches!(
            fitted.predict(test.view(), &mut seeded(0)),
            Err(Error::NotAProbability { row: 4, .. })
        ));
    }
}
