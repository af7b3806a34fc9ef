//! The multiple-response IRLS solver: closed forms and first-order optimality.

use coreset::regression::{IrlsOptions, cost, solve};
use mlcore::sampling::{seeded, standard_normal};
use ndarray::{Array1, Array2, Axis, array};
use rand::RngExt;
use rand_distr::StudentT;

fn data(n: usize, d: usize, m: usize, seed: u64) -> (Array2<f64>, Array2<f64>) {
    let mut rng = seeded(seed);
    let t = StudentT::new(3.0).unwrap();
    let a: Array2<f64> = standard_normal((n, d), &mut rng);
    let x0: Array2<f64> = standard_normal((d, m), &mut rng);
    let noise = Array2::from_shape_simple_fn((n, m), || rng.sample(t));
    let b = a.dot(&x0) + noise;
    (a, b)
}

/// p = 2 is least squares.
#[test]
fn p2_matches_least_squares() {
    let (a, b) = data(200, 4, 3, 1);
    let sol = solve(a.view(), b.view(), 2.0, None, &IrlsOptions::default()).unwrap();
    let ls = mlcore::linalg::lstsq(a.view(), b.view()).unwrap().x;
    assert!((&sol.x - &ls).iter().all(|e| e.abs() < 1e-10));
    assert_eq!(sol.iterations, vec![0, 0, 0]);
}

/// p = 1 with A = 1 (a column of ones) is the median, per column; weighted
/// rows give the weighted median.
#[test]
fn p1_location_is_the_median() {
    let b = array![
        [3.0, -1.0],
        [1.0, 10.0],
        [7.0, 2.0],
        [2.0, 0.5],
        [100.0, 4.0]
    ];
    let a = Array2::ones((5, 1));
    let sol = solve(a.view(), b.view(), 1.0, None, &IrlsOptions::default()).unwrap();
    // Medians 3 and 2; the cost at the median is exact.
    let opt = cost(a.view(), b.view(), array![[3.0, 2.0]].view(), 1.0, None).unwrap();
    assert!((sol.cost - opt) / opt < 1e-7, "{} vs {opt}", sol.cost);
    assert!((sol.x[[0, 0]] - 3.0).abs() < 1e-4 && (sol.x[[0, 1]] - 2.0).abs() < 1e-4);
    // Weight 10 on row 4 moves the first median to 100.
    let w = array![1.0, 1.0, 1.0, 1.0, 10.0];
    let sol = solve(
        a.view(),
        b.view(),
        1.0,
        Some(w.view()),
        &IrlsOptions::default(),
    )
    .unwrap();
    assert!((sol.x[[0, 0]] - 100.0).abs() < 1e-3);
}

/// No coordinate perturbation lowers the cost (finite differences, every p);
/// for p ≥ 2 the gradient p Aᵀ(|R|^{p−1} ∘ sign R) also vanishes relative to
/// its size at the least-squares start. (For 1 < p < 2 the gradient is only
/// Hölder-(p − 1) continuous in X, so a 1e-4 gradient would need X to
/// 1e-4^{1/(p−1)} relative accuracy, below f64 for p near 1; the finite
/// differences are the check there.)
#[test]
fn solution_is_first_order_optimal() {
    let (a, b) = data(300, 5, 4, 2);
    for p in [1.0, 1.2, 1.5, 3.0, 4.0, 8.0] {
        let sol = solve(a.view(), b.view(), p, None, &IrlsOptions::default()).unwrap();
        let f = sol.cost;
        assert!((f - cost(a.view(), b.view(), sol.x.view(), p, None).unwrap()).abs() < 1e-9 * f);
        assert!((sol.column_costs.sum() - f).abs() < 1e-9 * f);
        for k in 0..5 {
            for j in 0..4 {
                for h in [1e-3, -1e-3] {
                    let mut x = sol.x.clone();
                    x[[k, j]] += h;
                    let fh = cost(a.view(), b.view(), x.view(), p, None).unwrap();
                    assert!(fh >= f * (1.0 - 1e-9), "p = {p}: {fh} < {f}");
                }
            }
        }
        if p >= 2.0 {
            let grad = |x: &Array2<f64>| {
                let r = a.dot(x) - &b;
                a.t().dot(&r.mapv(|v| v.signum() * v.abs().powf(p - 1.0))) * p
            };
            let ls = mlcore::linalg::lstsq(a.view(), b.view()).unwrap().x;
            let g0 = grad(&ls).iter().map(|v| v.abs()).fold(0.0, f64::max);
            let g = grad(&sol.x).iter().map(|v| v.abs()).fold(0.0, f64::max);
            assert!(g < 1e-4 * g0, "p = {p}: gradient {g} vs {g0}");
        }
    }
}

/// Rank-deficient A: same cost as with the independent columns only.
#[test]
fn rank_deficient_a_is_solved_in_its_column_span() {
    let (a, b) = data(200, 3, 2, 3);
    let mut a2 = Array2::zeros((200, 4));
    a2.slice_mut(ndarray::s![.., ..3]).assign(&a);
    let c: Array1<f64> = &a.column(0) + &a.column(2);
    a2.column_mut(3).assign(&c);
    for p in [1.5, 3.0] {
        let s1 = solve(a.view(), b.view(), p, None, &IrlsOptions::default()).unwrap();
        let s2 = solve(a2.view(), b.view(), p, None, &IrlsOptions::default()).unwrap();
        assert!((s1.cost - s2.cost).abs() < 1e-8 * s1.cost);
        assert_eq!(s2.x.len_of(Axis(0)), 4);
    }
}

/// Columns are solved in parallel with bit-for-bit the same result as on
/// one thread (p = 1.5 and p = 3, 24 columns).
#[test]
fn parallel_columns_match_the_serial_run() {
    let mut rng = seeded(21);
    let a: Array2<f64> = standard_normal((500, 4), &mut rng);
    let b = a.dot(&standard_normal::<_, _>((4, 24), &mut rng))
        + standard_normal::<_, _>((500, 24), &mut rng).mapv(|v| v * v * v);
    for p in [1.5, 3.0] {
        let run = |threads: usize| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(|| solve(a.view(), b.view(), p, None, &IrlsOptions::default()).unwrap())
        };
        let (one, four) = (run(1), run(4));
        assert_eq!(one.x, four.x);
        assert_eq!(one.iterations, four.iterations);
        assert_eq!(one.cost.to_bits(), four.cost.to_bits());
    }
}
