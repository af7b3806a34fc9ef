//! Speed item of issue 35: rayon over the entries with results identical to
//! the serial run. `TrainConfig::threads` changes which core runs a block of
//! entries, never an addition's operands or order, so every figure of a fit
//! (factors, link, history) is bitwise the serial one, for every thread count.

use matrix_completion::data::{Duplicates, Observations};
use matrix_completion::link::ScalarLink;
use matrix_completion::model::DeepMf;
use matrix_completion::synthetic::{Sampling, TrueLink, low_rank, sample};
use matrix_completion::train::{LinkConfig, TrainConfig, Weighting, fit};
use mlcore::sampling::seeded;

/// Bit patterns of everything a fit returns.
fn bits(f: &matrix_completion::train::Fitted) -> Vec<u64> {
    let mut v: Vec<u64> = f
        .model
        .factors()
        .iter()
        .flat_map(|a| a.iter().map(|x| x.to_bits()).collect::<Vec<_>>())
        .collect();
    v.extend(f.model.link().params().iter().map(|x| x.to_bits()));
    for h in &f.history {
        v.push(h.objective.to_bits());
        v.push(h.train_rmse.to_bits());
        v.push(h.valid_rmse.unwrap_or(f64::NAN).to_bits());
    }
    v
}

/// Power-law sampling (rows of very different lengths, so blocks of very
/// different sizes), more entries than one block, every link and weighting:
/// threads 2, 3, 8 and 0 (all cores) give bitwise the serial fit.
#[test]
fn fit_is_bitwise_identical_for_every_thread_count() {
    let mut rng = seeded(35);
    let g = low_rank(150, 120, 3, &mut rng).unwrap();
    let obs = sample(
        &g,
        TrueLink::RATINGS,
        Sampling::PowerLaw { alpha: 1.0 },
        9_000,
        0.1,
        &mut rng,
    )
    .unwrap();
    let (train, valid) = obs.split(0.2, &mut rng).unwrap();
    assert!(train.len() > 4096, "more entries than one block");
    for (depth, link, weighting) in [
        (3, LinkConfig::Identity, Weighting::None),
        (
            2,
            LinkConfig::FRMC_DEFAULT,
            Weighting::Smoothed { zeta: 0.5 },
        ),
        (4, LinkConfig::Identity, Weighting::Smoothed { zeta: 0.5 }),
    ] {
        let cfg = |threads| TrainConfig {
            depth,
            width: 21, // blocks of sixteen, of four and a tail in every dot product
            lambda: 1e-4,
            link,
            weighting,
            epochs: 30,
            threads,
            ..TrainConfig::default()
        };
        let serial = fit(&train, Some(&valid), &cfg(1), &mut seeded(7)).unwrap();
        for threads in [2, 3, 8, 0] {
            let par = fit(&train, Some(&valid), &cfg(threads), &mut seeded(7)).unwrap();
            assert_eq!(
                bits(&serial),
                bits(&par),
                "depth {depth}, {link:?}, threads {threads}"
            );
        }
    }
}

/// The parallel gradient equals an independent dense computation of the
/// same gradient (so identity is not shared wrongness), on data whose values
/// were remapped after construction (`map_values`: the column pass must see
/// the new values).
#[test]
fn gradient_after_map_values_matches_fresh_observations() {
    let mut rng = seeded(3);
    let g = low_rank(30, 20, 2, &mut rng).unwrap();
    let obs = sample(
        &g,
        TrueLink::Identity,
        Sampling::Uniform,
        300,
        0.0,
        &mut rng,
    )
    .unwrap();
    let mapped = obs
        .map_values(|i, j, y| y + 0.1 * (i as f64) - 0.05 * j as f64)
        .unwrap();
    let fresh = Observations::from_triplets(30, 20, mapped.iter(), Duplicates::Reject).unwrap();
    let model = DeepMf::random(
        30,
        20,
        3,
        5,
        0.3,
        LinkConfig::Identity.build().unwrap(),
        0.0,
        &mut rng,
    )
    .unwrap();
    let (oa, ga) = model.objective_and_gradient(&mapped, 0.0, None).unwrap();
    let (ob, gb) = model.objective_and_gradient(&fresh, 0.0, None).unwrap();
    assert_eq!(oa.to_bits(), ob.to_bits());
    for (a, b) in ga.factors.iter().zip(&gb.factors) {
        assert_eq!(a, b);
    }
    // ∂J/∂A_L = (A₁A₂)ᵀ G with G the dense residual matrix / N (independent).
    let f = model.factors();
    let p = f[0].dot(&f[1]);
    let z = p.dot(&f[2]);
    let mut gd = ndarray::Array2::<f64>::zeros((30, 20));
    for (i, j, y) in mapped.iter() {
        gd[[i, j]] = (z[[i, j]] - y) / mapped.len() as f64;
    }
    let want = p.t().dot(&gd);
    for (a, b) in ga.factors[2].iter().zip(want.iter()) {
        assert!((a - b).abs() <= 1e-12 * (1.0 + b.abs()), "{a} vs {b}");
    }
}
