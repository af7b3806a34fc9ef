//! `cargo run --release`: reproduces every registered paper's headline claim
//! at the quick budget and writes a report (see `--help`).

fn main() {
    let registry = icml24_runner::reproduce::registry();
    let code = icml24_runner::runner::main_with(
        std::env::args().skip(1),
        &registry,
        &mut std::io::stdout(),
    );
    std::process::exit(code);
}
