//! Property tests of the spec (proptest, 256 cases unless noted; connected
//! graphs with n ≤ 30, p ∈ [0.1, 0.5]).

use mlcore::sampling::seeded;
use proptest::prelude::*;
use rand::RngExt;
use ricci_causal::curvature::{
    FormanKind, Measure, OllivierConfig, forman, jost_liu_bounds, lazy_measure, lin_lu_yau,
    ollivier,
};
use ricci_causal::generators::cycle;
use ricci_causal::graph::{Distances, WeightedGraph};

/// The largest component of G(n, p) drawn from `seed` (None if edgeless).
fn gnp(n: usize, p: f64, seed: u64) -> Option<WeightedGraph> {
    let mut rng = seeded(seed);
    let mut e = Vec::new();
    for i in 0..n {
        for j in i + 1..n {
            if rng.random::<f64>() < p {
                e.push((i, j));
            }
        }
    }
    if e.is_empty() {
        return None;
    }
    Some(
        WeightedGraph::from_unweighted_edges(e)
            .ok()?
            .largest_component()
            .graph,
    )
}

/// A random tree on `n` nodes (each node attaches to an earlier one).
fn tree(n: usize, seed: u64) -> WeightedGraph {
    let mut rng = seeded(seed);
    WeightedGraph::from_unweighted_edges(
        (1..n)
            .map(|v| (rng.random_range(0..v), v))
            .collect::<Vec<_>>(),
    )
    .unwrap()
}

