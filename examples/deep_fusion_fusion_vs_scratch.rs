//! Deep Fusion against training from scratch on the vendored digits and on
//! the spec's teacher–student regression: two width-32 two-hidden-layer MLPs
//! trained 1,000 AdamW steps on different halves, fused to width 64 and
//! trained 1,000 more, against width 64 from scratch for 2,000 steps on the
//! same batches. Prints test loss against cumulative FLOPs (the small
//! networks' training counted) and the FLOPs fusion needs to reach the
//! scratch model's final test loss.
//!
//! `cargo run --release --example deep_fusion_fusion_vs_scratch [seeds]`

use deep_fusion::experiment::{Schedule, digits_task, fusion_vs_scratch, teacher_student_task};
use mlcore::sampling::seeded;
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let seeds: u64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(3);
    let data = mlcore::data::Dataset::open(concat!(env!("CARGO_MANIFEST_DIR"), "/data/digits"))?;
    for task_name in ["digits", "teacher-student"] {
        println!("== {task_name} ==");
        for seed in 0..seeds {
            let start = Instant::now();
            let mut rng = seeded(seed);
            let task = if task_name == "digits" {
                digits_task(&data, 0.2, &mut rng)?
            } else {
                teacher_student_task(16, 64, 4000, 1000, 0.05, &mut rng)?
            };
            let mut s = Schedule::default();
            if task_name != "digits" {
                s.activation = deep_fusion::Activation::Tanh;
            }
            let c = fusion_vs_scratch(&task, &s, &mut rng)?;
            let ratio = c.fusion_flops_to_reach.map(|f| f / c.scratch_flops);
            println!(
                "seed {seed}: scratch final test loss {:.4} at {:.3e} FLOPs; fusion starts at {:.4} after {:.3e} FLOPs, ends at {:.4}; FLOPs to reach / scratch = {} ({:.1} s)",
                c.scratch_final,
                c.scratch_flops,
                c.fusion[0].1,
                c.small_flops,
                c.fusion.last().map_or(f64::NAN, |p| p.1),
                ratio.map_or("not reached".to_string(), |r| format!("{r:.3}")),
                start.elapsed().as_secs_f64()
            );
        }
    }
    Ok(())
}
