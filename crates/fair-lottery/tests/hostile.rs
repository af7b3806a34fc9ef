//! Hostile inputs at every public entry point (issue 33, "Bad input"): NaN,
//! ±∞, claims near f64::MAX and subnormal, negative claims, k = 0, k > n and
//! k = usize::MAX, parameters outside their ranges, empty and mismatched
//! arrays. Every call returns a typed `Err` or an `Ok` whose result is valid
//! (π in [0, 1] summing to k, draws of k distinct units, finite metrics):
//! never a panic, an overflow or an abort. Seeded.

use fair_lottery::exact::{
    pipage_design, sampford_design, successive_marginals, systematic_design,
    systematic_random_order_design,
};
use fair_lottery::metrics::{
    expected_ser, expected_ser_shared, expected_utility, realised_utility, systemic_exclusion,
};
use fair_lottery::policy::{
    Policy, bootstrap_vote_shares, conformal_outlier_pvalues, distance_to_mean, outlier_lottery,
    uncertainty_lottery,
};
use fair_lottery::probs::{Selection, inclusion_probs};
use fair_lottery::sampler::{
    ConditionalPoisson, Design, FixedSizeSampler, Pipage, Sampler, Successive, Systematic,
};
use fair_lottery::sim::{ClaimDistribution, SerSetup, noisy_claims, simulate_ser, tradeoff_curve};
use mlcore::sampling::seeded;
use ndarray::Array2;
use proptest::prelude::*;
use proptest::test_runner::RngSeed;

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        rng_seed: RngSeed::Fixed(0x33_fa1e),
        ..ProptestConfig::with_cases(cases)
    }
}

fn hostile_f64() -> impl Strategy<Value = f64> {
    prop_oneof![
        Just(f64::NAN),
        Just(f64::INFINITY),
        Just(f64::NEG_INFINITY),
        Just(f64::MAX),
        Just(1e308),
        Just(-1e308),
        Just(5e-324),
        Just(1e-305),
        Just(0.0),
        Just(-0.0),
        Just(1.0),
        Just(-1.0),
        Just(0.5),
        0.0..1.0f64,
        0.0..1.0f64,
    ]
}

fn hostile_k() -> impl Strategy<Value = usize> {
    prop_oneof![
        Just(0usize),
        Just(usize::MAX),
        Just(1usize << 40),
        1usize..8
    ]
}

fn hostile_vec() -> impl Strategy<Value = Vec<f64>> {
    prop::collection::vec(hostile_f64(), 0..9)
}

/// A valid π: finite, in [0, 1], summing to k within the crate's tolerance.
fn valid_pi(pi: &[f64], k: usize) -> bool {
    let s: f64 = pi.iter().sum();
    pi.iter().all(|p| (0.0..=1.0).contains(p)) && (s - k as f64).abs() <= 1e-6 * (1.0 + k as f64)
}

/// A valid draw: k distinct units below n.
fn valid_draw(d: &[usize], n: usize, k: usize) -> bool {
    let mut s = d.to_vec();
    s.sort_unstable();
    s.dedup();
    d.len() == k && s.len() == k && d.iter().all(|&i| i < n)
}

