//! The spec's property checks P1–P5 run by the runner: exact ones (P1 monitor
//! vs brute force, P2 memory sufficiency, P3 counterfactual consistency,
//! P5 the deterministic optimum) and the statistical convergence check P4.

use super::{GAMMA, HORIZON, PEOPLE, donut};
use crate::runner::{BoxError, Check, Figure, Relation, median};
use fair_memory::{
    CounterfactualSet, FairEnv, FairQcm, FairnessSpec, Memory, MemoryKind, Monitor, QcmParams,
    Schedule, Status, Welfare, counterfactual, counterfactual_memories, dp,
};
use mlcore::sampling::seeded;
use rand::RngExt;
use tabular_mdp::StepSize;

/// Random histories per property (the crate's proptests use 256 cases).
const CASES: usize = 256;

const WELFARES: [Welfare; 6] = [
    Welfare::Nsw { lambda: 1e-4 },
    Welfare::Utilitarian,
    Welfare::Rawlsian,
    Welfare::Egalitarian,
    Welfare::Gini,
    Welfare::DemographicParity,
];

/// Tolerance of the welfare comparisons: f64 rounding of sums of ≤ 30 logs
/// (the spec asks for equality; the computations differ in order only).
const ROUNDING: f64 = 1e-12;

/// P1 brute force: at each t, recompute every prefix sum from scratch and
/// scan all assessment times τ ≤ t.
fn brute_force(spec: &FairnessSpec, inc: &[Vec<f64>]) -> Result<Vec<Status>, BoxError> {
    let n = inc[0].len();
    let mut out = Vec::with_capacity(inc.len());
    for t in 1..=inc.len() {
        let mut status = Status::Pending;
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
                for (ui, x) in u.iter_mut().zip(row) {
                    *ui += x;
                }
            }
            let w = spec.welfare.eval(&u)?;
            let ok = match spec.schedule {
                Schedule::Bounded { bound } => spec.threshold - w <= bound,
                _ => w >= spec.threshold,
            };
            if !ok {
                status = Status::Violated { at: tau };
                break;
            }
            status = Status::Fair;
        }
        out.push(status);
    }
    Ok(out)
}

