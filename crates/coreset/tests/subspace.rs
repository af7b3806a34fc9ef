//! ℓp subspace approximation: the reweighted-PCA fit and row subsets that
//! span a (1 + ε)-approximate subspace (1 < p < 2).

use coreset::Error;
use coreset::subspace::{
    RowSubsetOptions, SubspaceOptions, check_row_subset, fit_subspace, row_subset, subspace_cost,
};
use mlcore::linalg;
use mlcore::sampling::{seeded, standard_normal};
use ndarray::{Array2, Axis, array, s};
use rand::RngExt;
use rand_distr::StudentT;

/// Rank-`k` signal in dimension `d`, plus t₂ noise of scale 0.3 and a few
/// rows scaled by 20 (heavy rows the fit must not chase).
fn data(n: usize, d: usize, k: usize, seed: u64) -> Array2<f64> {
    let mut rng = seeded(seed);
    let u: Array2<f64> = standard_normal((n, k), &mut rng);
    let v: Array2<f64> = standard_normal((k, d), &mut rng);
    let t = StudentT::new(2.0).unwrap();
    let noise = Array2::from_shape_simple_fn((n, d), || 0.3 * rng.sample(t));
    let mut a = u.dot(&v) + noise;
    for i in (0..n).step_by(n / 5) {
        a.row_mut(i).mapv_inplace(|x| 20.0 * x);
    }
    a
}

/// At p = 2 the fit is the SVD: its cost is the sum of the trailing squared
/// singular values.
#[test]
fn p2_fit_is_the_svd() {
    let a = data(300, 8, 3, 1);
    let fit = fit_subspace(a.view(), 3, 2.0, None, &SubspaceOptions::default()).unwrap();
    let sv = linalg::svd(a.view()).unwrap().s;
    let tail: f64 = sv.iter().skip(3).map(|x| x * x).sum();
    assert!(
        (fit.cost - tail).abs() <= 1e-9 * tail,
        "{} vs {tail}",
        fit.cost
    );
    assert_eq!(fit.iterations, 0);
    let gram = fit.basis.t().dot(&fit.basis);
    assert!(
        (gram - Array2::<f64>::eye(3))
            .iter()
            .all(|v| v.abs() < 1e-12)
    );
}

/// For 1 ≤ p < 2 the reweighted fit is never worse than the SVD subspace,
/// and it is a local optimum: no small rotation of the basis lowers the cost.
#[test]
fn lp_fit_beats_svd_and_is_locally_optimal() {
    let a = data(400, 8, 2, 2);
    for p in [1.0, 1.5] {
        let fit = fit_subspace(a.view(), 2, p, None, &SubspaceOptions::default()).unwrap();
        let svd = fit_subspace(a.view(), 2, 2.0, None, &SubspaceOptions::default()).unwrap();
        let svd_cost = subspace_cost(a.view(), svd.basis.view(), p, None).unwrap();
        assert!(
            fit.cost < svd_cost,
            "p = {p}: {} vs SVD {svd_cost}",
            fit.cost
        );
        for k in 0..20 {
            let h: Array2<f64> = standard_normal((8, 2), &mut seeded(50 + k));
            let moved = &fit.basis + &(h * 1e-4);
            let c = subspace_cost(a.view(), moved.view(), p, None).unwrap();
            assert!(c >= fit.cost * (1.0 - 1e-7), "p = {p}: {c} < {}", fit.cost);
        }
    }
}

