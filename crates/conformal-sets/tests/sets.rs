//! Structural properties of scores and sets (spec "Claims"), and the
//! spec's concrete cross-check against MAPIE and crepes.

use conformal_sets::Error;
use conformal_sets::calibrate::{QuantileRule, SplitConformal, quantile_index, scores};
use conformal_sets::score::{ConformityScore, Lac, PredictionSet, Raps, TopKRank, aps, top_k};
use conformal_sets::synthetic::dirichlet_classifier;
use mlcore::sampling::seeded;
use ndarray::{Array2, ArrayView2, array};
use proptest::prelude::*;

/// Reference APS written straight from the definition (sort, cumulative sum):
/// `s = C_{o−1} + U·π_y` (randomised) or `C_o`.
fn aps_reference_score(p: &[f64], y: usize, u: f64, randomized: bool) -> f64 {
    let mut order: Vec<usize> = (0..p.len()).collect();
    order.sort_by(|&a, &b| p[b].partial_cmp(&p[a]).unwrap().then(a.cmp(&b)));
    let o = order.iter().position(|&j| j == y).unwrap();
    let above: f64 = order[..o].iter().map(|&j| p[j]).sum();
    above + if randomized { u * p[y] } else { p[y] }
}

/// The official RAPS set rule (`gcq`): `L = #{r : C_r + λ(r−k_reg)⁺ ≤ q̂} + 1`
/// capped at K, `V = (q̂ − C_{L−1} − λ(L−k_reg)⁺)/π₍L₎`, drop the L-th label when `U ≥ V`.
fn official_gcq(p: &[f64], q: f64, u: f64, raps: Raps) -> PredictionSet {
    let mut order: Vec<usize> = (0..p.len()).collect();
    order.sort_by(|&a, &b| p[b].partial_cmp(&p[a]).unwrap().then(a.cmp(&b)));
    let pen = |r: usize| raps.lambda * r.saturating_sub(raps.k_reg) as f64;
    let cum: Vec<f64> = order
        .iter()
        .scan(0.0, |c, &j| {
            *c += p[j];
            Some(*c)
        })
        .collect();
    let l = (cum
        .iter()
        .enumerate()
        .filter(|&(r, &c)| c + pen(r + 1) <= q)
        .count()
        + 1)
    .min(p.len());
    let mut size = l;
    if raps.randomized {
        let below = if l >= 2 { cum[l - 2] } else { 0.0 };
        let v = (q - below - pen(l)) / p[order[l - 1]];
        if u >= v {
            size -= 1;
        }
    }
    if size == 0 && !raps.allow_empty {
        size = 1;
    }
    PredictionSet::new(order[..size].to_vec())
}

fn probs_strategy() -> impl Strategy<Value = (Array2<f64>, Vec<usize>, u64)> {
    (2usize..40, 1usize..30, any::<u64>()).prop_map(|(k, n, seed)| {
        let (p, y) = dirichlet_classifier(n, k, 0.5, &mut seeded(seed)).unwrap();
        (p, y, seed)
    })
}

