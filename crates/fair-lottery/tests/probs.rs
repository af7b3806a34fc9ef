//! P2 (capping invariants) and P6 (partial lottery structure), plus the
//! policies' other structural claims.

#![allow(clippy::needless_range_loop)] // index loops over units read clearer in tests

use fair_lottery::policy::{
    Policy, bootstrap_vote_shares, conformal_outlier_pvalues, distance_to_mean, outlier_lottery,
    uncertainty_lottery,
};
use fair_lottery::probs::{Selection, inclusion_probs, rank_by_claim};
use ndarray::array;
use proptest::prelude::*;

fn claims_and_k() -> impl Strategy<Value = (Vec<f64>, usize)> {
    prop::collection::vec(prop_oneof![Just(0.0), 0.0f64..1.0, 0.0f64..100.0], 1..60)
        .prop_filter("a positive claim", |c| c.iter().any(|&x| x > 0.0))
        .prop_flat_map(|c| {
            let positive = c.iter().filter(|&&x| x > 0.0).count().max(1);
            (Just(c), 1..=positive)
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// P2: π ∈ [0,1], |Σπ − k| ≤ 1e-12,
    /// π monotone in c, πᵢ/cᵢ constant (1e-12 relative) over uncapped units.
    #[test]
    fn p2_capping_invariants((c, k) in claims_and_k()) {
        let pi = inclusion_probs(&c, k).unwrap();
        let sum: f64 = pi.iter().sum();
        prop_assert!((sum - k as f64).abs() <= 1e-12, "sum {sum} k {k}");
        for &p in &pi {
            prop_assert!((0.0..=1.0).contains(&p));
        }
        for i in 0..c.len() {
            for j in 0..c.len() {
                if c[i] < c[j] {
                    prop_assert!(pi[i] <= pi[j]);
                }
            }
        }
        let ratios: Vec<f64> = (0..c.len()).filter(|&i| pi[i] < 1.0 && c[i] > 0.0).map(|i| pi[i] / c[i]).collect();
        if let Some(&r0) = ratios.first() {
            for r in &ratios {
                prop_assert!((r - r0).abs() <= 1e-12 * r0, "κ {r} vs {r0}");
            }
            // Capped units would exceed 1 at the common κ.
            for i in 0..c.len() {
                if pi[i] == 1.0 {
                    prop_assert!(c[i] * r0 >= 1.0 - 1e-12);
                }
            }
        }
        for i in 0..c.len() {
            if c[i] == 0.0 {
                prop_assert_eq!(pi[i], 0.0);
            }
        }
    }

    /// P6: partial lottery: the top u = round(pk) have π = 1, the bottom
    /// l = round(n − (2−p)k) have π = 0, Σπ = k, lottery only in between.
    #[test]
    fn p6_partial_lottery_structure(c in prop::collection::vec(0.01f64..1.0, 4..80), kf in 0.05f64..0.45, p in 0.0f64..=1.0) {
        let n = c.len();
        let k = ((kf * n as f64).round() as usize).max(1);
        let sel = Policy::PartialLottery { p }.selection(&c, k).unwrap();
        let pi = sel.pi();
        let order = rank_by_claim(&c);
        let u = (p * k as f64).round() as usize;
        let l = (n as f64 - (2.0 - p) * k as f64).round() as usize;
        for &i in &order[..u] {
            prop_assert_eq!(pi[i], 1.0);
        }
        for &i in &order[n - l..] {
            prop_assert_eq!(pi[i], 0.0);
        }
        prop_assert!((pi.iter().sum::<f64>() - k as f64).abs() < 1e-9);
        prop_assert_eq!(sel.k(), k);
    }
}

#[test]
fn p6_partial_lottery_endpoints_and_invalid() {
    let c: Vec<f64> = (1..=20).map(|i| i as f64).collect();
    // p = 1: top-k.
    let top = Policy::PartialLottery { p: 1.0 }.selection(&c, 5).unwrap();
    assert_eq!(top, Policy::TopK.selection(&c, 5).unwrap());
    // p = 0: lottery among the top 2k, proportional there.
    let s = Policy::PartialLottery { p: 0.0 }.selection(&c, 5).unwrap();
    assert_eq!(s.lottery().len() + s.certain().len(), 10);
    assert_eq!(s.excluded().len(), 10);
    // k > n/(2 − p): InvalidPartial.
    let e = Policy::PartialLottery { p: 0.0 }
        .selection(&c, 11)
        .unwrap_err();
    assert!(
        matches!(e, fair_lottery::Error::InvalidPartial { .. }),
        "{e:?}"
    );
}

#[test]
fn randomization_rate_structure() {
    let c: Vec<f64> = (1..=100).rev().map(|i| i as f64 / 100.0).collect();
    let s = Policy::RandomizationRate {
        frac_k: 0.2,
        frac_n: 0.3,
    }
    .selection(&c, 25)
    .unwrap();
    // r = 5 random slots, 20 certain (the 20 largest), pool = next 30.
    assert_eq!(s.certain(), (0..20).collect::<Vec<_>>());
    assert!(s.lottery().iter().all(|&i| (20..50).contains(&i)));
    assert!(s.excluded().iter().all(|&i| i >= 50 || s.pi()[i] == 0.0));
    assert!((s.pi()[20..50].iter().sum::<f64>() - 5.0).abs() < 1e-12);
    // frac_k = 0 is top-k.
    let t = Policy::RandomizationRate {
        frac_k: 0.0,
        frac_n: 0.3,
    }
    .selection(&c, 25)
    .unwrap();
    assert_eq!(t, Policy::TopK.selection(&c, 25).unwrap());
}

#[test]
fn full_lottery_and_top_k() {
    let c = [3.0, 2.0, 1.0];
    assert_eq!(
        Policy::FullLottery.selection(&c, 2).unwrap(),
        Selection::proportional(&c, 2).unwrap()
    );
    let t = Policy::TopK.selection(&[0.5, 0.9, 0.5, 0.1], 2).unwrap();
    assert_eq!(t.pi(), &[1.0, 1.0, 0.0, 0.0]); // tie at 0.5 to the smaller index
}

#[test]
fn uncertainty_lottery_structure() {
    // 6 people, k = 3; votes of 11 bootstrap models.
    let votes = [1.0, 1.0, 6.0 / 11.0, 3.0 / 11.0, 2.0 / 11.0, 0.0];
    let scores = [0.9, 0.8, 0.6, 0.55, 0.5, 0.1];
    let s = uncertainty_lottery(&votes, &scores, 3).unwrap();
    assert_eq!(s.certain(), vec![0, 1]);
    assert_eq!(s.excluded(), vec![5]);
    // one slot, proportional to the vote shares 6:3:2.
    let pi = s.pi();
    assert!((pi[2] - 6.0 / 11.0).abs() < 1e-12 && (pi[3] - 3.0 / 11.0).abs() < 1e-12);
    // vote shares from bootstrap scores.
    let boot = array![[0.9, 0.7, 0.2], [0.8, 0.1, 0.75], [0.95, 0.75, 0.1]];
    let v = bootstrap_vote_shares(&[0.9, 0.7, 0.2], boot.view(), 2).unwrap();
    assert_eq!(v, vec![1.0, 2.0 / 3.0, 1.0 / 3.0]);
}

#[test]
fn conformal_outliers_and_lottery() {
    let cal = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9];
    let p = conformal_outlier_pvalues(&cal, &[0.05, 0.55, 1.0]).unwrap();
    assert_eq!(p, vec![1.0, 0.5, 0.1]);
    let train = array![[0.0, 0.0], [2.0, 0.0]];
    let d = distance_to_mean(train.view(), array![[1.0, 1.0], [4.0, 0.0]].view()).unwrap();
    assert_eq!(d, vec![1.0, 3.0]);
    // claims ranked 0..6; units 1 and 4 are outliers (p ≤ α = 0.1).
    let claims = [0.9, 0.8, 0.7, 0.6, 0.5, 0.4];
    let pv = [0.5, 0.05, 0.6, 0.7, 0.1, 0.9];
    let s = outlier_lottery(&claims, &pv, 0.1, 3).unwrap();
    assert_eq!(s.certain(), vec![0, 2]);
    assert_eq!(s.lottery(), vec![1, 4]);
    assert!((s.pi()[1] - 0.5).abs() < 1e-15);
}
