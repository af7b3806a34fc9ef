//! Every bad input the issue lists returns its typed error, never a panic.

use mlcore::sampling::seeded;
use ndarray::{Array1, Array2, array};
use ricci_causal::Error;
use ricci_causal::causal::{NetworkDgp, exposure, neighbour_mean, sqrt_pehe};
use ricci_causal::curvature::{
    Aggregate, OllivierConfig, OtSolver, jost_liu_bounds, lazy_measure, node_curvature, ollivier,
    ollivier_edge,
};
use ricci_causal::estimators::{
    HajekExposure, OutcomeModel, RegressionAdjustment, SgcEstimator, hajek_ate,
};
use ricci_causal::flow::{Affinity, RicciFlow, to_affinity};
use ricci_causal::generators::{barbell, complete, karate, path};
use ricci_causal::graph::{Distances, WeightedGraph};
use ricci_causal::reliability::curvature_error_report;
use ricci_causal::transport::{SinkhornParams, sinkhorn, w1_exact};

#[test]
fn alpha_outside_unit_interval() {
    let g = complete(4).unwrap();
    for a in [-0.1, 1.0, 1.5, f64::NAN] {
        assert!(matches!(
            ollivier(&g, &OllivierConfig::with_alpha(a)),
            Err(Error::AlphaOutOfRange(_))
        ));
        assert!(matches!(
            lazy_measure(&g, &OllivierConfig::with_alpha(a), 0),
            Err(Error::AlphaOutOfRange(_))
        ));
    }
    let flow = RicciFlow {
        curvature: OllivierConfig::with_alpha(1.0),
        ..Default::default()
    };
    assert!(matches!(flow.run(&g), Err(Error::AlphaOutOfRange(_))));
}

#[test]
fn bad_weights_self_loops_duplicates_and_empty_graphs() {
    for w in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        assert!(matches!(
            WeightedGraph::from_edges([(0, 1, w)]),
            Err(Error::NonPositiveWeight { .. })
        ));
    }
    assert!(matches!(
        WeightedGraph::from_edges([("a", "a", 1.0)]),
        Err(Error::SelfLoop(_))
    ));
    assert!(matches!(
        WeightedGraph::from_edges([(0, 1, 1.0), (1, 0, 2.0)]),
        Err(Error::DuplicateEdge { .. })
    ));
    assert!(matches!(
        WeightedGraph::<usize>::from_edges([]),
        Err(Error::EmptyGraph)
    ));
    let g = path(3).unwrap();
    assert!(matches!(
        g.with_weights(&[1.0]),
        Err(Error::LengthMismatch { .. })
    ));
    assert!(matches!(
        g.with_weights(&[1.0, -2.0]),
        Err(Error::NonPositiveWeight { .. })
    ));
    assert!(matches!(g.node_index(&7), Err(Error::UnknownNode(_))));
}

#[test]
fn disconnected_pairs() {
    let g = WeightedGraph::from_edges([("a", "b", 1.0), ("c", "d", 1.0)]).unwrap();
    let d = Distances::all_pairs(&g).unwrap();
    assert!(matches!(
        d.distance(&g, &"a", &"c"),
        Err(Error::Disconnected { .. })
    ));
    assert_eq!(d.distance(&g, &"a", &"b").unwrap(), 1.0);
    // Distances of another graph.
    let other = Distances::all_pairs(&complete(5).unwrap()).unwrap();
    assert!(matches!(
        ricci_causal::curvature::ollivier_with(&g, &other, &OllivierConfig::default()),
        Err(Error::LengthMismatch { .. })
    ));
    // Curvature on a disconnected graph is fine (edges are local); the flow uses the largest component.
    assert_eq!(
        ollivier(&g, &OllivierConfig::default())
            .unwrap()
            .kappa
            .len(),
        2
    );
    // Its largest component is one edge, κ = 1, so w ← w − κ w = 0: collapse.
    assert!(matches!(
        RicciFlow::default().run(&g),
        Err(Error::WeightCollapsed { w: 0.0, .. })
    ));
    let g2 = WeightedGraph::from_edges([(0, 1, 1.0), (1, 2, 1.0), (5, 6, 1.0)]).unwrap();
    assert_eq!(RicciFlow::default().run(&g2).unwrap().graph.n_edges(), 2);
}

