//! `cargo run --release`: reproduces every registered paper's headline claim
//! at the quick budget and writes a report (see `--help`).

fn main() {
    candle_thread_defaults();
    // candle's per-tensor buffers: keep freed memory instead of faulting it back in every step.
    nncore::alloc::retain_freed_memory();
    let registry = icml24_runner::reproduce::registry();
    let code = icml24_runner::runner::main_with(
        std::env::args().skip(1),
        &registry,
        &mut std::io::stdout(),
    );
    std::process::exit(code);
}

/// Thread defaults for candle's CPU kernels, unless the caller set them.
///
/// * `CANDLE_NUM_THREADS=1`: candle's element-wise kernels run on a pool of
///   spinning barrier workers; on the tensors of the paper-sized models here
///   (≤ 10⁶ elements) on a loaded 2-core machine the main thread spent most
///   of its time spinning for descheduled workers (svgp-ksvd quick run: 77 s
///   of CPU with the pool, 23 s without, same results).
/// * `RAYON_NUM_THREADS` = the available parallelism (rayon's own default,
///   so rayon users see no change): without it candle re-reads
///   `/proc/cpuinfo` to count physical cores on every matrix product
///   (≈ 10 % of a small training step).
#[allow(unsafe_code)]
fn candle_thread_defaults() {
    if std::env::var_os("CANDLE_NUM_THREADS").is_none() {
        // SAFETY: first statement of `main`, before any other thread exists.
        unsafe { std::env::set_var("CANDLE_NUM_THREADS", "1") };
    }
    if std::env::var_os("RAYON_NUM_THREADS").is_none() {
        let n = std::thread::available_parallelism().map_or(1, |n| n.get());
        // SAFETY: as above, still single-threaded.
        unsafe { std::env::set_var("RAYON_NUM_THREADS", n.to_string()) };
    }
}
