//! Hostile input at every public entry point (issue 32, "Bad input" and
//! "Found by a hostile-input run"): one NaN/±∞ planted at a random position
//! of otherwise valid data, huge sizes, out-of-range indices. Each call must
//! return `Err` (never panic, never abort, never a silent NaN); the few calls
//! documented to accept a value return finite output.

use mlcore::sampling::seeded;
use ndarray::{Array1, Array2};
use proptest::prelude::*;
use ricci_causal::Error;
use ricci_causal::causal::{NetworkDgp, community_latents, exposure, neighbour_mean, sqrt_pehe};
use ricci_causal::curvature::{
    Aggregate, OllivierConfig, lazy_measure, node_curvature, ollivier, ollivier_edge,
};
use ricci_causal::estimators::{
    HajekExposure, Normalization, OutcomeModel, RegressionAdjustment, SgcEstimator, hajek_ate,
    sgc_propagate,
};
use ricci_causal::flow::{Affinity, RicciFlow, to_affinity};
use ricci_causal::generators::{
    balanced_tree, barbell, complete, complete_bipartite, cycle, gnm, grid, hypercube, karate,
    path, planted_partition, star,
};
use ricci_causal::graph::{Distances, WeightedGraph};
use ricci_causal::interference::InterferenceExperiment;
use ricci_causal::partition::{modularity, threshold_partition};
use ricci_causal::reliability::curvature_error_report;
use ricci_causal::transport::{SinkhornParams, sinkhorn, w1_exact};

/// `prop_assert!` that prints the failing expression (its own message
/// would read struct-literal braces as a format string).
macro_rules! check {
    ($e:expr) => {
        prop_assert!($e, "failed: {}", stringify!($e))
    };
}

fn bad_value() -> impl Strategy<Value = f64> {
    prop_oneof![Just(f64::NAN), Just(f64::INFINITY), Just(f64::NEG_INFINITY)]
}

fn huge() -> impl Strategy<Value = usize> {
    prop_oneof![
        Just(usize::MAX),
        Just(usize::MAX / 2),
        Just(1usize << 40),
        Just(1usize << 33),
        (1usize << 31)..usize::MAX
    ]
}

