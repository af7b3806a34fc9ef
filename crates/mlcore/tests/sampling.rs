//! Sampling: alias-table frequencies, weighted draws without replacement,
//! Gaussian moments, and seed reproducibility.

use mlcore::sampling::{self, AliasTable, MultivariateNormal, seeded};
use ndarray::{Array2, array};
use proptest::prelude::*;
use rand::RngExt;
use rand::distr::Distribution;

/// Pearson's chi-square statistic of observed counts against probabilities.
fn chi_square(counts: &[u64], p: &[f64]) -> f64 {
    let n: u64 = counts.iter().sum();
    counts
        .iter()
        .zip(p)
        .filter(|&(_, &p)| p > 0.0)
        .map(|(&c, &p)| {
            let e = p * n as f64;
            (c as f64 - e).powi(2) / e
        })
        .sum()
}

/// Alias-table draws pass a chi-square goodness-of-fit test at level 1e-6
/// (critical value χ²₅(1 − 1e-6) = 35.89, from scipy), and a zero weight is never drawn.
#[test]
fn alias_table_frequencies_pass_chi_square() {
    let w = [1.0, 2.0, 3.0, 4.0, 0.0, 10.0, 0.5];
    let table = AliasTable::new(&w).unwrap();
    let mut rng = seeded(2024);
    let mut counts = [0u64; 7];
    for _ in 0..200_000 {
        counts[table.sample(&mut rng)] += 1;
    }
    assert_eq!(counts[4], 0);
    let stat = chi_square(&counts, table.probabilities());
    assert!(
        stat < 35.888,
        "chi-square {stat} over 6 positive categories (df 5)"
    );
}

/// A skewed table (one weight 1e6 times the others) still passes.
#[test]
fn alias_table_handles_extreme_skew() {
    let mut w = vec![1.0; 10];
    w[3] = 1e6;
    let table = AliasTable::new(&w).unwrap();
    let mut rng = seeded(1);
    let n = 100_000;
    let hits = (0..n).filter(|_| table.sample(&mut rng) == 3).count();
    let p = table.probabilities()[3];
    let sd = (p * (1.0 - p) * n as f64).sqrt();
    assert!((hits as f64 - p * n as f64).abs() < 6.0 * sd.max(1.0));
}

/// The first of the successive draws without replacement is distributed as
/// the weights (chi-square at level 1e-6, df 4: 33.38); all draws are distinct
/// and never a zero-weight index.
#[test]
fn without_replacement_first_draw_matches_weights() {
    let w = [5.0, 1.0, 0.0, 3.0, 2.0, 9.0];
    let total: f64 = w.iter().sum();
    let p: Vec<f64> = w.iter().map(|x| x / total).collect();
    let mut rng = seeded(99);
    let mut counts = [0u64; 6];
    for _ in 0..100_000 {
        let draw = sampling::sample_without_replacement(&w, 3, &mut rng).unwrap();
        assert_eq!(draw.len(), 3);
        assert!(!draw.contains(&2));
        assert!(draw[0] != draw[1] && draw[1] != draw[2] && draw[0] != draw[2]);
        counts[draw[0]] += 1;
    }
    let stat = chi_square(&counts, &p);
    assert!(stat < 33.377, "chi-square {stat}");
}

/// Second draw: P(second = j) = Σᵢ pᵢ pⱼ / (1 − pᵢ), checked by chi-square (df 2: 27.63).
#[test]
fn without_replacement_second_draw_follows_successive_sampling() {
    let w = [1.0, 2.0, 7.0];
    let p = [0.1, 0.2, 0.7];
    let expect: Vec<f64> = (0..3)
        .map(|j| {
            (0..3)
                .filter(|&i| i != j)
                .map(|i| p[i] * p[j] / (1.0 - p[i]))
                .sum()
        })
        .collect();
    let mut rng = seeded(5);
    let mut counts = [0u64; 3];
    for _ in 0..100_000 {
        counts[sampling::sample_without_replacement(&w, 2, &mut rng).unwrap()[1]] += 1;
    }
    assert!(chi_square(&counts, &expect) < 27.631);
}

/// Sample mean and covariance of a multivariate normal are within 6 standard errors of μ and Σ.
#[test]
fn multivariate_normal_moments() {
    let mean = array![1.0, -2.0, 0.5];
    let cov = array![[2.0, 0.6, -0.3], [0.6, 1.0, 0.2], [-0.3, 0.2, 0.5]];
    let mvn = MultivariateNormal::from_covariance(mean.view(), cov.view()).unwrap();
    let n = 40_000;
    let x = mvn.sample_n(n, &mut seeded(17));
    let m = x.mean_axis(ndarray::Axis(0)).unwrap();
    let c = x.t().dot(&x) / n as f64 - outer(&m);
    for i in 0..3 {
        assert!((m[i] - mean[i]).abs() < 6.0 * (cov[[i, i]] / n as f64).sqrt());
        for j in 0..3 {
            let se = ((cov[[i, i]] * cov[[j, j]] + cov[[i, j]].powi(2)) / n as f64).sqrt();
            assert!(
                (c[[i, j]] - cov[[i, j]]).abs() < 6.0 * se,
                "cov[{i},{j}] = {}",
                c[[i, j]]
            );
        }
    }
    // Single draws come from the same distribution.
    let one = mvn.sample(&mut seeded(3));
    assert_eq!(one.len(), 3);
}

fn outer(m: &ndarray::Array1<f64>) -> Array2<f64> {
    let col = m.view().insert_axis(ndarray::Axis(1));
    col.dot(&col.t())
}

/// Same seed, same stream; different seed, different stream.
#[test]
fn seeded_streams_are_reproducible() {
    let stream = |seed| {
        let mut rng = seeded(seed);
        (0..5).map(|_| rng.random::<u64>()).collect::<Vec<_>>()
    };
    assert_eq!(stream(42), stream(42));
    assert_ne!(stream(42), stream(43));
    let z = sampling::standard_normal((200, 50), &mut seeded(8));
    let mean = z.mean().unwrap();
    let var = z.mapv(|v| (v - mean).powi(2)).mean().unwrap();
    assert!(mean.abs() < 6.0 / 100.0 && (var - 1.0).abs() < 6.0 * (2.0f64 / 10_000.0).sqrt());
}

proptest! {
    /// The alias table encodes the weights exactly: the probability of index
    /// `i` implied by the table (`Σ` over columns of keep/alias mass) is `wᵢ / Σw`.
    #[test]
    fn alias_table_is_exact(w in prop::collection::vec(0.0f64..100.0, 1..60), seed in any::<u64>()) {
        prop_assume!(w.iter().sum::<f64>() > 0.0);
        let table = AliasTable::new(&w).unwrap();
        let implied = table.implied_probabilities();
        let total: f64 = w.iter().sum();
        for (i, &wi) in w.iter().enumerate() {
            prop_assert!((implied[i] - wi / total).abs() < 1e-12);
        }
        let draw = table.sample(&mut seeded(seed));
        prop_assert!(w[draw] > 0.0);
    }

    /// Without replacement with k = number of positive weights returns a permutation of them.
    #[test]
    fn without_replacement_full_draw_is_a_permutation(w in prop::collection::vec(0.0f64..10.0, 1..40), seed in any::<u64>()) {
        let positive: Vec<usize> = (0..w.len()).filter(|&i| w[i] > 0.0).collect();
        prop_assume!(!positive.is_empty());
        let mut draw = sampling::sample_without_replacement(&w, positive.len(), &mut seeded(seed)).unwrap();
        draw.sort_unstable();
        prop_assert_eq!(draw, positive);
    }
}
