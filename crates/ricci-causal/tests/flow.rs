//! Ricci-flow invariants.

use mlcore::sampling::seeded;
use proptest::prelude::*;
use rand::RngExt;
use ricci_causal::curvature::OllivierConfig;
use ricci_causal::flow::{Affinity, RicciFlow, to_affinity};
use ricci_causal::generators::barbell;
use ricci_causal::graph::WeightedGraph;

fn gnp(n: usize, p: f64, seed: u64) -> Option<WeightedGraph> {
    let mut rng = seeded(seed);
    let e: Vec<(usize, usize)> = (0..n)
        .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
        .filter(|_| rng.random::<f64>() < p)
        .collect();
    if e.is_empty() {
        return None;
    }
    WeightedGraph::from_unweighted_edges(e).ok()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, rng_seed: proptest::test_runner::RngSeed::Fixed(2024), ..ProptestConfig::default() })]

    /// Σw = |E| after every step (±1e-9 relative) and all weights stay > 0
    /// when step·max κ < 1 (here step = 0.9 < 1/max κ since κ ≤ 1).
    /// The flow runs on the largest component.
    #[test]
    fn flow_preserves_total_weight_and_positivity(n in 3usize..=30, p in 0.1f64..0.5, seed in any::<u64>(), alpha in 0.0f64..0.9) {
        let Some(g) = gnp(n, p, seed) else { return Ok(()) };
        let flow = RicciFlow { step: 0.9, iterations: 4, delta: 0.0, curvature: OllivierConfig::with_alpha(alpha), ..Default::default() };
        let r = flow.run(&g).unwrap();
        prop_assert!(r.graph.is_connected());
        let m = r.graph.n_edges() as f64;
        prop_assert_eq!(r.weight_history.len(), r.curvature_history.len());
        for w in &r.weight_history[1..] {
            let s: f64 = w.iter().sum();
            prop_assert!((s - m).abs() <= 1e-9 * m);
            prop_assert!(w.iter().all(|&x| x > 0.0));
        }
    }
}

/// The bridge of barbell(k, 0) never shrinks during the flow.
#[test]
fn barbell_bridge_weight_non_decreasing() {
    for k in 3..7 {
        let g = barbell(k, 0).unwrap();
        let bridge = g.edge_between(k - 1, k).unwrap().unwrap();
        let r = RicciFlow {
            iterations: 10,
            ..Default::default()
        }
        .run(&g)
        .unwrap();
        let ws: Vec<f64> = r.weight_history.iter().map(|w| w[bridge]).collect();
        assert!(
            ws.windows(2).all(|p| p[1] >= p[0] - 1e-12),
            "k = {k}: {ws:?}"
        );
        assert!(ws.last().unwrap() > &ws[0]);
    }
}

/// Floors and ceilings hold; a stretched bridge gets a small inverse affinity.
#[test]
fn weight_bounds_and_affinities() {
    let g = barbell(4, 0).unwrap();
    let r = RicciFlow {
        iterations: 10,
        min_weight: Some(0.05),
        max_weight: Some(5.0),
        ..Default::default()
    }
    .run(&g)
    .unwrap();
    assert!(r.graph.weights().iter().all(|&w| (0.05..=5.0).contains(&w)));
    let a = to_affinity(r.graph.weights(), Affinity::Inverse).unwrap();
    let bridge = g.edge_between(3, 4).unwrap().unwrap();
    assert!(
        a.iter()
            .enumerate()
            .all(|(e, &x)| e == bridge || x > a[bridge])
    );
}
