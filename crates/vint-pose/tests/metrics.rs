//! Metric properties of the spec: ADD(T,T) = 0, ADD-S ≤ ADD, invariance
//! under a common rigid motion (1e-9), AUC ∈ [0,1] with its 1/0 extremes,
//! the cube case; the k-d tree and the AUC rules against brute force and
//! hand-computed values.

mod common;

use common::{cube, random_cloud, to_pts};
use nalgebra::{Point3, Vector3};
use ndarray::{Array1, Array2, array};
use proptest::prelude::*;
use proptest::test_runner::RngSeed;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use vint_pose::kdtree::KdTree;
use vint_pose::metrics::*;
use vint_pose::se3::{Pose, pose, rotation_from_axis_angle};

fn cfg(cases: u32) -> ProptestConfig {
    ProptestConfig {
        rng_seed: RngSeed::Fixed(0xadd5),
        ..ProptestConfig::with_cases(cases)
    }
}

fn arb_pose() -> impl Strategy<Value = Pose> {
    (
        prop::array::uniform3(-3.2f64..3.2),
        prop::array::uniform3(-1.0f64..1.0),
    )
        .prop_map(|(w, t)| pose(rotation_from_axis_angle(w).unwrap(), t).unwrap())
}

fn brute_add_s(x: &Array2<f64>, gt: &Pose, est: &Pose) -> f64 {
    let p = to_pts(x);
    p.iter()
        .map(|a| {
            p.iter()
                .map(|b| ((est * a) - (gt * b)).norm())
                .fold(f64::INFINITY, f64::min)
        })
        .sum::<f64>()
        / p.len() as f64
}

proptest! {
    #![proptest_config(cfg(64))]

    /// Spec: ADD(T, T) = 0, ADD-S(T, T) = 0, ADD-S ≤ ADD, and ADD, ADD-S are
    /// invariant under left-multiplying both poses by a rigid A (1e-9).
    #[test]
    fn add_zero_add_s_below_add_and_invariance_1e9(seed in 0u64..10_000, gt in arb_pose(), est in arb_pose(), a in arb_pose()) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let x = random_cloud(60, 0.1, &mut rng);
        prop_assert_eq!(add(x.view(), &gt, &gt).unwrap(), 0.0);
        prop_assert!(add_s(x.view(), &gt, &gt).unwrap() <= 1e-15);
        let d = add(x.view(), &gt, &est).unwrap();
        let s = add_s(x.view(), &gt, &est).unwrap();
        prop_assert!(s <= d + 1e-15, "ADD-S {s} > ADD {d}");
        prop_assert!((add(x.view(), &(a * gt), &(a * est)).unwrap() - d).abs() <= 1e-9);
        prop_assert!((add_s(x.view(), &(a * gt), &(a * est)).unwrap() - s).abs() <= 1e-9);
        // The k-d tree ADD-S equals the brute-force one.
        prop_assert!((s - brute_add_s(&x, &gt, &est)).abs() <= 1e-12);
        prop_assert_eq!(add_or_s(x.view(), &gt, &est, true).unwrap(), s);
        prop_assert_eq!(add_or_s(x.view(), &gt, &est, false).unwrap(), d);
    }

    /// Spec: AUC ∈ [0, 1] under both rules; the VOC rule exceeds the
    /// continuous one by at most 1/n; both are monotone in each error.
    #[test]
    fn auc_in_unit_interval(errs in prop::collection::vec(0.0f64..0.3, 1..60)) {
        let e = Array1::from(errs.clone());
        let c = auc(e.view(), 0.1, AucRule::Continuous).unwrap();
        let v = auc(e.view(), 0.1, AucRule::VocYcb).unwrap();
        prop_assert!((0.0..=1.0).contains(&c) && (0.0..=1.0).contains(&v));
        prop_assert!(v >= c - 1e-12 && v <= c + 1.0 / errs.len() as f64 + 1e-12, "voc {v} continuous {c}");
        let better = e.mapv(|x| x * 0.5);
        prop_assert!(auc(better.view(), 0.1, AucRule::Continuous).unwrap() >= c);
    }

    /// The k-d tree's nearest / k-nearest / radius queries equal brute force.
    #[test]
    fn kdtree_matches_brute_force(seed in 0u64..10_000, n in 1usize..300, k in 1usize..12) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let x = to_pts(&random_cloud(n, 1.0, &mut rng));
        let tree = KdTree::new(&x).unwrap();
        for q in to_pts(&random_cloud(20, 1.2, &mut rng)) {
            let mut d: Vec<(f64, usize)> = x.iter().enumerate().map(|(i, p)| ((p - q).norm(), i)).collect();
            d.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            let (i, di) = tree.nearest(&q);
            prop_assert_eq!(di, d[0].0);
            prop_assert_eq!(i, d[0].1);
            let kn = tree.k_nearest(&q, k);
            prop_assert_eq!(kn.len(), k.min(n));
            for (j, (idx, dist)) in kn.iter().enumerate() {
                prop_assert_eq!(*dist, d[j].0);
                prop_assert_eq!(*idx, d[j].1);
            }
            let r = 0.5;
            let mut w: Vec<usize> = d.iter().filter(|x| x.0 <= r).map(|x| x.1).collect();
            w.sort_unstable();
            prop_assert_eq!(tree.within(&q, r), w);
        }
    }
}