fn too_large<T: std::fmt::Debug>(r: Result<T, Error>) -> bool {
    matches!(r, Err(Error::TooLarge { .. }))
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 64,
        rng_seed: proptest::test_runner::RngSeed::Fixed(32),
        ..ProptestConfig::default()
    })]

    /// A NaN/∞ planted anywhere in the data of the causal and estimator
    /// entry points is a typed error, never NaN out.
    #[test]
    fn non_finite_data_is_refused(bad in bad_value(), pos in 0usize..34, col in 0usize..3, seed in any::<u64>()) {
        let g = karate();
        let n = g.n_nodes();
        let mut rng = seeded(seed);
        let labels: Vec<usize> = (0..n).map(|i| i % 2).collect();
        let u = community_latents(&labels, 3, 1.0, 1.0, &mut rng).unwrap();
        let s = NetworkDgp::default().sample(&g, u.view(), &mut rng).unwrap();
        let mut t = s.t.clone();
        t[pos] = bad;
        check!(exposure(&g, t.view(), None).is_err());
        let mut aff = vec![1.0; g.n_edges()];
        aff[pos] = bad;
        check!(exposure(&g, s.t.view(), Some(&aff)).is_err());
        check!(neighbour_mean(&g, s.x.view(), Some(&aff)).is_err());
        check!(sgc_propagate(&g, Some(&aff), s.x.view(), 2, Normalization::Symmetric).is_err());
        let mut x = s.x.clone();
        x[[pos, col]] = bad;
        check!(neighbour_mean(&g, x.view(), None).is_err());
        check!(sgc_propagate(&g, None, x.view(), 2, Normalization::RandomWalk).is_err());
        check!(SgcEstimator::default().fit(&g, None, x.view(), s.t.view(), s.z.view(), s.y.view()).is_err());
        check!(RegressionAdjustment::default().fit(&g, None, x.view(), s.t.view(), s.z.view(), s.y.view()).is_err());
        let mut uu = u.clone();
        uu[[pos, col]] = bad;
        check!(NetworkDgp::default().sample(&g, uu.view(), &mut rng).is_err());
        let mut y = s.y.clone();
        y[pos] = bad;
        check!(hajek_ate(s.t.view(), y.view(), s.propensity.view()).is_err());
        check!(HajekExposure::default().fit(&g, None, s.t.view(), y.view(), s.propensity.view(), &mut rng).is_err());
        check!(RegressionAdjustment::default().fit(&g, None, s.x.view(), s.t.view(), s.z.view(), y.view()).is_err());
        let mut z = s.z.clone();
        z[pos] = bad;
        check!(RegressionAdjustment::default().fit(&g, None, s.x.view(), s.t.view(), z.view(), s.y.view()).is_err());
        let truth = s.true_effect(ricci_causal::causal::Estimand::Individual).unwrap();
        let mut est = truth.clone();
        est[pos] = bad;
        check!(sqrt_pehe(est.view(), truth.view()).is_err());
        check!(sqrt_pehe(truth.view(), est.view()).is_err());
        check!(s.potential(bad, 0.0).is_err());
        check!(s.potential(1.0, bad).is_err());
        let fit = RegressionAdjustment::default().fit(&g, None, s.x.view(), s.t.view(), s.z.view(), s.y.view()).unwrap();
        check!(fit.predict(bad, 0.5).is_err());
        check!(fit.predict(1.0, bad).is_err());
        let hf = HajekExposure::default().fit(&g, None, s.t.view(), s.y.view(), s.propensity.view(), &mut rng).unwrap();
        check!(hf.predict(1.0, bad).is_err());
        let mut kappa = vec![0.0; g.n_edges()];
        kappa[pos] = bad;
        check!(node_curvature(&g, &kappa, Aggregate::Mean).is_err());
        let mut err = vec![1.0; n];
        err[pos] = bad;
        let curv: Vec<f64> = (0..n).map(|i| i as f64).collect();
        check!(curvature_error_report(&curv, &err, 3).is_err());
        check!(curvature_error_report(&err, &curv, 3).is_err());
        let mut w = vec![1.0; g.n_edges()];
        w[pos] = bad;
        check!(g.with_weights(&w).is_err());
        check!(to_affinity(&w, Affinity::Inverse).is_err());
        check!(to_affinity(&[1.0], Affinity::Cut { threshold: f64::NAN }).is_err());
        check!(to_affinity(&[1.0], Affinity::Exp { beta: bad }).is_err());
    }

    /// Transport: a non-finite mass or cost anywhere is refused.
    #[test]
    fn non_finite_transport_is_refused(bad in bad_value(), i in 0usize..4, j in 0usize..3) {
        let a = [0.25; 4];
        let b = [1.0 / 3.0; 3];
        let c = Array2::from_shape_fn((4, 3), |(p, q)| (p + 2 * q) as f64);
        let mut cb = c.clone();
        cb[[i, j]] = bad;
        check!(w1_exact(&a, &b, cb.view()).is_err());
        check!(sinkhorn(&a, &b, cb.view(), &SinkhornParams::default()).is_err());
        let mut ab = a;
        ab[i] = bad;
        check!(w1_exact(&ab, &b, c.view()).is_err());
        let mut bb = b;
        bb[j] = bad;
        check!(sinkhorn(&a, &bb, c.view(), &SinkhornParams::default()).is_err());
        check!(sinkhorn(&a, &b, c.view(), &SinkhornParams { reg: bad, ..Default::default() }).is_err());
    }

    /// Curvature and flow hyper-parameters outside their ranges, and bad
    /// weights at graph construction.
    #[test]
    fn bad_parameters_are_refused(bad in bad_value(), k in 0usize..10) {
        let g = barbell(4, 1).unwrap();
        let cfg = OllivierConfig::with_alpha(bad);
        check!(ollivier(&g, &cfg).is_err());
        check!(lazy_measure(&g, &cfg, 0).is_err());
        let d = Distances::limited(&g);
        check!(ollivier_edge(&g, &d, &cfg, 0).is_err());
        let exp = OllivierConfig {
            measure: ricci_causal::curvature::Measure::ExpWeight { base: bad, power: 2.0 },
            ..Default::default()
        };
        check!(ollivier(&g, &exp).is_err());
        let flow = |f: RicciFlow| f.run(&g).is_err();
        check!(flow(RicciFlow { step: bad, ..Default::default() }));
        check!(flow(RicciFlow { delta: f64::NAN, ..Default::default() }));
        check!(flow(RicciFlow { min_weight: Some(bad), ..Default::default() }));
        check!(WeightedGraph::from_edges([(0usize, 1usize, bad)]).is_err());
        check!(WeightedGraph::from_edges([(k, k, 1.0)]).is_err());
        let dgp = NetworkDgp { beta_t: bad, ..Default::default() };
        check!(dgp.check().is_err());
        let dgp = NetworkDgp { p_treat: bad, ..Default::default() };
        check!(dgp.check().is_err());
        check!(community_latents(&[0, 1], 2, bad, 1.0, &mut seeded(1)).is_err());
    }

    /// Out-of-range indices at every index-taking entry point.
    #[test]
    fn indices_out_of_range_are_typed_errors(extra in 0usize..1_000_000) {
        let g = karate();
        let (n, m) = (g.n_nodes(), g.n_edges());
        let d = Distances::limited(&g);
        let all = Distances::all_pairs(&g).unwrap();
        let oob = |r: Result<(), Error>| matches!(r, Err(Error::IndexOutOfRange { .. }));
        check!(oob(g.edge(m + extra).map(|_| ())));
        check!(oob(g.edge_labels(m + extra).map(|_| ())));
        check!(oob(g.triangles(m + extra).map(|_| ())));
        check!(oob(g.degree(n + extra).map(|_| ())));
        check!(oob(g.neighbours(n + extra).map(|_| ())));
        check!(oob(g.edge_between(0, n + extra).map(|_| ())));
        check!(oob(d.get(0, n + extra).map(|_| ())));
        check!(oob(all.get(n + extra, 0).map(|_| ())));
        check!(oob(all.get(0, n + extra).map(|_| ())));
        check!(oob(lazy_measure(&g, &OllivierConfig::default(), n + extra).map(|_| ())));
        check!(oob(ollivier_edge(&g, &d, &OllivierConfig::default(), m + extra).map(|_| ())));
        check!(oob(ricci_causal::curvature::jost_liu_bounds(&g, m + extra).map(|_| ())));
    }

    /// Huge sizes: a typed `TooLarge` (or a range error), never a
    /// capacity-overflow panic or an abort.
    #[test]
    fn huge_sizes_are_too_large(big in huge(), seed in any::<u64>()) {
        let mut rng = seeded(seed);
        check!(too_large(gnm(big, 10, &mut rng)) || matches!(gnm(big, 10, &mut rng), Err(Error::InvalidParameter { .. })));
        check!(gnm(1000, big, &mut rng).is_err());
        check!(too_large(gnm(big, big, &mut rng)) || gnm(big, big, &mut rng).is_err());
        check!(planted_partition(big, 4, 0.5, 1, &mut rng).is_err());
        check!(planted_partition(4, big, 0.5, 1, &mut rng).is_err());
        check!(planted_partition(4, 4, 0.5, big, &mut rng).is_err());
        check!(too_large(community_latents(&[0, big], 3, 1.0, 1.0, &mut rng)));
        check!(too_large(community_latents(&[0, 1], big, 1.0, 1.0, &mut rng)));
        check!(complete(big).is_err());
        check!(cycle(big).is_err());
        check!(path(big).is_err());
        check!(star(big).is_err());
        check!(complete_bipartite(big, big).is_err());
        check!(grid(big, big).is_err());
        check!(balanced_tree(big, 3).is_err());
        check!(barbell(big, big).is_err());
        let g = karate();
        let n = g.n_nodes();
        let labels: Vec<usize> = (0..n).map(|i| i % 2).collect();
        let u = community_latents(&labels, 2, 1.0, 0.5, &mut rng).unwrap();
        let s = NetworkDgp::default().sample(&g, u.view(), &mut rng).unwrap();
        let h = HajekExposure { bins: big, mc_draws: 1 };
        check!(too_large(h.fit(&g, None, s.t.view(), s.y.view(), s.propensity.view(), &mut rng)));
        let curv: Vec<f64> = (0..n).map(|i| i as f64).collect();
        check!(too_large(curvature_error_report(&curv, &curv, big)));
    }

    /// Extreme but finite values: documented to either succeed with finite
    /// output or return a typed error, never ∞/NaN out.
    #[test]
    fn extreme_finite_values_never_leak_infinity(scale in prop_oneof![Just(1e300), Just(-1e300), Just(f64::MAX), Just(1e-300)], pos in 0usize..34) {
        let g = karate();
        let n = g.n_nodes();
        let mut rng = seeded(pos as u64);
        let mut u = Array2::<f64>::ones((n, 2));
        u[[pos, 0]] = scale;
        match NetworkDgp::default().sample(&g, u.view(), &mut rng) {
            Ok(s) => check!(s.y.iter().all(|v| v.is_finite())),
            Err(e) => check!(matches!(e, Error::NonFinite { .. })),
        }
        let mut x = Array2::<f64>::ones((n, 2));
        x[[pos, 1]] = scale;
        if let Ok(m) = neighbour_mean(&g, x.view(), None) {
            check!(m.iter().all(|v| v.is_finite()));
        }
        if let Ok(h) = sgc_propagate(&g, None, x.view(), 3, Normalization::Symmetric) {
            check!(h.iter().all(|v| v.is_finite()));
        }
        let est = Array1::from_elem(n, scale);
        let truth = Array1::from_elem(n, -scale);
        match sqrt_pehe(est.view(), truth.view()) {
            Ok(v) => check!(v.is_finite()),
            Err(e) => check!(matches!(e, Error::NonFinite { .. })),
        }
        let t: Array1<f64> = (0..n).map(|i| (i % 2) as f64).collect();
        let y = Array1::from_shape_fn(n, |i| if i == pos { scale } else { 1.0 });
        if let Ok(f) = RegressionAdjustment::default().fit(&g, None, x.view(), t.view(), t.view(), y.view()) {
            check!(f.beta.iter().all(|v| v.is_finite()));
        }
    }

    /// Partitions and the interference experiment: labels out of range,
    /// non-finite scores or curvatures, mismatched lengths, and a
    /// caller-built `Geometry` whose partition labels are huge (they index
    /// per-block arrays): typed errors, never a panic or an abort.
    #[test]
    fn partitions_and_geometry_are_checked(bad in bad_value(), pos in 0usize..34, big in huge(), seed in any::<u64>()) {
        let g = karate();
        let (n, m) = (g.n_nodes(), g.n_edges());
        let mut labels = vec![0usize; n];
        labels[pos] = n + big % 1000;
        check!(modularity(&g, &labels).is_err());
        check!(modularity(&g, &labels[1..]).is_err());
        let mut score = vec![0.0; m];
        score[pos] = bad;
        check!(threshold_partition(&g, &score, 4).is_err());
        check!(threshold_partition(&g, &score[1..], 4).is_err());
        check!(threshold_partition(&g, &vec![0.0; m], 0).is_err());
        check!(threshold_partition(&g, &vec![0.0; m], big).is_ok());
        check!(hypercube(0).is_err());
        check!(hypercube(21 + (big % 1000) as u32).is_err());
        let exp = InterferenceExperiment::default();
        let geo = exp.geometry(&g).unwrap();
        let communities: Vec<usize> = (0..n).map(|i| i % 2).collect();
        let mut rng = seeded(seed);
        check!(exp.replicate(&g, &geo, &communities[1..], &mut rng).is_err());
        let mut hostile = geo.clone();
        hostile.partitions[pos % 2].labels[pos] = big;
        check!(matches!(exp.replicate(&g, &hostile, &communities, &mut rng), Err(Error::IndexOutOfRange { .. })));
        let mut hostile = geo.clone();
        hostile.partitions[pos % 2].labels.pop();
        check!(exp.replicate(&g, &hostile, &communities, &mut rng).is_err());
        let mut hostile = geo.clone();
        hostile.node_curvature[pos] = bad;
        check!(exp.replicate(&g, &hostile, &communities, &mut rng).is_err());
        let mut huge_communities = communities.clone();
        huge_communities[pos] = big;
        check!(exp.replicate(&g, &geo, &huge_communities, &mut rng).is_err());
        let disconnected = WeightedGraph::from_unweighted_edges([(0usize, 1usize), (2, 3)]).unwrap();
        check!(matches!(exp.geometry(&disconnected), Err(Error::Disconnected { .. })));
        check!(WeightedGraph::from_unweighted_edges([(pos, pos)]).is_err());
        check!(WeightedGraph::<usize>::from_unweighted_edges([]).is_err());
    }
}