/// P1–P3 on random histories; each check counts mismatches.
pub fn property_checks(seed: u64) -> Result<Vec<Check>, BoxError> {
    let mut rng = seeded(seed ^ 0x5eed_0001);
    // P1: monitor verdicts vs brute force, N ≤ 4, T ≤ 30, every welfare and schedule.
    let mut p1_bad = 0usize;
    let mut p1_steps = 0usize;
    for _ in 0..CASES {
        let welfare = WELFARES[rng.random_range(0..WELFARES.len())];
        let n = if welfare == Welfare::DemographicParity {
            2
        } else {
            rng.random_range(1..=4)
        };
        let t = rng.random_range(1..=30);
        let schedule = match rng.random_range(0..4) {
            0 => Schedule::LongTerm {
                horizon: rng.random_range(1..=30),
            },
            1 => Schedule::Anytime,
            2 => Schedule::Periodic {
                period: rng.random_range(1..=6),
            },
            _ => Schedule::Bounded {
                bound: rng.random_range(0.0..3.0),
            },
        };
        let spec = FairnessSpec {
            welfare,
            threshold: rng.random_range(-4.0..3.0),
            schedule,
        };
        let inc: Vec<Vec<f64>> = (0..t)
            .map(|_| {
                let mut row = vec![0.0; n];
                let k = rng.random_range(0..=n);
                if k < n {
                    row[k] = if rng.random_range(0..4) == 0 {
                        0.5
                    } else {
                        1.0
                    };
                }
                row
            })
            .collect();
        let expected = brute_force(&spec, &inc)?;
        let mut mon = Monitor::new(spec, n)?;
        for (k, row) in inc.iter().enumerate() {
            let v = mon.observe(row)?;
            p1_steps += 1;
            if v.status != expected[k] || v.assessed != spec.is_assessed(k + 1) {
                p1_bad += 1;
            }
        }
    }

    // P2: full memory gives the history's welfare; min-shifted and reset
    // memories give the shift-invariant welfares' values and the gap.
    let mut p2_bad = 0usize;
    let mut p2_evals = 0usize;
    for _ in 0..CASES {
        let n = rng.random_range(1..=4);
        let horizon = rng.random_range(1..=30);
        let kinds = [MemoryKind::Full, MemoryKind::MinShifted, MemoryKind::Reset];
        let mems: Vec<Memory> = kinds
            .iter()
            .map(|&k| Memory::new(k, n, horizon))
            .collect::<Result<_, _>>()?;
        let mut u = vec![0u32; n];
        let mut ms: Vec<Vec<u32>> = mems.iter().map(Memory::init).collect();
        for _ in 0..horizon {
            let g = rng.random_range(0..=n);
            let gain = (g < n).then_some(g);
            if let Some(g) = gain {
                u[g] += 1;
            }
            for (mem, m) in mems.iter().zip(ms.iter_mut()) {
                let mut next = vec![0; n];
                mem.update(m, gain, &mut next)?;
                *m = next;
            }
            let gap = |v: &[u32]| {
                v.iter().max().copied().unwrap_or(0) - v.iter().min().copied().unwrap_or(0)
            };
            if ms[0] != u {
                p2_bad += 1;
            }
            for m in &ms {
                p2_evals += 1;
                if gap(m) != gap(&u) {
                    p2_bad += 1;
                }
            }
            for w in WELFARES {
                if w.check(n).is_err() {
                    continue;
                }
                let truth = w.eval_counts(&u);
                for (mem, m) in mems.iter().zip(&ms) {
                    if mem.kind().is_sufficient_for(&w) {
                        p2_evals += 1;
                        if (w.eval_counts(m) - truth).abs() > ROUNDING {
                            p2_bad += 1;
                        }
                    }
                }
            }
        }
    }

    // P3: on the official stochastic Donut, every counterfactual experience
    // (m̃, r̃, m̃', end) of the official window equals what the environment
    // gives when its memory is forced to m̃, for every outcome s' of the
    // real step: m̃' = m̃ + e_a if the person is present, r̃ = NSW(m̃') (0 for
    // a dropped donut), end ⇔ Σm̃' + drops' ≥ T.
    let env = donut(super::PRESENCE, PEOPLE, HORIZON)?;
    let mem = Memory::new(MemoryKind::Full, PEOPLE, HORIZON)?;
    let exact = dp::optimal(&env, GAMMA)?;
    let mut states: Vec<(usize, Vec<u32>)> = exact.states().collect();
    states.sort_unstable();
    let window = CounterfactualSet::Window {
        offset: 0,
        width: 2,
    };
    let nsw = Welfare::nsw();
    let (mut p3_bad, mut p3_n) = (0usize, 0usize);
    for _ in 0..CASES {
        let (s, m) = &states[rng.random_range(0..states.len())];
        for a in 0..env.n_actions() {
            for o in env.outcomes(*s, a) {
                for mt in counterfactual_memories(&env, &mem, window, *s, m)? {
                    let cf = counterfactual(&env, &mem, *s, a, &o, &mt)?;
                    let present = *s >> a & 1 == 1;
                    let mut want = mt.clone();
                    if present {
                        want[a] += 1;
                    }
                    let want_f: Vec<f64> = want.iter().map(|&c| f64::from(c)).collect();
                    let r = if present { nsw.eval(&want_f)? } else { 0.0 };
                    let drops = o.next >> PEOPLE;
                    let end = want.iter().sum::<u32>() as usize + drops >= HORIZON;
                    p3_n += 1;
                    if cf.next_memory != want
                        || (cf.reward - r).abs() > ROUNDING
                        || cf.terminal != end
                    {
                        p3_bad += 1;
                    }
                }
            }
        }
    }

    Ok(vec![
        Check::new(
            format!(
                "P1: monitor verdicts ≠ brute force ({CASES} random histories, {p1_steps} steps; N ≤ 4, T ≤ 30)"
            ),
            p1_bad as f64,
            Relation::AtMost,
            0.0,
            "spec P1: anytime/periodic/bounded/long-term verdicts equal the brute-force recomputation exactly",
        ),
        Check::new(
            format!(
                "P2: memory-sufficiency mismatches ({CASES} random histories, {p2_evals} comparisons)"
            ),
            p2_bad as f64,
            Relation::AtMost,
            0.0,
            "spec P2: welfare from Full memory = welfare from the history; gap criterion from Min memory = from \
             the history (tolerance 1e-12: f64 rounding)",
        ),
        Check::new(
            format!(
                "P3: counterfactual experiences ≠ forced-memory environment ({p3_n} on the official Donut, window w = 2)"
            ),
            p3_bad as f64,
            Relation::AtMost,
            0.0,
            "spec P3: each generated (m̃, r̃, m̃') equals what the environment returns with its memory forced to m̃, \
             same s' (tolerance 1e-12: f64 rounding)",
        ),
    ])
}

