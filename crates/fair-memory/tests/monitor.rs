//! P1: the incremental monitors' verdicts equal a brute-force recomputation
//! from the full history (N ≤ 4, T ≤ 30), exactly; welfare known values and
//! bad inputs.

use fair_memory::{Error, FairnessSpec, Monitor, Schedule, Status, Welfare, audit};
use ndarray::Array2;
use proptest::prelude::*;

const WELFARES: [Welfare; 6] = [
    Welfare::Nsw { lambda: 1e-4 },
    Welfare::Utilitarian,
    Welfare::Rawlsian,
    Welfare::Egalitarian,
    Welfare::Gini,
    Welfare::DemographicParity,
];

/// Brute force: at each t, recompute every prefix sum from scratch and scan
/// all assessment times τ ≤ t.
fn brute_force(spec: &FairnessSpec, inc: &[Vec<f64>]) -> Vec<Status> {
    let n = inc[0].len();
    (1..=inc.len())
        .map(|t| {
            let mut any = false;
            for tau in 1..=t {
                let assessed = match spec.schedule {
                    Schedule::LongTerm { horizon } => tau == horizon,
                    Schedule::Anytime | Schedule::Bounded { .. } => true,
                    Schedule::Periodic { period } => tau % period == 0,
                };
                if !assessed {
                    continue;
                }
                let mut u = vec![0.0; n];
                for row in &inc[..tau] {
                    for i in 0..n {
                        u[i] += row[i];
                    }
                }
                let w = spec.welfare.eval(&u).unwrap();
                let ok = match spec.schedule {
                    Schedule::Bounded { bound } => spec.threshold - w <= bound,
                    _ => w >= spec.threshold,
                };
                if !ok {
                    return Status::Violated { at: tau };
                }
                any = true;
            }
            if any { Status::Fair } else { Status::Pending }
        })
        .collect()
}

