//! Known values: the spec's curvature table (GRC 0.6.1 OTD and an
//! independent POT LP agree on it to 1e-6) and GRC's karate-club flow.

use ricci_causal::curvature::{FormanKind, Measure, OllivierConfig, forman, lin_lu_yau, ollivier};
use ricci_causal::flow::RicciFlow;
use ricci_causal::generators::*;
use ricci_causal::graph::WeightedGraph;

fn orc(g: &WeightedGraph, alpha: f64) -> Vec<f64> {
    ollivier(g, &OllivierConfig::with_alpha(alpha))
        .unwrap()
        .kappa
}

/// Checks one row: edge `e` has (ORC α=0, ORC α=0.5, LLY, Forman 1d, augmented).
fn row(name: &str, g: &WeightedGraph, e: usize, want: [Option<f64>; 5]) {
    let got = [
        orc(g, 0.0)[e],
        orc(g, 0.5)[e],
        lin_lu_yau(g).unwrap()[e],
        forman(g, FormanKind::OneD)[e],
        forman(g, FormanKind::Augmented)[e],
    ];
    for (k, (w, g)) in want.iter().zip(got).enumerate() {
        if let Some(w) = w {
            assert!(
                (w - g).abs() < 1e-6,
                "{name} edge {e} column {k}: want {w}, got {g}"
            );
        }
    }
}

fn all(v: [f64; 5]) -> [Option<f64>; 5] {
    v.map(Some)
}

#[test]
fn spec_curvature_table() {
    row(
        "K3",
        &complete(3).unwrap(),
        0,
        all([0.5, 0.75, 1.5, 0.0, 3.0]),
    );
    row(
        "K4",
        &complete(4).unwrap(),
        0,
        all([2.0 / 3.0, 2.0 / 3.0, 4.0 / 3.0, -2.0, 4.0]),
    );
    row(
        "K5",
        &complete(5).unwrap(),
        0,
        all([0.75, 0.625, 1.25, -4.0, 5.0]),
    );
    row("C4", &cycle(4).unwrap(), 0, all([0.0, 0.5, 1.0, 0.0, 0.0]));
    row("C5", &cycle(5).unwrap(), 0, all([0.0, 0.25, 0.5, 0.0, 0.0]));
    for n in [6, 7, 10] {
        row("C_n", &cycle(n).unwrap(), 2, all([0.0; 5]));
    }
    let p3 = path(3).unwrap();
    row("P3", &p3, 0, all([0.0, 0.5, 1.0, 1.0, 1.0]));
    row("P3", &p3, 1, all([0.0, 0.5, 1.0, 1.0, 1.0]));
    let p4 = path(4).unwrap();
    row("P4 end", &p4, 0, all([0.0, 0.5, 1.0, 1.0, 1.0]));
    row("P4 middle", &p4, 1, all([0.0, 0.0, 0.0, 0.0, 0.0]));
    row(
        "K1,3",
        &star(3).unwrap(),
        0,
        all([0.0, 1.0 / 3.0, 2.0 / 3.0, 0.0, 0.0]),
    );
    row(
        "K3,3",
        &complete_bipartite(3, 3).unwrap(),
        0,
        all([0.0, 1.0 / 3.0, 2.0 / 3.0, -2.0, -2.0]),
    );
    row(
        "Q3",
        &hypercube(3).unwrap(),
        0,
        all([0.0, 1.0 / 3.0, 2.0 / 3.0, -2.0, -2.0]),
    );
    row(
        "Petersen",
        &petersen(),
        0,
        all([-1.0 / 3.0, 0.0, 0.0, -2.0, -2.0]),
    );
    let g = grid(3, 3).unwrap();
    let boundary = g.edge_between(0, 1).unwrap().unwrap();
    let spoke = g.edge_between(1, 4).unwrap().unwrap();
    row(
        "grid boundary",
        &g,
        boundary,
        all([0.0, 1.0 / 6.0, 1.0 / 3.0, -1.0, -1.0]),
    );
    row(
        "grid spoke",
        &g,
        spoke,
        all([0.0, 1.0 / 12.0, 1.0 / 6.0, -3.0, -3.0]),
    );
    row(
        "balanced_tree(3,2) root",
        &balanced_tree(3, 2).unwrap(),
        0,
        all([-5.0 / 6.0, -5.0 / 12.0, -5.0 / 6.0, -3.0, -3.0]),
    );
    let k = karate();
    let e01 = k.edge_between(0, 1).unwrap().unwrap();
    let e031 = k.edge_between(0, 31).unwrap().unwrap();
    row(
        "karate (0,1)",
        &k,
        e01,
        [Some(0.159722), Some(0.111111), Some(0.222222), None, None],
    );
    row(
        "karate (0,31)",
        &k,
        e031,
        [
            Some(-0.854167),
            Some(-0.427083),
            Some(-0.854167),
            None,
            None,
        ],
    );
    row(
        "karate (0,2) augmented",
        &k,
        k.edge_between(0, 2).unwrap().unwrap(),
        [None, None, None, None, Some(-7.0)],
    );
}