fn row(p: &ArrayView2<'_, f64>, i: usize) -> Vec<f64> {
    p.row(i).to_vec()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// RAPS with λ = 0 equals APS (the reference definition) for the same U.
    #[test]
    fn raps_with_lambda_0_equals_aps((p, y, seed) in probs_strategy(), k_reg in 0usize..5, randomized in any::<bool>()) {
        let raps = Raps { lambda: 0.0, k_reg, randomized, allow_empty: true };
        let u = seeded(seed).random_u();
        for (i, &yi) in y.iter().enumerate() {
            let r = row(&p.view(), i);
            let s = raps.score(&r, yi, u);
            prop_assert!((s - aps_reference_score(&r, yi, u, randomized)).abs() < 1e-12);
            prop_assert_eq!(raps.set(&r, s, u), aps(randomized, true).set(&r, s, u));
        }
    }

    /// Our RAPS sets equal the official `gcq` rule for the same U, with and without empty sets.
    #[test]
    fn raps_sets_equal_the_official_rule((p, _, seed) in probs_strategy(), lambda in 0.0f64..1.0, k_reg in 0usize..5, q in 0.0f64..2.5, allow_empty in any::<bool>()) {
        let raps = Raps { lambda, k_reg, randomized: true, allow_empty };
        let u = seeded(seed ^ 5).random_u();
        for i in 0..p.nrows() {
            let r = row(&p.view(), i);
            prop_assert_eq!(raps.set(&r, q, u), official_gcq(&r, q, u, raps));
        }
    }

    /// A set holds exactly the labels whose score is at most q̂ (for every score, same U).
    #[test]
    fn sets_are_score_sublevel_sets((p, _, seed) in probs_strategy(), q in 0.0f64..3.0, lambda in 0.0f64..0.5) {
        let u = seeded(seed ^ 9).random_u();
        let scores: Vec<Box<dyn ConformityScore>> = vec![
            Box::new(Lac),
            Box::new(aps(true, true)),
            Box::new(aps(false, true)),
            Box::new(Raps { lambda, k_reg: 1, randomized: true, allow_empty: true }),
        ];
        for i in 0..p.nrows() {
            let r = row(&p.view(), i);
            for s in &scores {
                let set = s.set(&r, q, u);
                for yy in 0..r.len() {
                    prop_assert_eq!(set.contains(yy), s.score(&r, yy, u) <= q, "{} label {}", s.name(), yy);
                }
            }
        }
    }

    /// A non-randomised APS set always contains the argmax, at any threshold.
    #[test]
    fn nonrandomized_aps_contains_argmax((p, _, _) in probs_strategy(), q in -1.0f64..2.0) {
        for i in 0..p.nrows() {
            let r = row(&p.view(), i);
            let argmax = (0..r.len()).fold(0, |b, j| if r[j] > r[b] { j } else { b });
            prop_assert!(aps(false, false).set(&r, q, 0.0).contains(argmax));
            let raps = Raps { randomized: false, ..Raps::default() };
            prop_assert!(raps.set(&r, q, 0.0).contains(argmax));
        }
    }

    /// q̂ is monotone in α (smaller α, larger q̂) and LAC sets are nested.
    #[test]
    fn q_hat_monotone_in_alpha_and_lac_sets_nested(seed in any::<u64>(), a1 in 0.02f64..0.5, a2 in 0.02f64..0.5) {
        let (lo, hi) = if a1 <= a2 { (a1, a2) } else { (a2, a1) };
        let (p, y) = dirichlet_classifier(200, 6, 0.5, &mut seeded(seed)).unwrap();
        let mut rng = seeded(0);
        let strict = SplitConformal::new(Lac, lo, QuantileRule::FiniteSample).unwrap().calibrate(p.view(), &y, &mut rng).unwrap();
        let loose = SplitConformal::new(Lac, hi, QuantileRule::FiniteSample).unwrap().calibrate(p.view(), &y, &mut rng).unwrap();
        prop_assert!(strict.q_hat() >= loose.q_hat());
        let big = strict.predict(p.view(), &mut rng).unwrap().to_sets();
        let small = loose.predict(p.view(), &mut rng).unwrap().to_sets();
        for (b, s) in big.iter().zip(&small) {
            prop_assert!(s.labels().iter().all(|&l| b.contains(l)));
        }
    }

    /// The quantile index is ⌈(n+1)(1−α)⌉, computed here in exact integer
    /// arithmetic for α = a/1000, and the error comes exactly when it exceeds n.
    #[test]
    fn quantile_index_is_ceil_n_plus_1_times_1_minus_alpha(n in 1usize..5000, a in 1usize..1000) {
        let alpha = a as f64 / 1000.0;
        let exact = ((n + 1) * (1000 - a)).div_ceil(1000);
        match quantile_index(n, alpha, QuantileRule::FiniteSample) {
            Ok(k) => { prop_assert!(exact <= n); prop_assert_eq!(k, exact.max(1)); }
            Err(Error::TooFewCalibration { n: got, min_n, .. }) => {
                prop_assert!(exact > n);
                prop_assert_eq!(got, n);
                prop_assert!(min_n > n);
            }
            Err(e) => prop_assert!(false, "unexpected {e}"),
        }
    }
}

trait RandomU {
    fn random_u(&mut self) -> f64;
}
impl RandomU for mlcore::sampling::WorkspaceRng {
    fn random_u(&mut self) -> f64 {
        rand::RngExt::random(self)
    }
}

/// numpy's `quantile(·, 1−α, method="higher")` index: ⌈(n−1)(1−α)⌉, 0-based.
#[test]
fn numpy_higher_rule_matches_numpy() {
    // numpy.quantile(np.arange(1, n+1), 1-alpha, method="higher") for these cases.
    for (n, alpha, value) in [
        (20, 0.2, 17),
        (100, 0.1, 91),
        (10, 0.05, 10),
        (7, 0.5, 4),
        (1, 0.3, 1),
    ] {
        assert_eq!(
            quantile_index(n, alpha, QuantileRule::NumpyHigher).unwrap(),
            value,
            "n {n} alpha {alpha}"
        );
    }
}

