//! The Fenrir negative log-likelihood and its gradient in
//! `diffusion-tempering`: the workload every L-BFGS iteration of diffusion
//! tempering runs.
//!
//! Inputs: Lotka–Volterra (α, β) with true `(1.5, 1, 3, 1)`, `x₀ = y₀ = 1`,
//! both states observed with σ² = 0.1 (`seeded(7)`), EK1, q = 3, κ² = 1,
//! fixed step dt = 0.01 on `[0, T]` with T ∈ {5, 10, 20} (501, 1001, 2001
//! grid points, data at every point), evaluated at `(1.6, 0.9)`. The value
//! alone, value + gradient (forward-mode duals), and, as a lower bound, the
//! L2 loss + gradient of an adaptive Dormand–Prince solution at the same
//! data.
//!
//! Run with `cargo bench --bench diffusion_tempering`;
//! `scripts/compare/diffusion_tempering.py` runs probdiffeq (JAX, CPU, jit)
//! on the same problem and reports the ratios recorded in `docs/perf.md`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use diffusion_tempering::models::LotkaVolterra;
use diffusion_tempering::{FilterConfig, Grid, Synthetic};
use mlcore::sampling::seeded;

const ENDS: [f64; 3] = [5.0, 10.0, 20.0];
const THETA: [f64; 2] = [1.6, 0.9];

fn benches(c: &mut Criterion) {
    let mut group = c.benchmark_group("fenrir_nll_lv");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    let model = LotkaVolterra::two_param();
    for t1 in ENDS {
        let grid = Grid::uniform(0.0, t1, 0.01).expect("valid grid");
        let steps = grid.len();
        let Synthetic { lik, l2 } = Synthetic::new(
            model,
            &[1.5, 1.0],
            grid,
            &[0, 1],
            0.1,
            FilterConfig::default(),
            &mut seeded(7),
        )
        .expect("valid problem");
        group.bench_with_input(BenchmarkId::new("value", steps), &lik, |b, lik| {
            b.iter(|| black_box(lik.nll(&THETA, 1.0).expect("finite")))
        });
        group.bench_with_input(BenchmarkId::new("value_grad", steps), &lik, |b, lik| {
            b.iter(|| black_box(lik.nll_grad(&THETA, 1.0).expect("finite")))
        });
        group.bench_with_input(
            BenchmarkId::new("l2_dp5_value_grad", steps),
            &l2,
            |b, l2| b.iter(|| black_box(l2.nll_grad(&THETA).expect("finite"))),
        );
    }
    group.finish();
}

criterion_group!(diffusion_tempering, benches);
criterion_main!(diffusion_tempering);