fn uniform(alpha: f64) -> OllivierConfig {
    OllivierConfig {
        alpha,
        measure: Measure::Uniform,
        ..Default::default()
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, rng_seed: proptest::test_runner::RngSeed::Fixed(2024), ..ProptestConfig::default() })]

    /// κ ≤ 1 and κ(x, y) = κ(y, x); the parallel run equals the serial run bit for bit.
    #[test]
    fn kappa_at_most_one_symmetric_and_parallel_identical(n in 3usize..=30, p in 0.1f64..0.5, seed in any::<u64>(), alpha in 0.0f64..0.99) {
        let Some(g) = gnp(n, p, seed) else { return Ok(()) };
        let cfg = OllivierConfig::with_alpha(alpha);
        let k = ollivier(&g, &cfg).unwrap();
        let serial = ollivier(&g, &OllivierConfig { parallel: false, ..cfg }).unwrap();
        prop_assert_eq!(&k, &serial);
        let rev = WeightedGraph::from_nodes_and_edges(
            g.labels().iter().copied(),
            g.edges().iter().map(|&(a, b)| (g.labels()[b], g.labels()[a], 1.0)),
        ).unwrap();
        let kr = ollivier(&rev, &cfg).unwrap();
        for (a, b) in k.kappa.iter().zip(&kr.kappa) {
            prop_assert!(*a <= 1.0 + 1e-12);
            prop_assert!((a - b).abs() < 1e-12, "{} vs {}", a, b);
        }
    }

    /// Jost–Liu: lower ≤ κ₀ ≤ upper (±1e-9).
    #[test]
    fn orc_alpha0_within_jost_liu_bounds(n in 3usize..=30, p in 0.1f64..0.5, seed in any::<u64>()) {
        let Some(g) = gnp(n, p, seed) else { return Ok(()) };
        let k = ollivier(&g, &uniform(0.0)).unwrap().kappa;
        for (e, &ke) in k.iter().enumerate() {
            let (lo, hi) = jost_liu_bounds(&g, e).unwrap();
            prop_assert!(lo - 1e-9 <= ke && ke <= hi + 1e-9, "edge {}: {} ∉ [{}, {}]", e, ke, lo, hi);
        }
    }

    /// On trees the Jost–Liu lower bound is attained, κ₀ = −2(1 − 1/d_x − 1/d_y)₊,
    /// and κ_LLY = 2/d_x + 2/d_y − 2 (±1e-12).
    #[test]
    fn trees_attain_lower_bound_and_lly_closed_form(n in 2usize..=30, seed in any::<u64>()) {
        let g = tree(n, seed);
        let k0 = ollivier(&g, &uniform(0.0)).unwrap().kappa;
        let lly = lin_lu_yau(&g).unwrap();
        for e in 0..g.n_edges() {
            let (x, y) = g.edge(e).unwrap();
            let (dx, dy) = (g.degree(x).unwrap() as f64, g.degree(y).unwrap() as f64);
            let (lo, _) = jost_liu_bounds(&g, e).unwrap();
            prop_assert!((k0[e] - lo).abs() < 1e-12);
            prop_assert!((k0[e] + 2.0 * (1.0 - 1.0 / dx - 1.0 / dy).max(0.0)).abs() < 1e-12);
            prop_assert!((lly[e] - (2.0 / dx + 2.0 / dy - 2.0)).abs() < 1e-12, "{} vs {}", lly[e], 2.0 / dx + 2.0 / dy - 2.0);
        }
    }

    /// Bourne et al.: κ_α/(1 − α) is the same for α ∈ {0.5, 0.6, 0.75, 0.9} (±1e-8).
    #[test]
    fn bourne_linearity_in_alpha(n in 3usize..=30, p in 0.1f64..0.5, seed in any::<u64>()) {
        let Some(g) = gnp(n, p, seed) else { return Ok(()) };
        let base: Vec<f64> = ollivier(&g, &uniform(0.5)).unwrap().kappa.iter().map(|k| k / 0.5).collect();
        for alpha in [0.6, 0.75, 0.9] {
            let k = ollivier(&g, &uniform(alpha)).unwrap().kappa;
            for (a, b) in k.iter().zip(&base) {
                prop_assert!((a / (1.0 - alpha) - b).abs() < 1e-8, "α={}: {} vs {}", alpha, a / (1.0 - alpha), b);
            }
        }
    }

    /// Kantorovich–Rubinstein: for f = min_r d(·, r) (1-Lipschitz),
    /// |E_{m_x} f − E_{m_y} f| ≤ W1(m_x, m_y) + 1e-9 = (1 − κ) d(x, y) + 1e-9.
    #[test]
    fn kantorovich_rubinstein_duality(n in 3usize..=30, p in 0.1f64..0.5, seed in any::<u64>(), alpha in 0.0f64..0.95, roots in 1usize..=3) {
        let Some(g) = gnp(n, p, seed) else { return Ok(()) };
        let d = Distances::all_pairs(&g).unwrap();
        let mut rng = seeded(seed ^ 0x5eed);
        let rs: Vec<usize> = (0..roots).map(|_| rng.random_range(0..g.n_nodes())).collect();
        let f = |v: usize| rs.iter().map(|&r| d.get(v, r).unwrap().unwrap()).fold(f64::INFINITY, f64::min);
        let cfg = uniform(alpha);
        let k = ollivier(&g, &cfg).unwrap().kappa;
        for (e, &ke) in k.iter().enumerate() {
            let (x, y) = g.edge(e).unwrap();
            let ex = |v: usize| { let (s, m) = lazy_measure(&g, &cfg, v).unwrap(); s.iter().zip(&m).map(|(&a, &w)| w * f(a)).sum::<f64>() };
            let w1 = (1.0 - ke) * d.get(x, y).unwrap().unwrap();
            prop_assert!((ex(x) - ex(y)).abs() <= w1 + 1e-9);
        }
    }

    /// Forman 1d = 4 − d_x − d_y and augmented = 1d + 3·triangles, exact (1e-12).
    #[test]
    fn forman_closed_forms(n in 3usize..=30, p in 0.1f64..0.5, seed in any::<u64>()) {
        let Some(g) = gnp(n, p, seed) else { return Ok(()) };
        let f1 = forman(&g, FormanKind::OneD);
        let fa = forman(&g, FormanKind::Augmented);
        for e in 0..g.n_edges() {
            let (x, y) = g.edge(e).unwrap();
            let base = 4.0 - g.degree(x).unwrap() as f64 - g.degree(y).unwrap() as f64;
            prop_assert!((f1[e] - base).abs() < 1e-12);
            prop_assert!((fa[e] - base - 3.0 * g.triangles(e).unwrap() as f64).abs() < 1e-12);
        }
    }

    /// Limited distances agree with all-pairs on every pair they hold, on weighted graphs.
    #[test]
    fn limited_distances_are_exact(n in 3usize..=30, p in 0.1f64..0.5, seed in any::<u64>()) {
        let Some(g) = gnp(n, p, seed) else { return Ok(()) };
        // Equal lengths: breadth-first layout, 3-hop balls.
        let (a, l) = (Distances::all_pairs(&g).unwrap(), Distances::limited(&g));
        for i in 0..g.n_nodes() {
            for j in 0..g.n_nodes() {
                let d = a.get(i, j).unwrap().unwrap();
                match l.get(i, j).unwrap() {
                    Some(v) => prop_assert!(v == d),
                    None => prop_assert!(d > 3.0),
                }
            }
        }
        let mut rng = seeded(seed);
        let w: Vec<f64> = (0..g.n_edges()).map(|_| rng.random_range(0.1..3.0)).collect();
        let g = g.with_weights(&w).unwrap();
        let (a, l) = (Distances::all_pairs(&g).unwrap(), Distances::limited(&g));
        for i in 0..g.n_nodes() {
            for j in 0..g.n_nodes() {
                if let Some(v) = l.get(i, j).unwrap() {
                    prop_assert!((v - a.get(i, j).unwrap().unwrap()).abs() < 1e-12);
                }
            }
        }
        // And weighted curvature is the same with either layout.
        let cfg = OllivierConfig::default();
        let k1 = ricci_causal::curvature::ollivier_with(&g, &a, &cfg).unwrap();
        let k2 = ricci_causal::curvature::ollivier_with(&g, &l, &cfg).unwrap();
        prop_assert_eq!(k1, k2);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, rng_seed: proptest::test_runner::RngSeed::Fixed(7), ..ProptestConfig::default() })]

    /// With equal lengths the costs are decided locally (no table); they give
    /// the same curvature as the all-pairs table, for any common length.
    #[test]
    fn local_metric_equals_all_pairs_table(n in 3usize..=30, p in 0.1f64..0.5, seed in any::<u64>(), w in 0.1f64..5.0) {
        let Some(g) = gnp(n, p, seed) else { return Ok(()) };
        let g = g.with_weights(&vec![w; g.n_edges()]).unwrap();
        let cfg = OllivierConfig::default();
        let local = ollivier(&g, &cfg).unwrap();
        let table = ricci_causal::curvature::ollivier_with(&g, &Distances::all_pairs(&g).unwrap(), &cfg).unwrap();
        for (a, b) in local.kappa.iter().zip(&table.kappa) {
            prop_assert!((a - b).abs() < 1e-12, "{} vs {}", a, b);
        }
    }
}

