//! P3 (exact marginals by enumeration, n ≤ 12, to 1e-9) and P5 (successive
//! sampling's exact marginals; successive ≠ proportional on [3, 2, 1]).

#![allow(clippy::needless_range_loop)] // index loops over units read clearer in tests

use fair_lottery::exact::{
    DesignTable, cps_design, pipage_design, sampford_design, successive_marginals,
    systematic_design, systematic_random_order_design,
};
use fair_lottery::probs::{Selection, inclusion_probs};
use fair_lottery::sampler::{ConditionalPoisson, ExactMarginals, FixedSizeSampler, Successive};
use mlcore::sampling::seeded;
use rand::RngExt;
use rand::seq::SliceRandom;

const SPEC_C: [f64; 6] = [0.9, 0.8, 0.5, 0.3, 0.2, 0.1];

fn assert_close(a: &[f64], b: &[f64], tol: f64, what: &str) {
    assert_eq!(a.len(), b.len());
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        assert!(
            (x - y).abs() <= tol,
            "{what}: unit {i}: {x} vs {y} (tol {tol})"
        );
    }
}

fn check_table(t: &DesignTable, sel: &Selection, what: &str) {
    assert!(
        (t.total() - 1.0).abs() < 1e-12,
        "{what}: total {}",
        t.total()
    );
    assert!(
        t.all_of_size(sel.k()),
        "{what}: a set without exactly k winners"
    );
    assert_close(&t.marginals(), sel.pi(), 1e-9, what);
}

/// Random claim vectors (some zero, some tied, some capped) for n ≤ 12.
fn cases() -> Vec<Selection> {
    let mut out = vec![
        Selection::proportional(&SPEC_C, 3).unwrap(),
        Selection::proportional(&[3.0, 2.0, 1.0], 2).unwrap(),
        Selection::proportional(&[1.0; 7], 3).unwrap(),
        Selection::new(vec![0.5, 0.5, 1.0, 0.0, 0.25, 0.75]).unwrap(),
    ];
    let mut rng = seeded(42);
    for n in [5usize, 8, 10, 12] {
        for _ in 0..3 {
            let c: Vec<f64> = (0..n)
                .map(|i| {
                    if i % 5 == 4 {
                        0.0
                    } else {
                        rng.random::<f64>().powi(2) * 10.0
                    }
                })
                .collect();
            let positive = c.iter().filter(|&&x| x > 0.0).count();
            let k = rng.random_range(1..=positive.min(n - 1));
            out.push(Selection::proportional(&c, k).unwrap());
        }
    }
    out
}

#[test]
fn spec_capping_values() {
    let pi = inclusion_probs(&SPEC_C, 3).unwrap();
    let expect = [0.9643, 0.8571, 0.5357, 0.3214, 0.2143, 0.1071];
    assert_close(&pi, &expect, 5e-5, "spec case");
    // exact: κ = 3/2.8, no capping.
    assert_close(&pi, &SPEC_C.map(|c| c * 3.0 / 2.8), 1e-15, "κ = 3/2.8");
    let pi = inclusion_probs(&[3.0, 2.0, 1.0], 2).unwrap();
    assert_close(&pi, &[1.0, 2.0 / 3.0, 1.0 / 3.0], 1e-15, "[3,2,1]");
}

/// P3, systematic: exact integration over U, for several fixed orders and
/// (m ≤ 8) over all orders, reproduces π to 1e-9.
#[test]
fn p3_systematic_exact_integration_matches_pi() {
    let mut rng = seeded(3);
    for sel in cases() {
        let m = sel.lottery().len();
        for _ in 0..3 {
            let mut order: Vec<usize> = (0..m).collect();
            order.shuffle(&mut rng);
            check_table(
                &systematic_design(&sel, &order).unwrap(),
                &sel,
                "systematic fixed order",
            );
        }
        if m <= 7 {
            check_table(
                &systematic_random_order_design(&sel).unwrap(),
                &sel,
                "systematic random order",
            );
        }
    }
}

/// P3, pipage: the recursion over all coin flips reproduces π to 1e-9, and
/// the design is negatively correlated (πᵢⱼ ≤ πᵢπⱼ).
#[test]
fn p3_pipage_recursion_matches_pi_and_is_negatively_correlated() {
    let mut rng = seeded(4);
    for sel in cases() {
        let m = sel.lottery().len();
        let mut order: Vec<usize> = (0..m).collect();
        order.shuffle(&mut rng);
        let t = pipage_design(&sel, &order).unwrap();
        check_table(&t, &sel, "pipage");
        let j = t.joint();
        let pi = sel.pi();
        for a in 0..sel.n() {
            for b in 0..sel.n() {
                if a != b {
                    assert!(
                        j[[a, b]] <= pi[a] * pi[b] + 1e-12,
                        "πᵢⱼ > πᵢπⱼ at ({a},{b})"
                    );
                }
            }
        }
    }
}

