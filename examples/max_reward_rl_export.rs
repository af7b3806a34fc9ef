//! Writes max-reward MDPs, reduced to standard discounted MDPs, for an
//! external solver (`scripts/compare/max_reward_rl.py` solves them with
//! mdptoolbox-hiive), together with this crate's exact values.
//!
//! Cases: `trap` (the stochastic trap, γ = 0.9), `grid6` (6×6 slippery DSP
//! grid, waypoints every 3 steps, γ = 0.95) and `dsp8`, `dsp11`, `dsp15`
//! (the benchmark's n×n slippery DSP grids, `benches/max_reward_rl.rs`:
//! β = 0.9, waypoints every 5 steps, slip 0.2, γ = 0.93; at n = 15,
//! |Y| = 114 and 25 650 augmented states). For each case `<case>.mdp.txt` (format of
//! `FiniteMdp::write_text`: header `S A N`, then `s a next prob reward
//! terminal`), `<case>.values.txt` (v* of every exported state, from the
//! layered solver at tol 1e-12; the absorbing state last, 0) and
//! `<case>.meta` (`gamma S_base A n_y start_index`).
//!
//! Run: `cargo run --release --example max_reward_rl_export -- OUT_DIR`

use max_reward_rl::envs::{GridReward, GridWorld, TRAP_GAMMA, stochastic_trap};
use max_reward_rl::{MaxRewardMdp, MaxRewardParams};
use std::io::Write;
use std::path::{Path, PathBuf};
use tabular_mdp::ViParams;

fn write_case(
    dir: &Path,
    name: &str,
    m: &MaxRewardMdp,
    start: usize,
) -> Result<(), Box<dyn std::error::Error>> {
    let (std_mdp, gamma) = m.export_standard_mdp()?;
    let sol = m.solve(&ViParams {
        tol: 1e-12,
        max_iter: 10_000_000,
    })?;
    std_mdp.write_text(std::io::BufWriter::new(std::fs::File::create(
        dir.join(format!("{name}.mdp.txt")),
    )?))?;
    let mut vf = std::io::BufWriter::new(std::fs::File::create(
        dir.join(format!("{name}.values.txt")),
    )?);
    for s in 0..m.n_states() {
        for y in 0..m.n_y() {
            writeln!(vf, "{:?}", sol.v[[s, y]])?;
        }
    }
    writeln!(vf, "0.0")?;
    std::fs::write(
        dir.join(format!("{name}.meta")),
        format!(
            "{gamma:?} {} {} {} {}\n",
            m.n_states(),
            m.n_actions(),
            m.n_y(),
            m.export_index(start, 0)?
        ),
    )?;
    println!(
        "{name}: {} base states, |Y| = {}, {} exported states, {} outcomes, v*(start, 0) = {:.6}",
        m.n_states(),
        m.n_y(),
        std_mdp.n_states(),
        std_mdp.n_outcomes(),
        sol.v[[start, 0]]
    );
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = PathBuf::from(
        std::env::args()
            .nth(1)
            .unwrap_or_else(|| "target/max_reward_rl_export".into()),
    );
    std::fs::create_dir_all(&dir)?;
    let trap = MaxRewardMdp::new(&stochastic_trap(), &MaxRewardParams::with_gamma(TRAP_GAMMA))?;
    write_case(&dir, "trap", &trap, 0)?;
    let g6 = GridWorld::open(
        6,
        6,
        GridReward::Dsp {
            beta: 0.9,
            wp_freq: 3,
        },
        0.2,
    )?;
    let m6 = MaxRewardMdp::new(&g6.to_mdp()?, &MaxRewardParams::with_gamma(0.95))?;
    write_case(&dir, "grid6", &m6, g6.start())?;
    for n in [8, 11, 15] {
        let g = GridWorld::open(
            n,
            n,
            GridReward::Dsp {
                beta: 0.9,
                wp_freq: 5,
            },
            0.2,
        )?;
        let m = MaxRewardMdp::new(&g.to_mdp()?, &MaxRewardParams::with_gamma(0.93))?;
        write_case(&dir, &format!("dsp{n}"), &m, g.start())?;
    }
    Ok(())
}
