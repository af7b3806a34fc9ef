//! Value iteration for max-reward RL in `max-reward-rl`: the workload a user
//! runs most, solving the augmented MDP of a slippery DSP grid.
//!
//! Grids: open n×n, n ∈ {8, 11, 15}, DSP rewards (β = 0.9, waypoints every 5
//! steps), slip 0.2, max-reward γ = 0.93; the 15×15 grid has |Y| = 114 and
//! 25 650 augmented states (the case `scripts/compare/max_reward_rl.py`
//! solves with mdptoolbox-hiive). All solvers stop at tol = 1e-10
//! (‖v − v*‖∞ ≤ 1e-10). Groups:
//!
//! - `max_reward_vi`: plain value iteration on all (s, y) ([`MaxRewardMdp::value_iteration`]);
//! - `max_reward_solve`: the exact layered solver ([`MaxRewardMdp::solve`]);
//! - `export_vi`: the generic `tabular_mdp::value_iteration` on the exported standard MDP
//!   (the same MDP and algorithm as mdptoolbox's `ValueIteration`);
//! - `sum_vi`: sum-reward value iteration on the base MDP (γ = 0.93), for the
//!   overhead factor of the augmented state.
//!
//! Run with `cargo bench --bench max_reward_rl`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use max_reward_rl::envs::{GridReward, GridWorld};
use max_reward_rl::{MaxRewardMdp, MaxRewardParams};
use tabular_mdp::{FiniteMdp, ViParams, value_iteration};

const SIZES: [usize; 3] = [8, 11, 15];
const GAMMA: f64 = 0.93;

fn grid(n: usize) -> (FiniteMdp, MaxRewardMdp) {
    let g = GridWorld::open(
        n,
        n,
        GridReward::Dsp {
            beta: 0.9,
            wp_freq: 5,
        },
        0.2,
    )
    .expect("valid grid");
    let mdp = g.to_mdp().expect("valid MDP");
    let m =
        MaxRewardMdp::new(&mdp, &MaxRewardParams::with_gamma(GAMMA)).expect("valid max-reward MDP");
    (mdp, m)
}

fn benches(c: &mut Criterion) {
    let params = ViParams {
        tol: 1e-10,
        max_iter: 1_000_000,
    };
    let cases: Vec<(usize, FiniteMdp, MaxRewardMdp)> = SIZES
        .iter()
        .map(|&n| {
            let (mdp, m) = grid(n);
            (n, mdp, m)
        })
        .collect();
    let mut group = c.benchmark_group("max_reward_vi");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    for (n, _, m) in &cases {
        group.bench_with_input(BenchmarkId::from_parameter(format!("n{n}")), m, |b, m| {
            b.iter(|| black_box(m.value_iteration(&params).expect("converges")))
        });
    }
    group.finish();
    let mut group = c.benchmark_group("max_reward_solve");
    group
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    for (n, _, m) in &cases {
        group.bench_with_input(BenchmarkId::from_parameter(format!("n{n}")), m, |b, m| {
            b.iter(|| black_box(m.solve(&params).expect("converges")))
        });
    }
    group.finish();
    let mut group = c.benchmark_group("export_vi");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    for (n, _, m) in &cases {
        let (std_mdp, g) = m.export_standard_mdp().expect("exports");
        group.bench_with_input(
            BenchmarkId::from_parameter(format!("n{n}")),
            &std_mdp,
            |b, std_mdp| {
                b.iter(|| black_box(value_iteration(std_mdp, g, &params).expect("converges")))
            },
        );
    }
    group.finish();
    let mut group = c.benchmark_group("sum_vi");
    group
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(2));
    for (n, mdp, _) in &cases {
        group.bench_with_input(
            BenchmarkId::from_parameter(format!("n{n}")),
            mdp,
            |b, mdp| b.iter(|| black_box(value_iteration(mdp, GAMMA, &params).expect("converges"))),
        );
    }
    group.finish();
}

criterion_group!(max_reward_rl, benches);
criterion_main!(max_reward_rl);
