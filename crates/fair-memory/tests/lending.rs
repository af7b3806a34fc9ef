//! Lending: official dynamics and rewards, exact optimum on a small horizon,
//! memory sufficiency for demographic parity.

use fair_memory::*;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

fn small(horizon: usize) -> Lending {
    Lending::new(LendingConfig {
        horizon,
        ..LendingConfig::default()
    })
    .unwrap()
}

#[test]
fn dynamics_and_rewards_follow_the_official_rules() {
    let env = small(10);
    let init = env.initial();
    assert!((init.iter().map(|x| x.0).sum::<f64>() - 1.0).abs() < 1e-12);
    let all = env.encode(0b1111, &[4, 4, 7, 7], 10, 0);
    assert!(init.iter().any(|&(_, s)| s == all));
    assert_eq!(env.decode(all), (0b1111, vec![4, 4, 7, 7], 10, 0));
    // Lend to applicant 0 (group 0, credit 4): repay w.p. 0.6.
    let outs = env.outcomes(all, 0);
    assert!((outs.iter().map(|o| o.prob).sum::<f64>() - 1.0).abs() < 1e-12);
    let repaid: f64 = outs
        .iter()
        .filter(|o| env.decode(o.next).1[0] == 5)
        .map(|o| o.prob)
        .sum();
    assert!((repaid - 0.6).abs() < 1e-12);
    assert!(outs.iter().all(|o| o.gain == Some(0) && o.valid));
    // Credit 7 stays at 7 when repaid (applicant 2, repay w.p. 0.9).
    let outs = env.outcomes(all, 2);
    assert!(outs.iter().all(|o| o.gain == Some(1)));
    let (_, c, succ, _) = env.decode(outs[0].next);
    assert_eq!((c[2], succ), (7, 11));
    // Parity reward −|L0 − L1|; −T for an absent applicant.
    let o = outs[0];
    assert_eq!(env.reward(all, 2, &o, &[3, 1]), -2.0);
    let none = env.encode(0b0000, &[4, 4, 7, 7], 10, 0);
    let wasted = env.outcomes(none, 1)[0];
    assert!(!wasted.valid && wasted.gain.is_none());
    assert_eq!(env.reward(none, 1, &wasted, &[0, 0]), -10.0);
    // End: −10T when successes < T + ⌊T/10⌋ = 11.
    let last = env.encode(0b1111, &[4, 4, 7, 7], 10, 0);
    let o_end = EnvOutcome {
        prob: 1.0,
        next: env.encode(0b1111, &[4, 4, 7, 7], 10, 0),
        gain: Some(0),
        valid: true,
    };
    assert!(env.terminal(o_end.next, &[5, 5]));
    assert_eq!(env.reward(last, 0, &o_end, &[5, 5]), -100.0);
    let o_good = EnvOutcome {
        next: env.encode(0b1111, &[4, 4, 7, 7], 11, 0),
        ..o_end
    };
    assert_eq!(env.reward(last, 0, &o_good, &[5, 5]), 0.0);
    // Sampling matches the outcome list's support.
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    for _ in 0..100 {
        let o = env.sample(all, 1, &mut rng);
        assert!(env.outcomes(all, 1).iter().any(|x| x.next == o.next));
    }
}

/// Min-shifted memory is sufficient for demographic parity, so the lending
/// learner accepts it without the opt-in; the exact optimum is computable on
/// a small horizon and the learners never beat it.
#[test]
fn lending_learners_and_exact_optimum() {
    let env = small(3);
    let exact = dp::optimal(&env, 0.99).unwrap();
    assert!(exact.value.is_finite());
    for params in [
        QcmParams::default(),
        QcmParams::baseline(MemoryKind::MinShifted),
        QcmParams::baseline(MemoryKind::Reset),
    ] {
        let mut l = FairQcm::new(&env, params).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        l.train(300, &mut rng, |_| {});
        let v = dp::greedy_value(&l, &env, 0.99).unwrap();
        assert!(v <= exact.value + 1e-9, "{v} > {}", exact.value);
    }
    assert!(matches!(
        FairQcm::new(&env, QcmParams::baseline(MemoryKind::None)),
        Err(Error::MemoryNotSufficient { .. })
    ));
}