/// The spec's cross-check (K = 4, n_cal = 20, α = 0.2; generated with
/// numpy's `default_rng(0)`): LAC rank 17, q̂ = 0.7821, test sets
/// [[0,2],[3],[1],[0,1],[1,2,3]], as MAPIE, crepes and a hand computation give.
#[test]
fn lac_matches_mapie_and_crepes_on_the_spec_example() {
    let p = cross_check_probs();
    let y = [0, 0, 3, 1, 1, 2, 2, 2, 3, 2, 2, 2, 0, 3, 1, 3, 1, 3, 0, 3];
    assert_eq!(
        quantile_index(20, 0.2, QuantileRule::FiniteSample).unwrap(),
        17
    );
    let mut rng = seeded(0);
    let cal = SplitConformal::new(Lac, 0.2, QuantileRule::FiniteSample).unwrap();
    let fitted = cal
        .calibrate(p.slice(ndarray::s![..20, ..]), &y, &mut rng)
        .unwrap();
    assert!((fitted.q_hat() - 0.7821).abs() < 1e-12);
    let sets = fitted
        .predict(p.slice(ndarray::s![20.., ..]), &mut rng)
        .unwrap()
        .to_sets();
    let got: Vec<Vec<usize>> = sets.iter().map(|s| s.labels().to_vec()).collect();
    assert_eq!(
        got,
        vec![vec![0, 2], vec![3], vec![1], vec![0, 1], vec![1, 2, 3]]
    );
    // Scores are 1 − π_y.
    let s = scores(&Lac, p.slice(ndarray::s![..20, ..]), &y, &mut rng).unwrap();
    assert!((s[0] - (1.0 - 0.2179)).abs() < 1e-15);
}

/// Top-k sets hold the k most probable labels; the rank score calibrates to an integer k.
#[test]
fn top_k_sets_and_rank_score() {
    let p = [0.1, 0.5, 0.15, 0.25];
    assert_eq!(top_k(&p, 2).labels(), &[1, 3]);
    assert_eq!(TopKRank.score(&p, 2, 0.0), 3.0);
    assert_eq!(TopKRank.set(&p, 3.0, 0.0).labels(), &[1, 2, 3]);
    // Ties broken by the smaller label.
    assert_eq!(top_k(&[0.25; 4], 2).labels(), &[0, 1]);
    // A negative zero is the least probable label, not the most.
    assert_eq!(top_k(&[-0.0, 0.5, 0.0, 0.5], 3).labels(), &[0, 1, 3]);
    assert_eq!(
        Raps {
            lambda: 0.0,
            k_reg: 0,
            randomized: false,
            allow_empty: false
        }
        .set(&[-0.0, 0.6, 0.4], 0.7, 0.0)
        .labels(),
        &[1]
    );
}

/// With randomisation and `allow_empty`, sets can be empty (a documented
/// pitfall); the trial's policy forces the top label instead.
#[test]
fn empty_set_policy() {
    let p = [0.7, 0.2, 0.1];
    let empty_ok = Raps {
        lambda: 0.0,
        k_reg: 0,
        randomized: true,
        allow_empty: true,
    };
    assert!(empty_ok.set(&p, 0.05, 0.9).is_empty());
    let forced = Raps {
        allow_empty: false,
        ..empty_ok
    };
    assert_eq!(forced.set(&p, 0.05, 0.9).labels(), &[0]);
}

fn cross_check_probs() -> Array2<f64> {
    array![
        [0.2179, 0.4314, 0.1953, 0.1554],
        [0.3678, 0.2135, 0.3786, 0.0401],
        [0.0007, 0.0841, 0.0688, 0.8464],
        [
            0.37876212378762125,
            0.38286171382861717,
            0.026897310268973105,
            0.2114788521147885
        ],
        [0.2197, 0.3013, 0.3272, 0.1518],
        [
            0.0381961803819618,
            0.0091990800919908,
            0.37906209379062095,
            0.5735426457354265
        ],
        [0.2211, 0.3546, 0.1286, 0.2957],
        [0.0336, 0.1841, 0.1034, 0.6789],
        [0.1341, 0.1684, 0.2612, 0.4363],
        [0.2712, 0.175, 0.5268, 0.027],
        [0.3554, 0.0003, 0.6349, 0.0094],
        [
            0.5193519351935193,
            0.10131013101310131,
            0.33913391339133914,
            0.0402040204020402
        ],
        [
            0.17558244175582444,
            0.005499450054994501,
            0.33156684331566844,
            0.48735126487351266
        ],
        [
            0.16781678167816783,
            0.23972397239723972,
            0.0346034603460346,
            0.5578557855785579
        ],
        [0.054, 0.7179, 0.019, 0.2091],
        [0.2153, 0.0277, 0.2234, 0.5336],
        [0.2106, 0.664, 0.1207, 0.0047],
        [0.615, 0.0029, 0.055, 0.3271],
        [0.6793, 0.1024, 0.1569, 0.0614],
        [0.269, 0.2672, 0.1095, 0.3543],
        [
            0.5748425157484252,
            0.021097890210978902,
            0.30996900309969005,
            0.09409059094090591
        ],
        [
            0.0926092609260926,
            0.0173017301730173,
            0.08060806080608061,
            0.8094809480948095
        ],
        [
            0.00010001000100010001,
            0.813081308130813,
            0.038003800380038005,
            0.1488148814881488
        ],
        [
            0.5148485151484852,
            0.3871612838716128,
            0.07979202079792021,
            0.018198180181981802
        ],
        [0.0049, 0.2816, 0.3536, 0.3599],
    ]
}
