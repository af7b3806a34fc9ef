//! Lewis weights and multiple ℓp regression on matrices read from CSV files
//! (one row per line, comma-separated, no header), for side-by-side runs with
//! other implementations (`scripts/compare/coreset.py`).
//!
//! ```text
//! cargo run --release -p coreset --example csv_io -- lewis A.csv P OUT.csv
//! cargo run --release -p coreset --example csv_io -- solve A.csv B.csv P OUT.csv
//! ```
//!
//! `lewis` writes the weights (one per line) and prints `iterations` and the
//! fixed-point residual; `solve` writes `X` (d rows, m columns) and prints
//! the cost `F(X)`. Numbers are written with 17 significant digits.

use coreset::lewis::{LewisOptions, lewis_weights};
use coreset::regression::{IrlsOptions, solve};
use ndarray::Array2;
use std::error::Error;
use std::fs;
use std::io::Write;

fn read_csv(path: &str) -> Result<Array2<f64>, Box<dyn Error>> {
    let text = fs::read_to_string(path)?;
    let mut data = Vec::new();
    let mut cols = None;
    let mut rows = 0;
    for (lineno, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let vals: Vec<f64> = line
            .split(',')
            .map(|s| s.trim().parse::<f64>())
            .collect::<Result<_, _>>()
            .map_err(|e| format!("{path}:{}: {e}", lineno + 1))?;
        match cols {
            None => cols = Some(vals.len()),
            Some(c) if c != vals.len() => {
                return Err(
                    format!("{path}:{}: {} values, expected {c}", lineno + 1, vals.len()).into(),
                );
            }
            _ => {}
        }
        data.extend(vals);
        rows += 1;
    }
    Ok(Array2::from_shape_vec((rows, cols.unwrap_or(0)), data)?)
}

fn main() -> Result<(), Box<dyn Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("lewis") if args.len() == 4 => {
            let a = read_csv(&args[1])?;
            let p: f64 = args[2].parse()?;
            let lw = lewis_weights(a.view(), p, &LewisOptions::default())?;
            let mut out = fs::File::create(&args[3])?;
            for w in &lw.w() {
                writeln!(out, "{w:.17e}")?;
            }
            println!(
                "iterations {} residual {:e} rank {}",
                lw.iterations(),
                lw.fixed_point_residual(),
                lw.rank()
            );
        }
        Some("solve") if args.len() == 5 => {
            let a = read_csv(&args[1])?;
            let b = read_csv(&args[2])?;
            let p: f64 = args[3].parse()?;
            let sol = solve(a.view(), b.view(), p, None, &IrlsOptions::default())?;
            let mut out = fs::File::create(&args[4])?;
            for row in sol.x.rows() {
                let line: Vec<String> = row.iter().map(|v| format!("{v:.17e}")).collect();
                writeln!(out, "{}", line.join(","))?;
            }
            println!("cost {:.17e}", sol.cost);
        }
        _ => {
            eprintln!("usage: csv_io lewis A.csv P OUT.csv | csv_io solve A.csv B.csv P OUT.csv");
            std::process::exit(2);
        }
    }
    Ok(())
}