#[test]
fn k_n_closed_forms_exact() {
    for n in 3..9 {
        let g = complete(n).unwrap();
        let nf = n as f64;
        for alpha in [0.0, 0.5, 0.75] {
            let want = if alpha == 0.0 {
                (nf - 2.0) / (nf - 1.0)
            } else {
                (1.0 - alpha) * nf / (nf - 1.0)
            };
            for k in orc(&g, alpha) {
                assert!((k - want).abs() < 1e-12, "K{n} α={alpha}: {k} vs {want}");
            }
        }
        for f in forman(&g, FormanKind::OneD) {
            assert!((f - (6.0 - 2.0 * nf)).abs() < 1e-12);
        }
        for f in forman(&g, FormanKind::Augmented) {
            assert!((f - nf).abs() < 1e-12);
        }
    }
}

/// GRC's own test: karate, OTD, α = 0.5, 3 iterations; first four weights.
#[test]
fn karate_flow_weights_match_grc() {
    let flow = RicciFlow {
        iterations: 3,
        ..Default::default()
    };
    let r = flow.run(&karate()).unwrap();
    let want = [0.584642, 1.222957, 0.828566, 1.893597];
    for (e, w) in want.iter().enumerate() {
        assert!(
            (r.graph.weights()[e] - w).abs() < 1e-6,
            "edge {e}: {} vs {w}",
            r.graph.weights()[e]
        );
    }
    let sum: f64 = r.graph.weights().iter().sum();
    assert!((sum - 78.0).abs() < 1e-9 * 78.0);
}

/// Barbell(4, 0) after 10 steps: the bridge carries ≈ 12.998 of 13, clique
/// edges have κ = 0.667, the bridge κ = 0 (from −0.5).
#[test]
fn barbell_flow_known_values() {
    let g = barbell(4, 0).unwrap();
    let bridge = g.edge_between(3, 4).unwrap().unwrap();
    let r = RicciFlow {
        iterations: 10,
        ..Default::default()
    }
    .run(&g)
    .unwrap();
    assert!((r.curvature_history[0][bridge] + 0.5).abs() < 1e-9);
    assert!(
        (r.graph.weights()[bridge] - 12.998).abs() < 1e-3,
        "{}",
        r.graph.weights()[bridge]
    );
    let last = r.curvature_history.last().unwrap();
    assert!(last[bridge].abs() < 1e-3);
    for (e, k) in last.iter().enumerate() {
        if e != bridge {
            assert!((k - 2.0 / 3.0).abs() < 1e-3, "edge {e}: {k}");
        }
    }
}

#[test]
fn uniform_equals_exp_weight_on_unweighted_graphs() {
    let g = karate();
    let a = ollivier(&g, &OllivierConfig::default()).unwrap().kappa;
    let b = ollivier(
        &g,
        &OllivierConfig {
            measure: Measure::Uniform,
            ..Default::default()
        },
    )
    .unwrap()
    .kappa;
    for (x, y) in a.iter().zip(&b) {
        assert!((x - y).abs() < 1e-12);
    }
}

/// No silent truncation: on the star K_{1,3100} the default (exact) measure
/// gives the closed form κ(0, leaf) = 1/k at α = 1/2 (shared mass cancels,
/// the rest moves 2 hops: W1 = (k − 1)/k); GRC's `nbr_topk = 3000`, opt-in,
/// keeps the 3000 largest-index leaves, so a dropped leaf gets κ = 0
/// (its half unit travels 2 hops) and a kept one 1/3000.
#[test]
fn nbr_topk_default_is_exact_and_grc_mode_truncates() {
    let k = 3100;
    let g = star(k).unwrap();
    let exact = ollivier(&g, &OllivierConfig::default()).unwrap().kappa;
    for &x in &exact {
        assert!((x - 1.0 / k as f64).abs() < 1e-12, "{x}");
    }
    let grc = ollivier(&g, &OllivierConfig::grc_compatible())
        .unwrap()
        .kappa;
    // Edge i joins the centre and leaf i + 1.
    assert!(grc[0].abs() < 1e-12, "dropped leaf 1: {}", grc[0]);
    assert!(
        (grc[k - 1] - 1.0 / 3000.0).abs() < 1e-12,
        "kept leaf: {}",
        grc[k - 1]
    );
}
