//! `cargo run --release`: reproduces every registered paper's headline claim
//! at the quick budget and writes a report (see `--help`).

fn main() {
    let registry = icml24::reproduce::registry();
    let code =
        icml24::runner::main_with(std::env::args().skip(1), &registry, &mut std::io::stdout());
    std::process::exit(code);
}
