//! Hostile inputs at every public entry point (issue 35, "Bad input"): NaN,
//! ±∞, utilities near ±f64::MAX, zero and huge sizes and horizons,
//! out-of-range states, actions, memories and gains, probabilities outside
//! [0, 1], empty histories, zero stakeholders. Every call returns `Ok`
//! without NaN or a typed `Err`: never a panic, an overflow or an abort.
//! Seeded.

use fair_memory::{
    CounterfactualSet, Donut, DonutConfig, EnvOutcome, Error, FairEnv, FairQcm, FairnessSpec,
    LearningCurve, Lending, LendingConfig, Memory, MemoryKind, Monitor, QcmParams, Schedule,
    Welfare, audit, counterfactual, counterfactual_memories, dp,
};
use ndarray::Array2;
use proptest::prelude::*;
use proptest::test_runner::RngSeed;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use tabular_mdp::StepSize;

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        rng_seed: RngSeed::Fixed(0x35_f41e),
        ..ProptestConfig::with_cases(cases)
    }
}

fn hostile_f64() -> impl Strategy<Value = f64> {
    prop_oneof![
        Just(f64::NAN),
        Just(f64::INFINITY),
        Just(f64::NEG_INFINITY),
        Just(f64::MAX),
        Just(-f64::MAX),
        Just(1e308),
        Just(-1e308),
        Just(5e-324),
        Just(0.0),
        Just(-0.0),
        Just(1.0),
        Just(1.5),
        -3.0..3.0f64,
    ]
}

fn extreme_utility() -> impl Strategy<Value = f64> {
    prop_oneof![
        Just(f64::MAX),
        Just(1e308),
        Just(-1e308),
        Just(1e200),
        Just(5e-324),
        Just(0.0),
        0.0..20.0f64,
    ]
}

fn hostile_size() -> impl Strategy<Value = usize> {
    prop_oneof![
        Just(0usize),
        Just(usize::MAX),
        Just(usize::MAX / 2),
        Just(u32::MAX as usize),
        Just(1 << 40),
        1usize..6,
    ]
}

fn hostile_u32() -> impl Strategy<Value = u32> {
    prop_oneof![Just(0u32), Just(u32::MAX), Just(u32::MAX - 1), 0u32..6]
}

fn welfare() -> impl Strategy<Value = Welfare> {
    prop_oneof![
        hostile_f64().prop_map(|lambda| Welfare::Nsw { lambda }),
        Just(Welfare::Utilitarian),
        Just(Welfare::Rawlsian),
        Just(Welfare::Egalitarian),
        Just(Welfare::Gini),
        Just(Welfare::DemographicParity),
    ]
}

fn schedule() -> impl Strategy<Value = Schedule> {
    prop_oneof![
        hostile_size().prop_map(|horizon| Schedule::LongTerm { horizon }),
        Just(Schedule::Anytime),
        hostile_size().prop_map(|period| Schedule::Periodic { period }),
        hostile_f64().prop_map(|bound| Schedule::Bounded { bound }),
    ]
}

fn small_donut() -> Donut {
    Donut::new(DonutConfig {
        presence: vec![0.8; 2],
        horizon: 3,
        ..DonutConfig::default()
    })
    .unwrap()
}

