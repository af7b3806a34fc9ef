//! The partition, data and interference-experiment pieces against
//! independent values (closed forms, the vendored file's known contents).

use mlcore::sampling::seeded;
use ricci_causal::Error;
use ricci_causal::curvature::{OllivierConfig, ollivier};
use ricci_causal::data::karate_from;
use ricci_causal::flow::RicciFlow;
use ricci_causal::generators::{barbell, karate, planted_partition};
use ricci_causal::interference::InterferenceExperiment;
use ricci_causal::partition::{modularity, threshold_partition};

fn karate_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/karate")
}

/// The vendored file is networkx's graph: the same 78 edges in the same
/// order as the crate's built-in copy, 17 members per faction, Mr. Hi (0)
/// and the Officer (33) in different factions.
#[test]
fn vendored_karate_matches_networkx() {
    let (g, club) = karate_from(karate_dir()).unwrap();
    assert_eq!((g.n_nodes(), g.n_edges()), (34, 78));
    assert_eq!(g.edges(), karate().edges());
    assert_eq!(club.iter().filter(|&&c| c == 0).count(), 17);
    assert_eq!((club[0], club[33]), (0, 1));
}

/// A tampered copy is refused by its checksum.
#[test]
fn tampered_karate_is_refused() {
    let dir = std::env::temp_dir().join(format!("ricci-karate-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for f in ["karate.csv", "clubs.csv", "SHA256SUMS"] {
        std::fs::copy(karate_dir().join(f), dir.join(f)).unwrap();
    }
    let mut text = std::fs::read_to_string(dir.join("karate.csv")).unwrap();
    text.push_str("0,9\n");
    std::fs::write(dir.join("karate.csv"), text).unwrap();
    assert!(matches!(karate_from(&dir), Err(Error::Core(_))));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Barbell(4, 0): m = 13, each clique has 6 inner edges and degree sum 13,
/// so the two-clique partition has Q = 2(6/13 − (13/26)²) = 12/13 − 1/2;
/// the Ricci flow stretches the bridge and the best cut of its weights finds
/// exactly the two cliques; so does the cut of negative curvature (the
/// bridge is the only negatively curved edge).
#[test]
fn barbell_partitions_and_modularity() {
    let g = barbell(4, 0).unwrap();
    let two: Vec<usize> = (0..8).map(|i| i / 4).collect();
    let q = modularity(&g, &two).unwrap();
    assert!((q - (12.0 / 13.0 - 0.5)).abs() < 1e-12);
    assert!(modularity(&g, &[0; 8]).unwrap().abs() < 1e-12);
    let flow = RicciFlow {
        iterations: 10,
        ..Default::default()
    }
    .run(&g)
    .unwrap();
    let p = threshold_partition(&g, flow.graph.weights(), 20).unwrap();
    assert_eq!(p.labels, two);
    assert_eq!(p.n_blocks, 2);
    let k = ollivier(&g, &OllivierConfig::default()).unwrap().kappa;
    let neg: Vec<f64> = k.iter().map(|x| -x).collect();
    assert_eq!(threshold_partition(&g, &neg, 20).unwrap().labels, two);
    assert!(matches!(
        threshold_partition(&g, &neg[..3], 20),
        Err(Error::LengthMismatch { .. })
    ));
    assert!(modularity(&g, &[9; 8]).is_err());
}

/// With no outcome noise, no heterogeneity and no covariate effect, every
/// estimator recovers the direct effect β_t = 1 exactly (outcomes are
/// `1·T + Z`; within a block × exposure-bin stratum Z varies, so only the
/// regression, which models Z, is exact; the stratified estimators are
/// unbiased but not exact). Checked: regression error < 1e-4 with both
/// partitions (not 0: the 1e-6 ridge the regression adds for conditioning
/// shrinks the 20 covariate coefficients and moves τ̂ by O(1e-6 × the
/// design's condition number)), all errors finite, and the draw is
/// reproducible by seed.
#[test]
fn regression_is_exact_without_noise_and_runs_are_seeded() {
    let exp = InterferenceExperiment {
        dgp: ricci_causal::causal::NetworkDgp {
            beta_x: 0.0,
            beta_nx: 0.0,
            hetero: 0.0,
            noise_sd: 0.0,
            ..Default::default()
        },
        ..Default::default()
    };
    let (g, labels) = planted_partition(4, 10, 0.5, 6, &mut seeded(3)).unwrap();
    let geo = exp.geometry(&g).unwrap();
    let a = exp.replicate(&g, &geo, &labels, &mut seeded(9)).unwrap();
    let b = exp.replicate(&g, &geo, &labels, &mut seeded(9)).unwrap();
    assert_eq!(a, b);
    assert!((a.ate - 1.0).abs() < 1e-12);
    for side in 0..2 {
        assert!(a.ate_error[2][side] < 1e-4, "{:?}", a.ate_error);
        assert!(a.node_error[side].iter().all(|e| *e < 1e-4));
    }
    assert!(a.ate_error.iter().flatten().all(|e| e.is_finite()));
    let bad = InterferenceExperiment {
        mixing: 1.5,
        ..Default::default()
    };
    assert!(matches!(
        bad.geometry(&g),
        Err(Error::InvalidParameter { .. })
    ));
}
