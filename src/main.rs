//! `cargo run --release`: reproduces every registered paper's headline claim
//! at the quick budget and writes a report (see `--help`).

fn main() {
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