proptest! {
    #![proptest_config(config(192))]

    /// Welfares: scaled first, so finite utilities never give NaN; a welfare
    /// beyond f64's range is the typed `WelfareOverflow`.
    #[test]
    fn welfare_eval(w in welfare(), u in proptest::collection::vec(extreme_utility(), 0..5), bad in hostile_f64()) {
        match w.eval(&u) {
            Ok(v) => prop_assert!(v.is_finite(), "{w:?} of {u:?} = {v}"),
            Err(e) => prop_assert!(!matches!(e, Error::Core(_)), "{e}"),
        }
        let mut v = u.clone();
        v.push(bad);
        let _ = w.eval(&v);
        let counts: Vec<u32> = u.iter().map(|_| u32::MAX).collect();
        if w.check(counts.len()).is_ok() {
            let _ = w.eval_counts(&counts);
        }
    }

    /// Monitors and audits: hostile specs, increments, empty histories.
    #[test]
    fn monitor_and_audit(
        w in welfare(),
        threshold in hostile_f64(),
        sch in schedule(),
        n in 0usize..4,
        inc in proptest::collection::vec(hostile_f64(), 0..12),
        len in 0usize..5,
    ) {
        let spec = FairnessSpec { welfare: w, threshold, schedule: sch };
        let _ = spec.check(n);
        if let Ok(mut m) = Monitor::new(spec, n) {
            for c in inc.chunks(len.max(1)) {
                let _ = m.observe(c);
                let _ = m.observe_utilities(c);
            }
        }
        let rows = inc.len().checked_div(n).unwrap_or(0);
        let a = Array2::from_shape_fn((rows, n), |(i, j)| inc[i * n + j]);
        let _ = audit(spec, a.view());
        let _ = audit(spec, Array2::<f64>::zeros((0, n)).view());
    }

    /// Memories: huge horizons and stakeholder counts, memories and gains out of range.
    #[test]
    fn memories(
        n in hostile_size(),
        horizon in hostile_size(),
        m in proptest::collection::vec(hostile_u32(), 0..5),
        gain in proptest::option::of(hostile_size()),
        out_len in 0usize..5,
        code in hostile_size(),
    ) {
        for kind in [MemoryKind::Full, MemoryKind::MinShifted, MemoryKind::Reset, MemoryKind::None] {
            if let Ok(mem) = Memory::new(kind, n, horizon) {
                let mut out = vec![0; out_len];
                if mem.update(&m, gain, &mut out).is_ok() {
                    prop_assert!(out.iter().all(|&x| x <= mem.cap()));
                }
                let _ = mem.try_encode(&m);
                let _ = mem.encode(&m);
                let _ = mem.decode(code);
                let _ = mem.binary_features(&m);
                let _ = kind.check_sufficient(&Welfare::nsw(), false);
            }
        }
    }

    /// Environments: hostile presences, credits, groups and horizons at
    /// construction; out-of-range states and actions in the (unchecked) protocol.
    #[test]
    fn environments(
        presence in proptest::collection::vec(hostile_f64(), 0..6),
        horizon in hostile_size(),
        credits in proptest::collection::vec(hostile_u32(), 0..6),
        groups in proptest::collection::vec(0usize..4, 0..6),
        s in hostile_size(),
        a in hostile_size(),
        counts in proptest::collection::vec(hostile_u32(), 0..4),
    ) {
        let _ = Donut::new(DonutConfig { presence: presence.clone(), horizon, ..DonutConfig::default() });
        let _ = Lending::new(LendingConfig { credits: credits.clone(), groups: groups.clone(), presence: presence.clone(), horizon });
        let _ = Lending::repay_prob(credits.first().copied().unwrap_or(u32::MAX));
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let donut = small_donut();
        let lending = Lending::new(LendingConfig { horizon: 3, ..LendingConfig::default() }).unwrap();
        let o = EnvOutcome { prob: 1.0, next: s, gain: Some(a), valid: true };
        for env in [&donut as &dyn Probe, &lending as &dyn Probe] {
            env.probe(s, a, &counts, &o, &mut rng);
        }
        let _ = lending.decode(s);
        let _ = lending.encode(s, &credits, s, a);
        let _ = donut.state(s, a);
    }

    /// Learners, counterfactuals, exact solutions: hostile parameters, states,
    /// actions, memories and discount factors.
    #[test]
    fn learners_and_counterfactuals(
        gamma in hostile_f64(),
        alpha in hostile_f64(),
        eps in hostile_f64(),
        decay in hostile_f64(),
        offset in hostile_u32(),
        width in hostile_u32(),
        all in any::<bool>(),
        kind in prop_oneof![Just(MemoryKind::Full), Just(MemoryKind::MinShifted), Just(MemoryKind::Reset), Just(MemoryKind::None)],
        allow in any::<bool>(),
        s in hostile_size(),
        a in hostile_size(),
        m in proptest::collection::vec(hostile_u32(), 0..4),
        gain in proptest::option::of(hostile_size()),
        optimum in hostile_f64(),
        tol in hostile_f64(),
    ) {
        let env = small_donut();
        let set = if all { CounterfactualSet::All } else { CounterfactualSet::Window { offset, width } };
        let params = QcmParams {
            episodes: 2,
            gamma,
            step_size: StepSize::Constant(alpha),
            epsilon_start: eps,
            epsilon_decay: decay,
            memory: kind,
            counterfactuals: set,
            allow_insufficient_memory: allow,
            ..QcmParams::default()
        };
        let _ = params.check();
        let mut rng = ChaCha8Rng::seed_from_u64(2);
        if let Ok(mut l) = FairQcm::new(&env, params) {
            l.train(2, &mut rng, |_| {});
            prop_assert!(l.table().q.iter().all(|v| v.is_finite()));
            let _ = l.q(s, &m);
            let _ = l.greedy(s, &m);
            let _ = dp::greedy_value(&l, &env, gamma);
        }
        let good = FairQcm::new(&env, QcmParams { episodes: 2, ..QcmParams::default() }).unwrap();
        let other = Donut::new(DonutConfig { presence: vec![1.0; 3], horizon: 2, ..DonutConfig::default() }).unwrap();
        prop_assert!(dp::greedy_value(&good, &other, 0.9).is_err());
        if let Ok(exact) = dp::optimal(&env, gamma) {
            let _ = exact.q_row(s, &m);
            let _ = exact.sup_error(&good);
        }
        let exact_other = dp::optimal(&other, 0.9).unwrap();
        prop_assert!(exact_other.sup_error(&good).is_err());
        for mem in [Memory::new(MemoryKind::Full, 2, 3).unwrap(), Memory::new(MemoryKind::Full, 3, 3).unwrap()] {
            let _ = counterfactual_memories(&env, &mem, set, s, &m);
            let o = EnvOutcome { prob: 1.0, next: s, gain, valid: true };
            let _ = counterfactual(&env, &mem, s, a, &o, &m);
        }
        let curve = LearningCurve { episodes: vec![1, 2, 3], values: vec![optimum, tol, gamma] };
        let _ = curve.episodes_to_optimal(optimum, tol);
    }
}