proptest! {
    #![proptest_config(config(256))]

    /// Claims → π, policies, and every sampler built on them.
    #[test]
    fn claims_policies_and_samplers(c in hostile_vec(), k in hostile_k(), p in hostile_f64(), q in hostile_f64()) {
        if let Ok(pi) = inclusion_probs(&c, k) {
            prop_assert!(valid_pi(&pi, k), "{pi:?}");
        }
        if let Ok(sel) = Selection::new(c.clone()) {
            prop_assert!(valid_pi(sel.pi(), sel.k()));
        }
        let policies = [
            Policy::TopK,
            Policy::FullLottery,
            Policy::PartialLottery { p },
            Policy::RandomizationRate { frac_k: p, frac_n: q },
        ];
        for pol in policies {
            let _ = pol.check();
            if let Ok(sel) = pol.selection(&c, k) {
                prop_assert!(valid_pi(sel.pi(), k), "{pol:?}: {:?}", sel.pi());
                let mut rng = seeded(1);
                for design in [Design::Systematic, Design::Pipage, Design::ConditionalPoisson, Design::Sampford] {
                    if let Ok(s) = Sampler::build(design, &sel) {
                        prop_assert!(valid_draw(&s.sample(&mut rng), c.len(), k), "{design:?}");
                    }
                }
                let sys = Systematic::new(&sel);
                let order: Vec<usize> = (0..c.len()).collect();
                if let Ok(d) = sys.sample_with(&order, p) {
                    prop_assert!(valid_draw(&d, c.len(), k));
                }
                if let Ok(d) = Pipage::new(&sel).sample_in_order(&order, &mut rng) {
                    prop_assert!(valid_draw(&d, c.len(), k));
                }
                if let Ok(cps) = ConditionalPoisson::new(&sel)
                    && let Ok(j) = cps.joint_inclusion()
                {
                    prop_assert!(j.iter().all(|v| v.is_finite()));
                }
                for t in [
                    systematic_design(&sel, &order),
                    systematic_random_order_design(&sel),
                    pipage_design(&sel, &order),
                    sampford_design(&sel),
                ]
                .into_iter()
                .flatten()
                {
                    prop_assert!(t.all_of_size(k));
                    prop_assert!((t.total() - 1.0).abs() < 1e-9);
                }
            }
        }
        if let Ok(s) = Successive::new(&c, k) {
            let mut rng = seeded(2);
            prop_assert!(valid_draw(&s.sample(&mut rng), c.len(), k));
        }
        // The one-call draw fails exactly when the set-up does.
        let mut rng = seeded(4);
        match (Successive::sample_once(&c, k, &mut rng), Successive::new(&c, k)) {
            (Ok(d), Ok(_)) => prop_assert!(valid_draw(&d, c.len(), k)),
            (Err(a), Err(b)) => prop_assert_eq!(format!("{a:?}"), format!("{b:?}")),
            (a, b) => prop_assert!(false, "sample_once {a:?} vs new {:?}", b.map(|_| ())),
        }
        if let Ok(m) = successive_marginals(&c, k) {
            prop_assert!(valid_pi(&m, k), "{m:?}");
        }
    }

    /// Metrics, simulations and the uncertainty-driven lotteries.
    #[test]
    fn metrics_sims_and_uncertainty(
        a in hostile_vec(),
        b in hostile_vec(),
        k in hostile_k(),
        m in hostile_k(),
        x in hostile_f64(),
    ) {
        for v in [expected_utility(&a, &b), expected_ser(&[a.clone(), b.clone()]), expected_ser_shared(&a, m)]
            .into_iter()
            .flatten()
        {
            prop_assert!(v.is_finite());
        }
        let winners: Vec<usize> = b.iter().map(|v| (v.abs().min(1e6)) as usize).collect();
        if let Ok(v) = realised_utility(&winners, &a) {
            prop_assert!(v.is_finite());
        }
        if let Ok(v) = systemic_exclusion(std::slice::from_ref(&winners), k) {
            prop_assert!((0.0..=1.0).contains(&v));
        }
        let mut rng = seeded(3);
        if let Ok(v) = noisy_claims(&a, x, &mut rng) {
            prop_assert!(v.iter().all(|c| (0.0..=1.0).contains(c)));
        }
        let setup = SerSetup { k, m: m.min(4), sigma: x, policy: Policy::FullLottery, design: Design::Pipage };
        if let Ok(rep) = simulate_ser(&a, &b, &setup, 2, &mut rng) {
            prop_assert!(rep.expected_ser.is_finite() && rep.simulated_ser.is_finite());
        }
        if let Ok(pts) = tradeoff_curve(&a, &b, k, m.min(3), x, &[x], |f| Policy::PartialLottery { p: f }, 2, &mut rng) {
            prop_assert!(pts.iter().all(|p| p.ser.is_finite() && p.utility.is_finite()));
        }
        if let Ok(sel) = uncertainty_lottery(&a, &b, k) {
            prop_assert!(valid_pi(sel.pi(), k));
        }
        if let Ok(sel) = outlier_lottery(&a, &b, x, k) {
            prop_assert!(valid_pi(sel.pi(), k));
        }
        if let Ok(p) = conformal_outlier_pvalues(&a, &b) {
            prop_assert!(p.iter().all(|v| (0.0..=1.0).contains(v)));
        }
        let n = a.len();
        let boot: Vec<f64> = b.iter().copied().chain(std::iter::repeat(0.5)).take(n).collect();
        if let Ok(boot) = Array2::from_shape_vec((1, n), boot)
            && let Ok(v) = bootstrap_vote_shares(&a, boot.view(), k)
        {
            prop_assert!(v.iter().all(|s| (0.0..=1.0).contains(s)));
        }
        if let (Ok(tr), Ok(te)) = (Array2::from_shape_vec((1, n), a.clone()), Array2::from_shape_vec((1, n), a.clone()))
            && let Ok(d) = distance_to_mean(tr.view(), te.view())
        {
            prop_assert!(d.iter().all(|v| v.is_finite() && *v >= 0.0));
        }
        for dist in [
            ClaimDistribution::Uniform,
            ClaimDistribution::TruncatedNormal { mean: x, sd: x },
            ClaimDistribution::InverseNormal { mean: 0.5, sd: x },
            ClaimDistribution::TruncatedPareto { alpha: x },
            ClaimDistribution::InversePareto { alpha: x },
        ] {
            if let Ok(v) = dist.sample(k.min(16), &mut rng) {
                prop_assert!(v.iter().all(|c| (0.0..=1.0).contains(c)));
            }
        }
    }
}

