//! Finite-width universality: a forced damped pendulum (RK4) driven by iid
//! N(0, 1) inputs is learned by recurrence (N states, ring [0.5, 0.99] or real
//! [0.5, 0.99], γ on) + random-feature readout of width D fitted by ridge;
//! prints the test MSE for D ∈ {16 … 1024} at N = 32 and for N ∈ {2 … 64} at D = 256.
//!
//! What to check: the error falls with D and with N, and the complex ring is
//! at least as good as the real spectrum at equal N.
//!
//! Run: `cargo run --release --example ssm_universality_ode_universality [-- SEED TRAIN RIDGE]`
//! (defaults 0, 60 training sequences of 80 steps, ridge 1e-3).

use mlcore::sampling::{seeded, standard_normal};
use ndarray::{Array1, Array2, Axis};
use ssm_universality::experiments::{Seq2SeqData, seq2seq_test_mse};
use ssm_universality::rnn::DiagLinearRnn;
use ssm_universality::spectrum::Spectrum;
use ssm_universality::tasks::ForcedPendulum;
use std::f64::consts::TAU;

type Seqs = (Vec<Array2<f64>>, Vec<Array2<f64>>);

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let seed: u64 = args.get(1).map_or(Ok(0), |s| s.parse())?;
    let n_train: usize = args.get(2).map_or(Ok(60), |s| s.parse())?;
    let ridge: f64 = args.get(3).map_or(Ok(1e-3), |s| s.parse())?;
    let mut rng = seeded(seed);
    let p = ForcedPendulum::default();
    let mut make = |count: usize| -> Result<Seqs, Box<dyn std::error::Error>> {
        let (mut us, mut ys) = (vec![], vec![]);
        for _ in 0..count {
            let u: Array1<f64> = standard_normal(80, &mut rng);
            ys.push(p.drive(u.view())?.insert_axis(Axis(1)));
            us.push(u.insert_axis(Axis(1)));
        }
        Ok((us, ys))
    };
    let (train_u, train_y) = make(n_train)?;
    let (test_u, test_y) = make(10)?;
    let data = Seq2SeqData {
        train_u,
        train_y,
        test_u,
        test_y,
    };
    let var = data
        .test_y
        .iter()
        .flat_map(|y| y.iter().copied())
        .map(|x| x * x)
        .sum::<f64>()
        / data.test_y.iter().map(|y| y.len()).sum::<usize>() as f64;
    println!("test target mean square: {var:.4e}");
    let specs = [
        (
            "ring",
            Spectrum::LruRing {
                r_min: 0.5,
                r_max: 0.99,
                max_phase: TAU,
            },
        ),
        ("real", Spectrum::RealUniform { lo: 0.5, hi: 0.99 }),
    ];
    for (name, s) in &specs {
        let rnn = DiagLinearRnn::from_spectrum(s, 32, true, &mut rng)?;
        print!("{name}, N = 32, MSE by D:");
        for d in [16usize, 32, 64, 128, 256, 512, 1024] {
            print!(
                "  {d}: {:.3e}",
                seq2seq_test_mse(&rnn, &data, d, ridge, &mut rng)?
            );
        }
        println!();
        print!("{name}, D = 256, MSE by N:");
        for n in [2usize, 4, 8, 16, 32, 64] {
            let r = DiagLinearRnn::from_spectrum(s, n, true, &mut rng)?;
            print!(
                "  {n}: {:.3e}",
                seq2seq_test_mse(&r, &data, 256, ridge, &mut rng)?
            );
        }
        println!();
    }
    Ok(())
}