/// Calls every (unchecked) protocol method: they must not panic whatever the arguments.
trait Probe {
    fn probe(&self, s: usize, a: usize, counts: &[u32], o: &EnvOutcome, rng: &mut ChaCha8Rng);
}

impl<E: FairEnv> Probe for E {
    fn probe(&self, s: usize, a: usize, counts: &[u32], o: &EnvOutcome, rng: &mut ChaCha8Rng) {
        let _ = self.outcomes(s, a);
        let _ = self.sample(s, a, rng);
        let _ = self.reward(s, a, o, counts);
        let _ = self.terminal(s, counts);
        let _ = self.feasible(s, counts);
        let _ = self.initial();
        let _ = self.sample_initial(rng);
    }
}

/// The named cases, with the values they must give.
#[test]
fn named_hostile_cases() {
    // Gini of [1e308, 0] is 1 − G = 1 − 1/2 = 0.5 (was NaN).
    assert_eq!(Welfare::Gini.eval(&[1e308, 0.0]).unwrap(), 0.5);
    // Egalitarian −Σ|u − ū| of [1e308, −1e308] is −4e308: beyond f64, a typed error.
    assert!(matches!(
        Welfare::Egalitarian.eval(&[1e308, -1e308]),
        Err(Error::WelfareOverflow { .. })
    ));
    // Egalitarian of [1e308, 0]: ū = 5e307, −(5e307 + 5e307) = −1e308, exact.
    assert_eq!(Welfare::Egalitarian.eval(&[1e308, 0.0]).unwrap(), -1e308);
    // Utilitarian sum of [1e308, 1e308] overflows: typed, not ∞.
    assert!(matches!(
        Welfare::Utilitarian.eval(&[1e308, 1e308]),
        Err(Error::WelfareOverflow { .. })
    ));
    assert_eq!(Welfare::Utilitarian.eval(&[1e308, -1e308]).unwrap(), 0.0);
    // Lending with a huge horizon is a typed error.
    for horizon in [usize::MAX, usize::MAX / 2, 1 << 40] {
        assert!(matches!(
            Lending::new(LendingConfig {
                horizon,
                ..LendingConfig::default()
            }),
            Err(Error::InvalidParameter { .. })
        ));
    }
    assert!(
        Donut::new(DonutConfig {
            horizon: usize::MAX,
            ..DonutConfig::default()
        })
        .is_err()
    );
    // Memory::update: wrong lengths, gains and entries are typed.
    let mem = Memory::new(MemoryKind::Full, 2, 3).unwrap();
    let mut out = [0u32; 2];
    assert!(matches!(
        mem.update(&[0, 0], Some(2), &mut out),
        Err(Error::DimensionMismatch { .. })
    ));
    assert!(matches!(
        mem.update(&[0, 4], None, &mut out),
        Err(Error::MemoryOutOfRange { .. })
    ));
    assert!(matches!(
        mem.update(&[0], None, &mut out),
        Err(Error::DimensionMismatch { .. })
    ));
    assert!(mem.update(&[1, 3], Some(1), &mut out).is_ok());
    assert_eq!(out, [1, 3]);
}