/// Sizes whose allocation would overflow or exhaust memory are refused, and
/// the SER of a huge population allocates nothing of its size (found by this
/// file: `systemic_exclusion` with n = 2⁴⁰ aborted on a 1 TiB allocation).
#[test]
fn huge_sizes_are_refused_not_aborted() {
    let mut rng = seeded(4);
    assert!(
        ClaimDistribution::Uniform
            .sample(usize::MAX, &mut rng)
            .is_err()
    );
    let ser = systemic_exclusion(&[vec![0, 5], vec![5]], usize::MAX).unwrap();
    assert_eq!(ser, (usize::MAX - 2) as f64 / usize::MAX as f64);
    assert_eq!(systemic_exclusion(&[vec![0, 1], vec![1]], 4).unwrap(), 0.5);
}

/// The inverse-CDF truncated normal has the closed-form mean
/// `μ + σ(φ(a) − φ(b))/(Φ(b) − Φ(a))`, `a = −μ/σ`, `b = (1 − μ)/σ`, within
/// 6 standard errors, in the body and in both tails (the reflected branch).
#[test]
fn truncated_normal_matches_its_closed_form_mean() {
    use mlcore::special::{norm_cdf, norm_pdf};
    let mut rng = seeded(5);
    for (mean, sd) in [(0.5, 0.2), (-0.5, 0.3), (1.6, 0.25), (0.9, 2.0)] {
        let (a, b) = (-mean / sd, (1.0 - mean) / sd);
        let exact = mean + sd * (norm_pdf(a) - norm_pdf(b)) / (norm_cdf(b) - norm_cdf(a));
        let n = 200_000;
        let x = ClaimDistribution::TruncatedNormal { mean, sd }
            .sample(n, &mut rng)
            .unwrap();
        assert!(x.iter().all(|v| (0.0..=1.0).contains(v)));
        let m = x.iter().sum::<f64>() / n as f64;
        let var = x.iter().map(|v| (v - m) * (v - m)).sum::<f64>() / (n - 1) as f64;
        let se = (var / n as f64).sqrt();
        assert!(
            (m - exact).abs() < 6.0 * se,
            "μ {mean}, σ {sd}: {m} vs {exact}"
        );
    }
    for sd in [1e308, f64::MAX, 1e-300] {
        let d = ClaimDistribution::TruncatedNormal { mean: -1.0, sd };
        assert!(d.sample(4, &mut rng).is_err(), "sd {sd}");
    }
}
