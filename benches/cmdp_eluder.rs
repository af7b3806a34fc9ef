//! Per-episode cost of the `cmdp-eluder` agents as |𝒫| and |ℱ| grow, and the exact
//! V*_c computation used for regret accounting.
//!
//! Workload: T = 256 episodes of act + sample + observe on the XOR-context
//! instance (|C| = 10, H = 3, S = 6, A = 2, |ℱ| = 4) with |𝒫| ∈ {8, 64, 256}
//! (the |𝒫|-scaled XOR classes of `instances::xor_instance`), for E-UC³RL
//! (2 oracle calls per doubling epoch: 18 in 256 episodes, one plan per new
//! (epoch, context)) and the version-space agent (|ℱ_t|·|𝒫_t| plans per
//! episode). Per-episode time = median / 256. Plus `vstar/xor`: V*_c for the
//! 10 contexts (tabular-mdp DP), which `scripts/compare/cmdp_eluder.py`
//! times against mdptoolbox-hiive's FiniteHorizon.
//!
//! Run with `cargo bench --bench cmdp_eluder`.

use std::hint::black_box;
use std::time::Duration;

use cmdp_eluder::agent::{Agent, EUc3rl, EUc3rlParams, VersionSpaceAgent, VersionSpaceParams};
use cmdp_eluder::class::RewardClass;
use cmdp_eluder::instances::{Instance, xor_instance};
use cmdp_eluder::oracle::{EnumerationLeastSquares, EnumerationLogLoss};
use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, BenchmarkId, Criterion, criterion_group, criterion_main};
use mlcore::sampling::seeded;

/// Episodes per measured run.
pub const EPISODES: usize = 256;
const SIZES: [usize; 3] = [8, 64, 256];
/// |ℱ| of the reward-class growth rows (at |𝒫| = 8).
const F_SIZES: [usize; 3] = [16, 64, 256];

fn play(inst: &Instance, agent: &mut dyn Agent) -> f64 {
    let mut rng = seeded(11);
    let mut total = 0.0;
    for _ in 0..EPISODES {
        let c = inst.cmdp.contexts().sample(&mut rng);
        let pi = agent.act(c).expect("valid context");
        let traj = inst
            .cmdp
            .run_episode(c, &pi, &mut rng)
            .expect("valid policy");
        total += traj.steps.iter().map(|s| s.reward).sum::<f64>();
        agent.observe(&traj).expect("realizable");
    }
    total
}

/// The XOR instance (|𝒫| = 8) with its reward class widened to `n_f`
/// members: the four XOR models and shifted copies f_{k mod 4} + 0.001·⌊k/4⌋
/// (entries stay in [0, 1]; the true model is unchanged, so the class stays
/// realizable and only the oracle's enumeration grows).
fn widened(n_f: usize) -> Instance {
    let mut inst = xor_instance(10, 8).expect("valid instance");
    let base = inst.rewards.models().to_vec();
    let models = (0..n_f)
        .map(|k| base[k % 4].mapv(|r| (r + 0.001 * (k / 4) as f64).min(1.0)))
        .collect();
    inst.rewards = RewardClass::from_tables(models).expect("valid class");
    inst
}

/// E-UC³RL and the version-space agent for 256 episodes on `inst`.
fn both_agents(
    group: &mut BenchmarkGroup<'_, WallTime>,
    label: &str,
    size: usize,
    inst: &Instance,
) {
    group.bench_with_input(
        BenchmarkId::new(format!("euc3rl{label}"), size),
        inst,
        |b, inst| {
            b.iter(|| {
                let mut agent = EUc3rl::new(
                    inst.cmdp.space().clone(),
                    10,
                    2,
                    EnumerationLeastSquares::new(inst.rewards.clone()),
                    EnumerationLogLoss::new(inst.dynamics.clone()),
                    EUc3rlParams::default(),
                )
                .expect("valid parameters");
                black_box(play(inst, &mut agent))
            })
        },
    );
    group.bench_with_input(
        BenchmarkId::new(format!("version_space{label}"), size),
        inst,
        |b, inst| {
            b.iter(|| {
                let mut agent = VersionSpaceAgent::new(
                    inst.rewards.clone(),
                    inst.dynamics.clone(),
                    VersionSpaceParams::default(),
                )
                .expect("valid parameters");
                black_box(play(inst, &mut agent))
            })
        },
    );
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("cmdp_eluder_run256");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    for n_p in SIZES {
        let inst = xor_instance(10, n_p).expect("valid instance");
        both_agents(&mut group, "", n_p, &inst);
    }
    // Growth with |ℱ| at |𝒫| = 8 (|ℱ| = 4 is the first row above).
    for n_f in F_SIZES {
        both_agents(&mut group, "_f", n_f, &widened(n_f));
    }
    group.finish();
    let mut group = c.benchmark_group("cmdp_eluder_vstar");
    group
        .sample_size(20)
        .measurement_time(Duration::from_secs(2));
    let inst = xor_instance(10, 8).expect("valid instance");
    group.bench_function("xor", |b| {
        b.iter(|| black_box(inst.cmdp.optimal_values().expect("valid")))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