/// More than 64 target atoms take the general cost path; same values.
#[test]
fn wide_supports_match_table() {
    let edges: Vec<(usize, usize)> = (0..66)
        .flat_map(|a| (0..3).map(move |b| (a, 66 + b)))
        .collect();
    let g = WeightedGraph::from_unweighted_edges(edges).unwrap();
    let cfg = OllivierConfig::default();
    let local = ollivier(&g, &cfg).unwrap();
    let table =
        ricci_causal::curvature::ollivier_with(&g, &Distances::all_pairs(&g).unwrap(), &cfg)
            .unwrap();
    for (a, b) in local.kappa.iter().zip(&table.kappa) {
        assert!((a - b).abs() < 1e-12);
    }
}

/// C_n with n ≥ 6: κ = 0 for every α, LLY = 0 (exact to 1e-12).
#[test]
fn long_cycles_are_flat() {
    for n in 6..40 {
        let g = cycle(n).unwrap();
        for alpha in [0.0, 0.25, 0.5, 0.9] {
            for k in ollivier(&g, &OllivierConfig::with_alpha(alpha))
                .unwrap()
                .kappa
            {
                assert!(k.abs() < 1e-12);
            }
        }
        for k in lin_lu_yau(&g).unwrap() {
            assert!(k.abs() < 1e-12);
        }
    }
}
