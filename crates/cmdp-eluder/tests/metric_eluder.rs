//! P1 (Hellinger properties) and P2 (Eluder dimension properties).

use cmdp_eluder::Error;
use cmdp_eluder::eluder::{MAX_DOMAIN, bernoulli_outputs, eluder_dimension};
use cmdp_eluder::metric::{
    abs_metric, hellinger, hellinger_metric, hellinger_sq, total_variation, tv_metric,
};
use ndarray::{Array1, Array2, ArrayView1, array};
use proptest::prelude::*;

fn dist(raw: Vec<f64>) -> Array1<f64> {
    let s: f64 = raw.iter().sum();
    Array1::from(raw.into_iter().map(|x| x / s).collect::<Vec<_>>())
}

fn raw_vec(n: usize) -> impl Strategy<Value = Vec<f64>> {
    prop::collection::vec(prop_oneof![Just(0.0), 0.001f64..1.0], n)
        .prop_filter("non-zero", |v| v.iter().sum::<f64>() > 0.0)
}

proptest! {
    /// P1: H ∈ [0, 1], symmetric, triangle inequality, and
    /// H² ≤ TV ≤ √2·H (Le Cam, with H² = ½Σ(√p − √q)²), all to 1e-12.
    #[test]
    fn p1_hellinger_is_a_metric_and_le_cam_bounds_hold(a in raw_vec(5), b in raw_vec(5), c in raw_vec(5)) {
        let (p, q, r) = (dist(a), dist(b), dist(c));
        let hpq = hellinger(p.view(), q.view()).unwrap();
        let hqp = hellinger(q.view(), p.view()).unwrap();
        let hpr = hellinger(p.view(), r.view()).unwrap();
        let hrq = hellinger(r.view(), q.view()).unwrap();
        prop_assert!((0.0..=1.0).contains(&hpq));
        prop_assert!((hpq - hqp).abs() <= 1e-12);
        prop_assert!(hpq <= hpr + hrq + 1e-12);
        let h2 = hellinger_sq(p.view(), q.view()).unwrap();
        let tv = total_variation(p.view(), q.view()).unwrap();
        prop_assert!((h2 - hpq * hpq).abs() <= 1e-12);
        prop_assert!(h2 <= tv + 1e-12, "H² = {h2} > TV = {tv}");
        prop_assert!(tv <= 2f64.sqrt() * hpq + 1e-12, "TV = {tv} > √2·H = {}", 2f64.sqrt() * hpq);
        prop_assert!(hellinger(p.view(), p.view()).unwrap() <= 1e-12);
    }
}

#[test]
fn hellinger_known_values() {
    // Disjoint supports: H = 1, TV = 1.
    let p = array![1.0, 0.0];
    let q = array![0.0, 1.0];
    assert_eq!(hellinger(p.view(), q.view()).unwrap(), 1.0);
    assert_eq!(total_variation(p.view(), q.view()).unwrap(), 1.0);
    // (1/2, 1/2) vs (1, 0): H² = ½((√½ − 1)² + ½) = 1 − √½.
    let r = array![0.5, 0.5];
    let h2 = hellinger_sq(r.view(), p.view()).unwrap();
    assert!((h2 - (1.0 - 0.5f64.sqrt())).abs() < 1e-15);
}

#[test]
fn metric_bad_input() {
    let p = array![0.5, 0.5];
    assert!(matches!(
        hellinger(p.view(), array![1.0].view()),
        Err(Error::DimensionMismatch { .. })
    ));
    assert!(matches!(
        hellinger(p.view(), array![0.7, 0.7].view()),
        Err(Error::InvalidDistribution { .. })
    ));
    assert!(matches!(
        total_variation(array![-0.5, 1.5].view(), p.view()),
        Err(Error::InvalidDistribution { .. })
    ));
    assert!(matches!(
        hellinger_sq(array![f64::NAN, 1.0].view(), p.view()),
        Err(Error::InvalidDistribution { .. })
    ));
    assert!(hellinger_metric(p.view(), array![2.0, 0.0].view()).is_nan());
}