/// P5: with p = 1 the anytime-NSW optimum equals the round-robin schedule's
/// return, on the headline's N = 3, T = 12 at γ ∈ {0.99, 1}.
pub fn p5_check() -> Result<Check, BoxError> {
    let env = donut(1.0, PEOPLE, HORIZON)?;
    let nsw = Welfare::nsw();
    let mut worst: f64 = 0.0;
    for gamma in [GAMMA, 1.0] {
        let exact = dp::optimal(&env, gamma)?;
        let mut u = vec![0u32; PEOPLE];
        let (mut ret, mut disc) = (0.0, 1.0);
        for step in 0..HORIZON {
            u[step % PEOPLE] += 1;
            ret += disc * nsw.eval_counts(&u);
            disc *= gamma;
        }
        worst = worst.max((exact.value - ret).abs());
    }
    Ok(Check::new(
        format!(
            "P5: |V*_DP − round-robin return|, p = 1, N = {PEOPLE}, T = {HORIZON}, γ ∈ {{0.99, 1}}"
        ),
        worst,
        Relation::AtMost,
        1e-12,
        "spec P5: the deterministic optimum is round robin (tolerance 1e-12 from the spec)",
    ))
}

/// Episodes of P4 (spec: 2e4).
pub const P4_EPISODES: usize = 20_000;
/// Seeds of P4 (spec: ≥ 19 of 20).
pub const P4_SEEDS: usize = 20;
/// The sup-norm bound of P4.
pub const P4_BOUND: f64 = 1e-2;

/// P4: on Donut N = 2, T = 4, tabular FairQCM (official window and ε schedule,
/// Robbins–Monro step size α = 1/n^0.8 per (s, m, a), the convergence
/// theorem's condition) after 2e4 episodes has ‖Q − Q*_DP‖∞ ≤ 1e-2 over every
/// reachable (s, m, a), in ≥ 19 of 20 seeds, at p = 1 and at p = 0.8.
pub fn p4_checks(seed: u64) -> Result<(Vec<Check>, Vec<Figure>), BoxError> {
    let mut checks = Vec::new();
    let mut figures = Vec::new();
    let params = QcmParams {
        step_size: StepSize::Polynomial { exponent: 0.8 },
        ..QcmParams::default()
    };
    for p in [1.0, super::PRESENCE] {
        let env = donut(p, 2, 4)?;
        let exact = dp::optimal(&env, params.gamma)?;
        let mut errs = Vec::with_capacity(P4_SEEDS);
        for k in 0..P4_SEEDS {
            let mut rng = seeded(seed.wrapping_add(77 + 1000 * k as u64));
            let mut l = FairQcm::new(&env, params)?;
            l.train(P4_EPISODES, &mut rng, |_| {});
            errs.push(exact.sup_error(&l)?);
        }
        let ok = errs.iter().filter(|&&e| e <= P4_BOUND).count();
        checks.push(
            Check::new(
                format!(
                    "P4: seeds with ‖Q − Q*_DP‖∞ ≤ 1e-2 after 2e4 episodes (Donut N = 2, T = 4, p = {p}; of {P4_SEEDS})"
                ),
                ok as f64,
                Relation::AtLeast,
                19.0,
                "spec P4 / issue 35 (2a): ‖Q − Q*_DP‖∞ ≤ 1e-2 at p ∈ {1, 0.8} in ≥ 19/20 seeds (paper: tabular \
                 FairQCM converges to the optimal Q)",
            )
            .with_seeds(P4_SEEDS),
        );
        figures.push(Figure::new(
            format!("P4: median ‖Q − Q*_DP‖∞ over seeds (p = {p})"),
            median(&errs),
        ));
        figures.push(Figure::new(
            format!("P4: worst ‖Q − Q*_DP‖∞ over seeds (p = {p})"),
            errs.iter().copied().fold(0.0, f64::max),
        ));
    }
    Ok((checks, figures))
}