#[test]
fn index_errors() {
    let g = complete(3).unwrap();
    let d = Distances::limited(&g);
    assert!(matches!(
        ollivier_edge(&g, &d, &OllivierConfig::default(), 9),
        Err(Error::IndexOutOfRange { .. })
    ));
    assert!(matches!(
        jost_liu_bounds(&g, 3),
        Err(Error::IndexOutOfRange { .. })
    ));
    assert!(matches!(
        lazy_measure(&g, &OllivierConfig::default(), 3),
        Err(Error::IndexOutOfRange { .. })
    ));
    assert!(matches!(
        node_curvature(&g, &[0.0], Aggregate::Mean),
        Err(Error::LengthMismatch { .. })
    ));
    assert!(matches!(
        node_curvature(&g, &[0.0, f64::NAN, 1.0], Aggregate::Mean),
        Err(Error::NonFinite { .. })
    ));
    // Every index-taking accessor: a typed error naming the index, both
    // indices of a distance checked (the dense layout once read row i + 1).
    let oob = |r: Result<(), Error>, index: usize| {
        assert_eq!(
            r.unwrap_err(),
            Error::IndexOutOfRange {
                what: if index == 3 { "edge" } else { "node" },
                index,
                len: 3
            }
        )
    };
    oob(g.edge(3).map(|_| ()), 3);
    oob(g.edge_labels(3).map(|_| ()), 3);
    oob(g.triangles(3).map(|_| ()), 3);
    oob(g.degree(7).map(|_| ()), 7);
    oob(g.neighbours(7).map(|_| ()), 7);
    oob(g.edge_between(0, 7).map(|_| ()), 7);
    oob(g.edge_between(7, 0).map(|_| ()), 7);
    for dist in [Distances::all_pairs(&g).unwrap(), d.clone()] {
        oob(dist.get(0, 7).map(|_| ()), 7);
        oob(dist.get(7, 0).map(|_| ()), 7);
        assert_eq!(dist.get(0, 2).unwrap(), Some(1.0));
    }
    // Distances of another graph are refused, not misread.
    let big = Distances::limited(&complete(5).unwrap());
    assert!(matches!(
        ollivier_edge(&g, &big, &OllivierConfig::default(), 0),
        Err(Error::LengthMismatch { .. })
    ));
}

#[test]
fn transport_errors() {
    let c = array![[0.0, 1.0], [1.0, 0.0]];
    assert!(matches!(
        w1_exact(&[0.5, 0.5], &[0.5, 0.6], c.view()),
        Err(Error::MassMismatch { .. })
    ));
    assert!(matches!(
        w1_exact(&[1.5, -0.5], &[0.5, 0.5], c.view()),
        Err(Error::NegativeMass { .. })
    ));
    assert!(matches!(
        w1_exact(&[0.5, 0.5], &[1.0], c.view()),
        Err(Error::LengthMismatch { .. })
    ));
    assert!(matches!(
        w1_exact(&[0.0, 0.0], &[0.0, 0.0], c.view()),
        Err(Error::MassMismatch { .. })
    ));
    let bad = array![[0.0, f64::NAN], [1.0, 0.0]];
    assert!(matches!(
        w1_exact(&[0.5, 0.5], &[0.5, 0.5], bad.view()),
        Err(Error::InvalidCost { .. })
    ));
    let p = SinkhornParams {
        reg: 1e-3,
        max_iter: 1,
        tol: 1e-15,
    };
    assert!(matches!(
        sinkhorn(&[0.3, 0.7], &[0.6, 0.4], c.view(), &p),
        Err(Error::NotConverged { .. })
    ));
    let p = SinkhornParams { reg: 0.0, ..p };
    assert!(matches!(
        sinkhorn(&[0.5, 0.5], &[0.5, 0.5], c.view(), &p),
        Err(Error::InvalidParameter { .. })
    ));
    let cfg = OllivierConfig {
        solver: OtSolver::Sinkhorn(SinkhornParams {
            reg: -1.0,
            ..Default::default()
        }),
        ..Default::default()
    };
    assert!(matches!(
        ollivier(&complete(3).unwrap(), &cfg),
        Err(Error::InvalidParameter { .. })
    ));
}

#[test]
fn flow_errors() {
    let g = barbell(4, 0).unwrap();
    // step·κ > 1 on the clique edges: their weights go negative.
    let r = RicciFlow {
        step: 2.0,
        ..Default::default()
    }
    .run(&g);
    assert!(matches!(r, Err(Error::WeightCollapsed { .. })), "{r:?}");
    for bad in [
        RicciFlow {
            step: 0.0,
            ..Default::default()
        },
        RicciFlow {
            delta: -1.0,
            ..Default::default()
        },
        RicciFlow {
            min_weight: Some(0.0),
            ..Default::default()
        },
        RicciFlow {
            min_weight: Some(2.0),
            max_weight: Some(1.0),
            ..Default::default()
        },
    ] {
        assert!(matches!(bad.run(&g), Err(Error::InvalidParameter { .. })));
    }
    // A floor turns the collapse into a clamped weight.
    let ok = RicciFlow {
        step: 2.0,
        iterations: 3,
        min_weight: Some(1e-3),
        ..Default::default()
    }
    .run(&g)
    .unwrap();
    assert!(ok.graph.weights().iter().all(|&w| w >= 1e-3));
    assert!(matches!(
        to_affinity(&[1.0, 0.0], Affinity::Inverse),
        Err(Error::NonFinite { .. })
    ));
    assert!(matches!(
        to_affinity(&[1.0], Affinity::Exp { beta: 0.0 }),
        Err(Error::InvalidParameter { .. })
    ));
}