/// The paper's subspace claim (1 < p < 2, here p = 1.5, k = 3, ε = 0.2):
/// a subset of ⌈k/ε⌉ = 15 of 3000 rows spans a subspace whose cost on all
/// rows is within 1 + ε of the full-data fit, in at least 9 of 10 seeds.
/// The fitted basis lies in the span of the chosen rows. (With c = 0.2, i.e.
/// 4 rows, the ratio is 1.3–2.0: the bound is not met by accident.)
#[test]
fn row_subset_spans_a_near_optimal_subspace() {
    let (k, p) = (3, 1.5);
    let a = data(3000, 20, k, 3);
    let opts = RowSubsetOptions::default();
    let mut ok = 0;
    for seed in 0..10 {
        let sub = row_subset(a.view(), k, p, &opts, &mut seeded(seed)).unwrap();
        assert!(sub.indices.len() <= 15);
        let rows = a.select(Axis(0), &sub.indices);
        // Basis columns are combinations of the chosen rows.
        let f = linalg::svd(rows.t()).unwrap();
        let q = f.u.slice(s![.., ..f.rank()]).to_owned();
        let resid = &sub.subspace.basis - &q.dot(&q.t().dot(&sub.subspace.basis));
        assert!(resid.iter().all(|v| v.abs() < 1e-10));
        let check = check_row_subset(a.view(), &sub, k, p, &SubspaceOptions::default()).unwrap();
        // The SVD subspace is not good enough here, so the check has teeth.
        assert!(check.svd_cost > (1.0 + opts.epsilon) * check.reference_cost);
        if check.ratio() <= 1.0 + opts.epsilon {
            ok += 1;
        }
    }
    assert!(ok >= 9, "only {ok} of 10 subsets within 1 + ε");
}

/// Bad input returns typed errors.
#[test]
fn subspace_entry_points_reject_bad_input() {
    let a = array![[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]];
    let o = SubspaceOptions::default();
    assert!(matches!(
        fit_subspace(a.view(), 1, 3.0, None, &o),
        Err(Error::InvalidParameter { name: "p", .. })
    ));
    assert!(matches!(
        fit_subspace(a.view(), 1, 0.5, None, &o),
        Err(Error::InvalidP { .. })
    ));
    assert!(matches!(
        fit_subspace(a.view(), 0, 1.5, None, &o),
        Err(Error::InvalidParameter { name: "k", .. })
    ));
    assert!(matches!(
        fit_subspace(a.view(), 3, 1.5, None, &o),
        Err(Error::InvalidParameter { name: "k", .. })
    ));
    let z = Array2::<f64>::zeros((3, 2));
    assert!(matches!(
        fit_subspace(z.view(), 1, 1.5, None, &o),
        Err(Error::ZeroMatrix { .. })
    ));
    let mut nan = a.clone();
    nan[[2, 1]] = f64::NAN;
    assert!(matches!(
        fit_subspace(nan.view(), 1, 1.5, None, &o),
        Err(Error::NonFinite { row: 2, col: 1, .. })
    ));
    let e = Array2::<f64>::zeros((0, 2));
    assert!(matches!(
        fit_subspace(e.view(), 1, 1.5, None, &o),
        Err(Error::EmptyInput { .. })
    ));
    let w = array![1.0, -2.0, 1.0];
    assert!(matches!(
        fit_subspace(a.view(), 1, 1.5, Some(w.view()), &o),
        Err(Error::InvalidWeights { index: 1, .. })
    ));
    let bad = RowSubsetOptions {
        epsilon: 1.5,
        ..Default::default()
    };
    assert!(matches!(
        row_subset(a.view(), 1, 1.5, &bad, &mut seeded(0)),
        Err(Error::InvalidEpsilon { .. })
    ));
    let bad_c = RowSubsetOptions {
        c: 0.0,
        ..Default::default()
    };
    assert!(matches!(
        row_subset(a.view(), 1, 1.5, &bad_c, &mut seeded(0)),
        Err(Error::InvalidParameter { .. })
    ));
    assert!(matches!(
        row_subset(z.view(), 1, 1.5, &Default::default(), &mut seeded(0)),
        Err(Error::ZeroMatrix { .. })
    ));
    let basis = array![[1.0], [0.0], [0.0]];
    assert!(matches!(
        subspace_cost(a.view(), basis.view(), 1.5, None),
        Err(Error::ShapeMismatch { .. })
    ));
}
