//! Random finite MDPs for the property tests.
#![allow(dead_code)]

use proptest::prelude::*;
use tabular_mdp::{FiniteMdp, Outcome};

/// Rewards of the spec's random MDPs.
pub const REWARDS: [f64; 4] = [0.0, 0.25, 0.5, 1.0];

/// One raw outcome: (next, weight, reward index, terminal).
type Raw = (usize, u32, usize, bool);

/// Builds an MDP from raw outcomes: next taken mod S, weights normalised.
pub fn build(ns: usize, na: usize, raw: &[Vec<Raw>], deterministic: bool) -> FiniteMdp {
    let mut table = Vec::with_capacity(ns);
    for s in 0..ns {
        let mut row = Vec::with_capacity(na);
        for a in 0..na {
            let list = &raw[s * na + a];
            let list: &[Raw] = if deterministic { &list[..1] } else { list };
            let total: u32 = list.iter().map(|o| o.1).sum();
            row.push(
                list.iter()
                    .map(|&(n, w, r, t)| Outcome {
                        next: n % ns,
                        prob: f64::from(w) / f64::from(total),
                        reward: REWARDS[r],
                        terminal: t,
                    })
                    .collect(),
            );
        }
        table.push(row);
    }
    FiniteMdp::new(table).expect("valid random MDP")
}

/// A strategy of random MDPs with S ≤ max_s, A ≤ max_a, 1–3 outcomes per pair.
pub fn random_mdp(
    max_s: usize,
    max_a: usize,
    deterministic: bool,
) -> impl Strategy<Value = FiniteMdp> {
    (1..=max_s, 1..=max_a).prop_flat_map(move |(ns, na)| {
        let outcome = (
            0..ns,
            1u32..10,
            0..REWARDS.len(),
            proptest::bool::weighted(0.15),
        );
        proptest::collection::vec(proptest::collection::vec(outcome, 1..=3), ns * na)
            .prop_map(move |raw| build(ns, na, &raw, deterministic))
    })
}