#[test]
fn causal_length_mismatches_and_design_errors() {
    let g = karate();
    let n = g.n_nodes();
    let mut rng = seeded(0);
    let u = Array2::<f64>::zeros((n, 2));
    let dgp = NetworkDgp::default();
    assert!(matches!(
        dgp.sample(&g, Array2::<f64>::zeros((n - 1, 2)).view(), &mut rng),
        Err(Error::LengthMismatch { .. })
    ));
    assert!(matches!(
        NetworkDgp {
            p_treat: 1.0,
            ..dgp
        }
        .sample(&g, u.view(), &mut rng),
        Err(Error::PropensityOutOfBounds(_))
    ));
    assert!(matches!(
        exposure(&g, Array1::zeros(n - 1).view(), None),
        Err(Error::LengthMismatch { .. })
    ));
    assert!(matches!(
        exposure(&g, Array1::zeros(n).view(), Some(&[1.0])),
        Err(Error::LengthMismatch { .. })
    ));
    assert!(matches!(
        neighbour_mean(&g, Array2::zeros((3, 2)).view(), None),
        Err(Error::LengthMismatch { .. })
    ));
    assert!(matches!(
        sqrt_pehe(Array1::zeros(2).view(), Array1::zeros(3).view()),
        Err(Error::LengthMismatch { .. })
    ));
    // An isolated node has no exposure.
    let iso = WeightedGraph::from_nodes_and_edges([0, 1, 2], [(0, 1, 1.0)]).unwrap();
    assert!(matches!(
        exposure(&iso, Array1::zeros(3).view(), None),
        Err(Error::NoNeighbours(2))
    ));

    let s = dgp.sample(&g, u.view(), &mut rng).unwrap();
    let short = Array1::<f64>::zeros(n - 1);
    let ra = RegressionAdjustment::default();
    assert!(matches!(
        ra.fit(&g, None, s.x.view(), short.view(), s.z.view(), s.y.view()),
        Err(Error::LengthMismatch { .. })
    ));
    assert!(matches!(
        ra.fit(&g, None, s.x.view(), s.t.view(), s.z.view(), short.view()),
        Err(Error::LengthMismatch { .. })
    ));
    let mut nan_y = s.y.clone();
    nan_y[0] = f64::NAN;
    assert!(matches!(
        ra.fit(&g, None, s.x.view(), s.t.view(), s.z.view(), nan_y.view()),
        Err(Error::NonFinite { .. })
    ));
    let sgc = SgcEstimator::default();
    assert!(matches!(
        sgc.fit(
            &g,
            Some(&[1.0]),
            s.x.view(),
            s.t.view(),
            s.z.view(),
            s.y.view()
        ),
        Err(Error::LengthMismatch { .. })
    ));
    let mut t2 = s.t.clone();
    t2[0] = 0.5;
    assert!(matches!(
        sgc.fit(&g, None, s.x.view(), t2.view(), s.z.view(), s.y.view()),
        Err(Error::InvalidParameter { .. })
    ));
    assert!(matches!(
        hajek_ate(s.t.view(), short.view(), s.propensity.view()),
        Err(Error::LengthMismatch { .. })
    ));
    let p0 = Array1::from_elem(n, 0.0);
    assert!(matches!(
        hajek_ate(s.t.view(), s.y.view(), p0.view()),
        Err(Error::PropensityOutOfBounds(_))
    ));
    assert!(matches!(
        hajek_ate(Array1::zeros(n).view(), s.y.view(), s.propensity.view()),
        Err(Error::EmptyStratum { t: 1, .. })
    ));
    // All units control: every treated stratum is empty.
    let h = HajekExposure::default()
        .fit(
            &g,
            None,
            Array1::zeros(n).view(),
            s.y.view(),
            s.propensity.view(),
            &mut rng,
        )
        .unwrap();
    assert!(matches!(
        h.predict(1.0, 0.0),
        Err(Error::EmptyStratum { t: 1, .. })
    ));
    assert!(matches!(
        curvature_error_report(&[1.0, 2.0], &[1.0], 2),
        Err(Error::LengthMismatch { .. })
    ));
    assert!(matches!(
        curvature_error_report(&[1.0, 2.0], &[1.0, 2.0], 0),
        Err(Error::InvalidParameter { .. })
    ));
    assert!(matches!(
        curvature_error_report(&[1.0, 1.0], &[1.0, 2.0], 1),
        Err(Error::Core(_))
    ));
}
