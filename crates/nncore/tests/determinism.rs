//! Same seed, bitwise-equal losses: twice in one process, and across candle's
//! CPU thread counts (RAYON_NUM_THREADS = 1, 2, 3 in child processes).
//!
//! The thread-count run trains full-batch (1,437 × 64 inputs, a 256-wide
//! hidden layer) so that the matrix products are large enough for candle's
//! gemm to split them across threads; the split is by output blocks, each
//! output element keeps its own summation order, so the losses stay bit for
//! bit the same.

use candle_core::Device;
use mlcore::data::{Dataset, workspace_data_dir};
use nncore::data::ClassificationData;
use nncore::models::Mlp;
use nncore::optim::Schedule;
use nncore::params::ParamSet;
use nncore::readers;
use nncore::train::{TrainConfig, fit};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

fn digits() -> ClassificationData {
    readers::digits(&Dataset::open(workspace_data_dir().join("digits")).unwrap())
        .unwrap()
        .scaled(1.0 / 16.0)
        .unwrap()
}

fn losses(data: &ClassificationData, hidden: usize, batch: usize, epochs: usize) -> Vec<f64> {
    let dev = Device::Cpu;
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let mut params = ParamSet::new();
    let mlp = Mlp::new(&[64, hidden, 10], "fc", &mut params, &mut rng, &dev).unwrap();
    let config = TrainConfig {
        epochs,
        batch_size: batch,
        learning_rate: 3e-3,
        schedule: Schedule::WarmupCosine {
            warmup_steps: 3,
            final_fraction: 0.1,
        },
        clip_norm: Some(1.0),
        progress: false,
        ..Default::default()
    };
    fit(
        &params,
        data.len(),
        &config,
        &mut rng,
        |idx| {
            let (x, y) = data.batch(idx, &dev).map_err(candle_core::Error::wrap)?;
            candle_nn::loss::cross_entropy(&mlp.forward(&x)?, &y)
        },
        None,
    )
    .unwrap()
    .step_losses
}

#[test]
fn same_seed_gives_bitwise_equal_losses() {
    let data = digits();
    let a = losses(&data, 64, 32, 2);
    let b = losses(&data, 64, 32, 2);
    assert_eq!(a.len(), 2 * 1797_usize.div_ceil(32));
    assert!(a.iter().zip(&b).all(|(x, y)| x.to_bits() == y.to_bits()));
    // And the loss went down: the loop trains.
    assert!(a.last().unwrap() < &(0.5 * a[0]));
}

const CHILD_ENV: &str = "NNCORE_DETERMINISM_CHILD";

/// Run by `losses_do_not_depend_on_the_thread_count` in a child process.
#[test]
#[ignore = "helper: run in a child process by losses_do_not_depend_on_the_thread_count"]
fn child_full_batch_losses() {
    assert!(
        std::env::var(CHILD_ENV).is_ok(),
        "run through the parent test"
    );
    let bits: Vec<String> = losses(&digits(), 256, 1797, 8)
        .iter()
        .map(|l| format!("{:016x}", l.to_bits()))
        .collect();
    println!("LOSSES {}", bits.join(","));
}

#[test]
fn losses_do_not_depend_on_the_thread_count() {
    let exe = std::env::current_exe().unwrap();
    let run = |threads: &str| -> String {
        let out = std::process::Command::new(&exe)
            .args([
                "--ignored",
                "--exact",
                "child_full_batch_losses",
                "--nocapture",
            ])
            .env(CHILD_ENV, "1")
            .env("RAYON_NUM_THREADS", threads)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .find_map(|l| l.strip_prefix("LOSSES ").map(str::to_string))
            .expect("the child prints its losses")
    };
    let one = run("1");
    assert_eq!(one.split(',').count(), 8);
    for threads in ["2", "3"] {
        assert_eq!(run(threads), one, "losses differ with {threads} threads");
    }
}