/// P3, conditional Poisson: the enumerated design ∝ Π wᵢ with the calibrated
/// weights reproduces π to 1e-9, and its πᵢⱼ equal the sampler's joint().
#[test]
fn p3_cps_enumeration_matches_pi_and_joint() {
    for sel in cases() {
        let cps = ConditionalPoisson::new(&sel).unwrap();
        let t = cps_design(&cps, &sel).unwrap();
        check_table(&t, &sel, "cps");
        let j = cps.joint().unwrap();
        let je = t.joint();
        for a in 0..sel.n() {
            for b in 0..sel.n() {
                assert!(
                    (j[[a, b]] - je[[a, b]]).abs() < 1e-9,
                    "πᵢⱼ at ({a},{b}): {} vs {}",
                    j[[a, b]],
                    je[[a, b]]
                );
            }
        }
        assert_close(
            &cps.design_marginals(),
            sel.pi(),
            1e-11,
            "cps design marginals",
        );
    }
}

/// P3, Sampford: the rejective formula's enumerated design has marginals π (1e-9).
#[test]
fn p3_sampford_formula_matches_pi() {
    for sel in cases() {
        check_table(&sampford_design(&sel).unwrap(), &sel, "sampford");
    }
}

/// P5: successive sampling on [3, 2, 1], k = 2 has marginals [0.85, 0.733, 0.417]
/// (spec), not the proportional [1, 2/3, 1/3]; the spec's second case too.
#[test]
fn p5_successive_enumeration_known_values_and_not_proportional() {
    let s = successive_marginals(&[3.0, 2.0, 1.0], 2).unwrap();
    // closed form: π₁ = 1/2 + 1/3·3/4 + 1/6·3/5 = 0.85.
    assert_close(
        &s,
        &[0.85, 0.7333333333333333, 0.4166666666666667],
        1e-12,
        "[3,2,1]",
    );
    let prop = inclusion_probs(&[3.0, 2.0, 1.0], 2).unwrap();
    assert!(s.iter().zip(&prop).any(|(a, b)| (a - b).abs() > 0.1));
    let s = successive_marginals(&SPEC_C, 3).unwrap();
    assert_close(
        &s,
        &[0.8033, 0.7679, 0.5992, 0.4023, 0.2810, 0.1464],
        6e-5,
        "spec case",
    );
    assert!((s.iter().sum::<f64>() - 3.0).abs() < 1e-12);
}

/// P5: successive-sampling enumeration equals Monte Carlo (2e5 draws, 5.5σ
/// per unit; family-wise false-failure < 6·4e-8).
#[test]
fn p5_successive_enumeration_equals_monte_carlo() {
    let exact = successive_marginals(&SPEC_C, 3).unwrap();
    let s = Successive::new(&SPEC_C, 3).unwrap();
    let mut rng = seeded(5);
    let draws = 200_000;
    let mut hits = [0usize; 6];
    for _ in 0..draws {
        let d = s.sample(&mut rng);
        assert_eq!(d.len(), 3);
        for i in d {
            hits[i] += 1;
        }
    }
    for i in 0..6 {
        let p = exact[i];
        let phat = hits[i] as f64 / draws as f64;
        let sd = (p * (1.0 - p) / draws as f64).sqrt();
        assert!((phat - p).abs() <= 5.5 * sd, "unit {i}: {phat} vs {p}");
    }
}

/// The exact successive DP agrees with a direct sum over ordered sequences.
#[test]
fn successive_dp_equals_ordered_enumeration() {
    let w = [0.4, 2.0, 1.0, 0.0, 3.5, 0.7, 1.2];
    let k = 3;
    let total: f64 = w.iter().sum();
    let n = w.len();
    let mut pi = vec![0.0; n];
    for a in 0..n {
        for b in 0..n {
            for c in 0..n {
                if a == b || b == c || a == c {
                    continue;
                }
                let p = w[a] / total * w[b] / (total - w[a]) * w[c] / (total - w[a] - w[b]);
                for i in [a, b, c] {
                    pi[i] += p;
                }
            }
        }
    }
    assert_close(
        &successive_marginals(&w, k).unwrap(),
        &pi,
        1e-12,
        "ordered sum",
    );
}

/// The samplers report exactly the prescribed π as their marginals.
#[test]
fn samplers_report_prescribed_marginals() {
    let sel = Selection::proportional(&SPEC_C, 3).unwrap();
    let cps = ConditionalPoisson::new(&sel).unwrap();
    assert_eq!(cps.marginals(), sel.pi());
}