/// Spec's concrete case: cube corners (±0.05)³, GT = I, estimate = 90° about
/// z: ADD = 0.100 m, ADD-S = 0; correct under ADD-S < 2 cm, not under
/// ADD < 0.1·d with d = 0.1732 m (threshold 0.0173 m).
#[test]
fn cube_rotated_90_degrees() {
    let c = cube(0.05);
    let gt = Pose::identity();
    let est = pose(
        rotation_from_axis_angle([0.0, 0.0, std::f64::consts::FRAC_PI_2]).unwrap(),
        [0.0; 3],
    )
    .unwrap();
    let d_add = add(c.view(), &gt, &est).unwrap();
    // Each corner moves by √(2·0.05²·2) = 0.1 m.
    assert!((d_add - (2.0 * 0.05f64.powi(2) * 2.0).sqrt()).abs() < 1e-12);
    assert!((d_add - 0.1).abs() < 1e-12);
    assert!(add_s(c.view(), &gt, &est).unwrap() < 1e-12);
    let d = object_diameter(c.view()).unwrap();
    assert!((d - 0.173_205_080_756_887_7).abs() < 1e-12);
    let thr = DIAMETER_FRACTION * d;
    assert!((thr - 0.0173).abs() < 1e-4);
    let add_errs = array![d_add];
    let adds_errs = array![add_s(c.view(), &gt, &est).unwrap()];
    assert_eq!(
        accuracy_below(adds_errs.view(), ADD_S_THRESHOLD).unwrap(),
        1.0
    );
    assert_eq!(
        accuracy_diameter(add_errs.view(), d, DIAMETER_FRACTION).unwrap(),
        0.0
    );
}

/// Spec: AUC = 1 when all errors are 0; 0 when all are ≥ 0.1 (continuous
/// rule; the VOC rule gives 0 above 0.1 and counts an error equal to 0.1 as
/// 1/n — its right-endpoint sum, as in the YCB-Video toolbox).
#[test]
fn auc_extremes() {
    for n in [1, 5, 100] {
        let z = Array1::<f64>::zeros(n);
        assert_eq!(auc(z.view(), 0.1, AucRule::Continuous).unwrap(), 1.0);
        assert!((auc(z.view(), 0.1, AucRule::VocYcb).unwrap() - 1.0).abs() < 1e-15);
        let big = Array1::from_elem(n, 0.1);
        assert_eq!(auc(big.view(), 0.1, AucRule::Continuous).unwrap(), 0.0);
        assert!((auc(big.view(), 0.1, AucRule::VocYcb).unwrap() - 1.0 / n as f64).abs() < 1e-12);
        let huge = Array1::from_elem(n, f64::INFINITY);
        assert_eq!(auc(huge.view(), 0.1, AucRule::Continuous).unwrap(), 0.0);
        assert_eq!(auc(huge.view(), 0.1, AucRule::VocYcb).unwrap(), 0.0);
        let above = Array1::from_elem(n, 0.2);
        assert_eq!(auc(above.view(), 0.1, AucRule::VocYcb).unwrap(), 0.0);
    }
}