/// Independent brute force straight from the definition: every ordered
/// sequence of distinct points; an admissible common ε' exists iff one of
/// the candidates {ε} ∪ {√(prefix sums)} ≥ ε is admissible (the admissible
/// set is a finite union of intervals closed on the left). The sum
/// constraint is compared as √(Σ) ≤ ε' (as the fast routine does), so that
/// the boundary ε' = √(Σ) is not lost to the rounding of (√Σ)².
fn eluder_naive(
    outputs: &[Array2<f64>],
    eps: f64,
    metric: fn(ArrayView1<'_, f64>, ArrayView1<'_, f64>) -> f64,
) -> usize {
    let nx = outputs[0].nrows();
    let m = outputs.len();
    let d = |a: usize, b: usize, x: usize| metric(outputs[a].row(x), outputs[b].row(x));
    fn perms(nx: usize, cur: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
        out.push(cur.clone());
        for x in 0..nx {
            if !cur.contains(&x) {
                cur.push(x);
                perms(nx, cur, out);
                cur.pop();
            }
        }
    }
    let mut all = Vec::new();
    perms(nx, &mut Vec::new(), &mut all);
    let mut best = 0;
    for seq in all {
        if seq.len() <= best {
            continue;
        }
        let mut cands = vec![eps];
        for k in 0..seq.len() {
            for a in 0..m {
                for b in 0..m {
                    let s: f64 = seq[..k].iter().map(|&x| d(a, b, x).powi(2)).sum();
                    if s.sqrt() >= eps {
                        cands.push(s.sqrt());
                    }
                }
            }
        }
        let ok = cands.iter().any(|&e| {
            (0..seq.len()).all(|k| {
                (0..m).any(|a| {
                    (0..m).any(|b| {
                        let s: f64 = seq[..k].iter().map(|&x| d(a, b, x).powi(2)).sum();
                        s.sqrt() <= e && d(a, b, seq[k]) > e
                    })
                })
            })
        });
        if ok {
            best = seq.len();
        }
    }
    best
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]
    /// P2: d_E ≤ |X|, non-increasing in ε, and equal to the naive
    /// definition-level brute force on tiny classes (Hellinger and TV).
    #[test]
    fn p2_eluder_bounded_monotone_and_exact(
        table in prop::collection::vec(prop::collection::vec(0.05f64..0.95, 4), 2..4),
    ) {
        let class = bernoulli_outputs(&table).unwrap();
        let mut prev = usize::MAX;
        for &eps in &[0.01, 0.05, 0.1, 0.2, 0.4] {
            let r = eluder_dimension(&class, eps, hellinger_metric).unwrap();
            prop_assert!(r.dimension <= 4);
            prop_assert!(r.dimension <= prev, "d_E not monotone: {} then {}", prev, r.dimension);
            prop_assert!(r.eps_prime >= eps);
            prop_assert_eq!(r.sequence.len(), r.dimension);
            prop_assert_eq!(r.dimension, eluder_naive(&class, eps, hellinger_metric));
            let t = eluder_dimension(&class, eps, tv_metric).unwrap();
            prop_assert_eq!(t.dimension, eluder_naive(&class, eps, tv_metric));
            prev = r.dimension;
        }
    }
}

#[test]
fn p2_singleton_class_has_dimension_zero() {
    let class = bernoulli_outputs(&[vec![0.3, 0.6, 0.9]]).unwrap();
    assert_eq!(
        eluder_dimension(&class, 0.01, hellinger_metric)
            .unwrap()
            .dimension,
        0
    );
    // Two identical models: still 0.
    let class = bernoulli_outputs(&[vec![0.3, 0.6, 0.9], vec![0.3, 0.6, 0.9]]).unwrap();
    assert_eq!(
        eluder_dimension(&class, 0.01, hellinger_metric)
            .unwrap()
            .dimension,
        0
    );
}

#[test]
fn p2_full_tabular_class_has_dimension_domain_size() {
    // All 2^|X| maps X → {Bern(0.2), Bern(0.8)}, |X| = 5.
    let nx = 5;
    let table: Vec<Vec<f64>> = (0..1 << nx)
        .map(|k: usize| {
            (0..nx)
                .map(|x| if (k >> x) & 1 == 1 { 0.8 } else { 0.2 })
                .collect()
        })
        .collect();
    let class = bernoulli_outputs(&table).unwrap();
    let r = eluder_dimension(&class, 0.05, hellinger_metric).unwrap();
    assert_eq!(r.dimension, nx);
    // Above the distance between the two outputs nothing is independent.
    let h = hellinger(array![0.2, 0.8].view(), array![0.8, 0.2].view()).unwrap();
    assert_eq!(
        eluder_dimension(&class, h + 1e-9, hellinger_metric)
            .unwrap()
            .dimension,
        0
    );
}

#[test]
fn eluder_one_parameter_class_is_one() {
    // A "threshold-free" one-parameter class: P_θ(x) = Bern(θ) for every x.
    // Once a point separates two models, every later point has the same
    // distance, so the sum constraint binds: d_E = 1 at ε below the gaps.
    let table: Vec<Vec<f64>> = [0.2, 0.5, 0.8].iter().map(|&t| vec![t; 4]).collect();
    let r = eluder_dimension(&bernoulli_outputs(&table).unwrap(), 0.01, hellinger_metric).unwrap();
    assert_eq!(r.dimension, 1);
    // Real-valued (reward) class with the absolute-difference metric.
    let rc: Vec<Array2<f64>> = table
        .iter()
        .map(|row| Array2::from_shape_fn((4, 1), |(x, _)| row[x]))
        .collect();
    assert_eq!(
        eluder_dimension(&rc, 0.01, abs_metric).unwrap().dimension,
        1
    );
}

#[test]
fn eluder_bad_input() {
    let c = bernoulli_outputs(&[vec![0.3, 0.6]]).unwrap();
    assert!(matches!(
        eluder_dimension(&[], 0.1, hellinger_metric),
        Err(Error::EmptyClass { .. })
    ));
    assert!(matches!(
        eluder_dimension(&[Array2::zeros((0, 2))], 0.1, hellinger_metric),
        Err(Error::EmptyClass { .. })
    ));
    assert!(matches!(
        eluder_dimension(&c, 0.0, hellinger_metric),
        Err(Error::InvalidParameter { .. })
    ));
    assert!(matches!(
        eluder_dimension(&c, f64::NAN, hellinger_metric),
        Err(Error::InvalidParameter { .. })
    ));
    let mixed = vec![c[0].clone(), Array2::zeros((3, 2))];
    assert!(matches!(
        eluder_dimension(&mixed, 0.1, hellinger_metric),
        Err(Error::DimensionMismatch { .. })
    ));
    let bad = vec![c[0].clone(), Array2::from_elem((2, 2), 0.9)];
    assert!(matches!(
        eluder_dimension(&bad, 0.1, hellinger_metric),
        Err(Error::InvalidMetric { .. })
    ));
    let big = vec![Array2::from_elem((MAX_DOMAIN + 1, 2), 0.5)];
    assert!(matches!(
        eluder_dimension(&big, 0.1, hellinger_metric),
        Err(Error::DomainTooLarge { .. })
    ));
}
