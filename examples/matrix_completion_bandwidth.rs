//! Achieved memory bandwidth of the matrix-completion gradient step against a
//! STREAM-triad measurement of this machine (issue 35, speed item).
//!
//! `cargo run --release --example matrix_completion_bandwidth`
//!
//! 1. STREAM triad `a[i] = b[i] + s·c[i]` (McCalpin's kernel, 24 bytes per
//!    element counted: two reads, one write; write-allocate traffic not
//!    counted, as in STREAM) on one thread, at three array sizes: L2-resident
//!    (3 × 256 KiB), L3-resident (3 × 4 MiB) and memory-resident (3 × 128 MiB,
//!    12× the 32 MiB L3). Best of 20 timings (STREAM's convention), so
//!    interference from other processes only ever lowers a figure.
//! 2. The gradient step at MovieLens-100k shape (943 × 1682, N = 80 000
//!    uniform, L = 3, k = 32; the criterion bench's largest case), best and
//!    median of 200 steps, single-threaded, and one training epoch at 1 and 2
//!    threads (bitwise the same result).
//! 3. Bytes per step, counted two ways. *Compulsory*: every array the step
//!    must read or write once: per entry the row pass reads row, column (u32)
//!    and value (f64) and writes gᵢⱼ (f64), the column pass reads the CSC row,
//!    column and position (u32) and gathers gᵢⱼ (f64): 44 B; plus P and Bᵀ
//!    read by each pass and S, T written: 4·(m + n)·k·8 B. *Touched*: the
//!    k-vector loads and stores each entry makes (row pass: Pᵢ, Bⱼ and Sᵢ
//!    loaded, Sᵢ stored; column pass: Pᵢ and Tⱼ loaded, Tⱼ stored: 7·k·8 B per
//!    entry), served by L1/L2/L3: the traffic the caches carry.

use matrix_completion::link::Link;
use matrix_completion::model::DeepMf;
use matrix_completion::synthetic::{Sampling, TrueLink, low_rank, sample};
use matrix_completion::train::{TrainConfig, fit};
use mlcore::sampling::seeded;
use std::hint::black_box;
use std::time::Instant;

/// Best triad bandwidth (GB/s, 10⁹ B/s) over `reps` timings on arrays of
/// `len` doubles; each timing repeats the kernel until it has moved at least
/// 384 MiB, so small (cache-resident) arrays are not timed at the clock's
/// resolution.
fn triad(len: usize, reps: usize) -> f64 {
    let passes = (16 * 1024 * 1024 / len).max(1);
    let b: Vec<f64> = (0..len).map(|i| i as f64 * 0.5).collect();
    let c: Vec<f64> = (0..len).map(|i| 1.0 + i as f64).collect();
    let mut a = vec![0.0; len];
    let s = 3.0;
    let mut best = f64::INFINITY;
    for _ in 0..reps {
        let t0 = Instant::now();
        for _ in 0..passes {
            for ((ai, bi), ci) in a.iter_mut().zip(&b).zip(&c) {
                *ai = bi + s * ci;
            }
            black_box(&mut a);
        }
        best = best.min(t0.elapsed().as_secs_f64());
    }
    assert!(a[len - 1] == b[len - 1] + s * c[len - 1]);
    24.0 * (len * passes) as f64 / best / 1e9
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("STREAM triad, one thread, best of 20:");
    let mut stream = Vec::new();
    for (label, len) in [
        ("L2 (3 × 256 KiB)", 32 * 1024),
        ("L3 (3 × 4 MiB)", 512 * 1024),
        ("memory (3 × 128 MiB)", 16 * 1024 * 1024),
    ] {
        let bw = triad(len, 20);
        println!("  {label:<22} {bw:7.2} GB/s");
        stream.push(bw);
    }

    let (m, n, nobs, k) = (943usize, 1682usize, 80_000usize, 32usize);
    let mut rng = seeded(7);
    let g = low_rank(m, n, 5, &mut rng)?;
    let obs = sample(
        &g,
        TrueLink::RATINGS,
        Sampling::Uniform,
        nobs,
        0.1,
        &mut rng,
    )?;
    let model = DeepMf::random(
        m,
        n,
        3,
        k,
        0.1,
        Link::Identity(Default::default()),
        obs.mean(),
        &mut rng,
    )?;
    let mut times = Vec::with_capacity(200);
    for _ in 0..200 {
        let t0 = Instant::now();
        black_box(model.objective_and_gradient(&obs, 1e-4, None)?);
        times.push(t0.elapsed().as_secs_f64());
    }
    times.sort_by(f64::total_cmp);
    let (best, median) = (times[0], times[100]);
    let compulsory = (44 * nobs + 4 * (m + n) * k * 8) as f64;
    let touched = (7 * k * 8 * nobs) as f64;
    println!("\ngradient step, {m} × {n}, N = {nobs}, L = 3, k = {k}, one thread:");
    println!(
        "  time: best {:.3} ms, median {:.3} ms",
        best * 1e3,
        median * 1e3
    );
    for (what, bytes) in [("compulsory", compulsory), ("touched", touched)] {
        let bw = bytes / best / 1e9;
        println!(
            "  {what:<10} {:6.2} MB/step -> {bw:6.2} GB/s at the best time = {:.0} % of memory triad, {:.0} % of L3 triad, {:.0} % of L2 triad",
            bytes / 1e6,
            100.0 * bw / stream[2],
            100.0 * bw / stream[1],
            100.0 * bw / stream[0]
        );
    }
    println!(
        "  memory-bandwidth floor of the compulsory traffic: {:.3} ms/step (the step is {:.1}× that)",
        compulsory / (stream[2] * 1e9) * 1e3,
        best / (compulsory / (stream[2] * 1e9))
    );

    println!("\none epoch of fit (gradient, Adam step, evaluation pass), 20 epochs:");
    let mut first: Option<Vec<u64>> = None;
    for threads in [1usize, 2] {
        let cfg = TrainConfig {
            depth: 3,
            width: k,
            lambda: 1e-4,
            epochs: 20,
            threads,
            ..TrainConfig::default()
        };
        let t0 = Instant::now();
        let f = fit(&obs, None, &cfg, &mut seeded(1))?;
        let per = t0.elapsed().as_secs_f64() / 20.0;
        let bits: Vec<u64> = f.history.iter().map(|h| h.objective.to_bits()).collect();
        let same = first.get_or_insert_with(|| bits.clone()) == &bits;
        println!(
            "  threads = {threads}: {:.3} ms/epoch (wall), history bitwise equal to threads = 1: {same}",
            per * 1e3
        );
    }
    Ok(())
}