/// Hand-computed values. Errors {0.02, 0.05, 0.2}: continuous
/// (0.08 + 0.05 + 0)/(3·0.1) = 0.4333…; VOC: 0.02·(1/3) + 0.03·(2/3) +
/// 0.05·(2/3) = 0.06, /0.1 = 0.6. Accuracy curve at {0.01, 0.02, 0.1}: 0, 1/3, 2/3.
#[test]
fn auc_rules_by_hand() {
    let e = array![0.05, 0.02, 0.2];
    assert!((auc(e.view(), 0.1, AucRule::Continuous).unwrap() - 13.0 / 30.0).abs() < 1e-12);
    assert!((auc(e.view(), 0.1, AucRule::VocYcb).unwrap() - 0.6).abs() < 1e-12);
    let c = accuracy_curve(e.view(), &[0.01, 0.02, 0.1]).unwrap();
    assert_eq!(c, vec![0.0, 1.0 / 3.0, 2.0 / 3.0]);
    assert!((accuracy_below(e.view(), 0.05).unwrap() - 1.0 / 3.0).abs() < 1e-15);
    // Per-object vs pooled.
    let a = array![0.0, 0.0];
    let b = array![0.1];
    let per = auc_per_object(&[a.view(), b.view()], 0.1, AucRule::Continuous).unwrap();
    assert_eq!(per, vec![1.0, 0.0]);
    assert!(
        (auc_pooled(&[a.view(), b.view()], 0.1, AucRule::Continuous).unwrap() - 2.0 / 3.0).abs()
            < 1e-15
    );
}

/// The diameter is the largest pairwise distance (brute force), invariant
/// under rigid motion.
#[test]
fn diameter_is_the_largest_pair() {
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let x = random_cloud(200, 0.1, &mut rng);
    let p = to_pts(&x);
    let mut best = 0.0f64;
    for a in &p {
        for b in &p {
            best = best.max((a - b).norm());
        }
    }
    assert_eq!(object_diameter(x.view()).unwrap(), best);
    let t = pose(
        rotation_from_axis_angle([0.4, 0.1, -0.7]).unwrap(),
        [1.0, 2.0, 3.0],
    )
    .unwrap();
    let moved = Array2::from_shape_fn((200, 3), |(i, j)| (t * p[i])[j]);
    assert!((object_diameter(moved.view()).unwrap() - best).abs() < 1e-12);
    let _ = (Point3::<f64>::origin(), Vector3::<f64>::zeros());
}

/// The reusable ADD-S tree gives the same numbers as the one-shot functions.
#[test]
fn adds_struct_matches_functions() {
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    let x = random_cloud(100, 0.1, &mut rng);
    let m = AddS::new(x.view()).unwrap();
    let gt = pose(
        rotation_from_axis_angle([0.1, 0.2, 0.3]).unwrap(),
        [0.0, 0.1, 0.0],
    )
    .unwrap();
    let est = pose(
        rotation_from_axis_angle([0.2, 0.2, 0.3]).unwrap(),
        [0.01, 0.1, 0.0],
    )
    .unwrap();
    assert_eq!(
        m.error(&gt, &est).unwrap(),
        add_s(x.view(), &gt, &est).unwrap()
    );
    assert_eq!(m.add(&gt, &est).unwrap(), add(x.view(), &gt, &est).unwrap());
    assert_eq!(
        m.add_or_s(&gt, &est, true).unwrap(),
        m.error(&gt, &est).unwrap()
    );
}