fn schedule_strategy() -> impl Strategy<Value = Schedule> {
    prop_oneof![
        (1usize..=30).prop_map(|horizon| Schedule::LongTerm { horizon }),
        Just(Schedule::Anytime),
        (1usize..=6).prop_map(|period| Schedule::Periodic { period }),
        (0.0f64..3.0).prop_map(|bound| Schedule::Bounded { bound }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]
    /// P1: monitor verdicts == brute force, exactly, for random histories
    /// (N ≤ 4, T ≤ 30), every welfare and schedule.
    #[test]
    fn p1_monitor_equals_brute_force(
        n in 1usize..=4,
        t in 1usize..=30,
        wi in 0usize..6,
        sched in schedule_strategy(),
        theta in -4.0f64..3.0,
        seed in any::<u64>(),
    ) {
        let welfare = WELFARES[wi];
        let n = if welfare == Welfare::DemographicParity { 2 } else { n };
        // Increments: a donut-like 0/1 gain to one stakeholder or nothing,
        // occasionally a fractional utility.
        let mut x = seed;
        let mut next = || { x ^= x << 13; x ^= x >> 7; x ^= x << 17; x };
        let inc: Vec<Vec<f64>> = (0..t).map(|_| {
            let mut row = vec![0.0; n];
            let k = (next() % (n as u64 + 1)) as usize;
            if k < n {
                row[k] = if next() % 4 == 0 { 0.5 } else { 1.0 };
            }
            row
        }).collect();
        let spec = FairnessSpec { welfare, threshold: theta, schedule: sched };
        let mut mon = Monitor::new(spec, n).unwrap();
        let expected = brute_force(&spec, &inc);
        for (k, row) in inc.iter().enumerate() {
            let v = mon.observe(row).unwrap();
            prop_assert_eq!(v.t, k + 1);
            prop_assert_eq!(v.status, expected[k]);
            prop_assert_eq!(v.assessed, spec.is_assessed(k + 1));
        }
        // The audit replays the same verdicts.
        let arr = Array2::from_shape_fn((t, n), |(i, j)| inc[i][j]);
        let rep = audit(spec, arr.view()).unwrap();
        prop_assert_eq!(rep.iter().map(|v| v.status).collect::<Vec<_>>(), expected);
    }
}

/// Round robin keeps the egalitarian welfare ≥ −4/3 at every step (anytime
/// fair for θ = −1.34) while giving everything to one person violates it at
/// the second step; long-term fairness is pending until T.
#[test]
fn anytime_verdicts_round_robin_vs_greedy() {
    let spec = FairnessSpec {
        welfare: Welfare::Egalitarian,
        threshold: -1.34,
        schedule: Schedule::Anytime,
    };
    let mut rr = Monitor::new(spec, 3).unwrap();
    let mut one = Monitor::new(spec, 3).unwrap();
    for t in 0..12 {
        let mut e = [0.0; 3];
        e[t % 3] = 1.0;
        assert!(rr.observe(&e).unwrap().holds);
        one.observe(&[1.0, 0.0, 0.0]).unwrap();
    }
    assert_eq!(rr.status(), Status::Fair);
    assert_eq!(one.status(), Status::Violated { at: 2 });
    // Long-term: pending before T.
    let lt = FairnessSpec {
        schedule: Schedule::LongTerm { horizon: 3 },
        ..spec
    };
    let mut m = Monitor::new(lt, 3).unwrap();
    assert_eq!(m.observe(&[1.0, 0.0, 0.0]).unwrap().status, Status::Pending);
    assert_eq!(m.observe(&[0.0, 1.0, 0.0]).unwrap().status, Status::Pending);
    assert_eq!(m.observe(&[0.0, 0.0, 1.0]).unwrap().status, Status::Fair);
}

#[test]
fn welfare_known_values() {
    let u = [0.0, 1.0, 3.0];
    let nsw = Welfare::Nsw { lambda: 0.0 }.eval(&u).unwrap();
    assert!((nsw - (2.0f64.ln() + 4.0f64.ln())).abs() < 1e-15);
    let nsw_l = Welfare::nsw().eval(&u).unwrap();
    assert!(
        (nsw_l - ((1.0f64 + 1e-4).ln() + (2.0f64 + 1e-4).ln() + (4.0f64 + 1e-4).ln())).abs()
            < 1e-15
    );
    assert_eq!(Welfare::Utilitarian.eval(&u).unwrap(), 4.0);
    assert_eq!(Welfare::Rawlsian.eval(&u).unwrap(), 0.0);
    // mean 4/3: |−4/3| + |−1/3| + |5/3| = 10/3
    assert!((Welfare::Egalitarian.eval(&u).unwrap() + 10.0 / 3.0).abs() < 1e-15);
    // Gini: Σ|ui − uj| = 2·(1 + 3 + 2) = 12; 12 / (2·9·4/3) = 0.5
    assert!((Welfare::Gini.eval(&u).unwrap() - 0.5).abs() < 1e-15);
    assert_eq!(Welfare::Gini.eval(&[0.0, 0.0]).unwrap(), 1.0);
    assert_eq!(Welfare::DemographicParity.eval(&[2.0, 5.0]).unwrap(), -3.0);
    for w in WELFARES {
        let v = if w == Welfare::DemographicParity {
            vec![3.0, 3.0]
        } else {
            u.to_vec()
        };
        let shifted: Vec<f64> = v.iter().map(|x| x + 2.0).collect();
        let same = (w.eval(&v).unwrap() - w.eval(&shifted).unwrap()).abs() < 1e-12;
        assert_eq!(same, w.is_shift_invariant(), "{}", w.name());
    }
}

#[test]
fn bad_inputs_are_typed_errors() {
    assert_eq!(Welfare::Utilitarian.eval(&[]), Err(Error::NoStakeholders));
    assert!(matches!(
        Welfare::Utilitarian.eval(&[1.0, f64::NAN]),
        Err(Error::NonFinite { index: 1, .. })
    ));
    assert!(matches!(
        Welfare::Rawlsian.eval(&[f64::INFINITY]),
        Err(Error::NonFinite { .. })
    ));
    assert!(matches!(
        Welfare::nsw().eval(&[-2.0]),
        Err(Error::InvalidUtility { .. })
    ));
    assert!(matches!(
        Welfare::Gini.eval(&[-1.0, 1.0]),
        Err(Error::InvalidUtility { .. })
    ));
    assert!(matches!(
        Welfare::DemographicParity.eval(&[1.0, 2.0, 3.0]),
        Err(Error::DimensionMismatch {
            expected: 2,
            got: 3,
            ..
        })
    ));
    assert!(matches!(
        Welfare::Nsw { lambda: -1.0 }.check(2),
        Err(Error::InvalidParameter { .. })
    ));
    let spec = FairnessSpec {
        welfare: Welfare::Utilitarian,
        threshold: 0.0,
        schedule: Schedule::Anytime,
    };
    assert_eq!(Monitor::new(spec, 0).err(), Some(Error::NoStakeholders));
    assert!(matches!(
        Monitor::new(
            FairnessSpec {
                threshold: f64::NAN,
                ..spec
            },
            2
        ),
        Err(Error::NonFinite { .. })
    ));
    for schedule in [
        Schedule::Periodic { period: 0 },
        Schedule::LongTerm { horizon: 0 },
        Schedule::Bounded { bound: -1.0 },
        Schedule::Bounded { bound: f64::NAN },
    ] {
        assert!(matches!(
            Monitor::new(FairnessSpec { schedule, ..spec }, 2),
            Err(Error::InvalidParameter { .. })
        ));
    }
    let mut m = Monitor::new(spec, 2).unwrap();
    assert!(matches!(
        m.observe(&[1.0]),
        Err(Error::DimensionMismatch { .. })
    ));
    assert!(matches!(
        m.observe(&[1.0, f64::NEG_INFINITY]),
        Err(Error::NonFinite { .. })
    ));
    assert_eq!(
        m.t(),
        0,
        "a rejected observation leaves the monitor unchanged"
    );
    let bad = Array2::from_elem((3, 0), 0.0);
    assert_eq!(audit(spec, bad.view()).err(), Some(Error::NoStakeholders));
}
