//! Spec property test 3: the L = 2 deep factorisation trained to convergence
//! reaches soft-impute's objective within 1e-4 relative (20×15, 60 % observed,
//! λ ∈ {0.1, 1}), and soft-impute's fixed point checks.

use matrix_completion::data::{Duplicates, Observations};
use matrix_completion::schatten::{SoftImputeOptions, soft_impute, soft_impute_objective};
use matrix_completion::train::{Adam, TrainConfig, fit};
use mlcore::sampling::{seeded, standard_normal};
use ndarray::Array2;
use rand::RngExt;

fn problem(seed: u64) -> Observations {
    let mut rng = seeded(seed);
    let u: Array2<f64> = standard_normal((20, 3), &mut rng);
    let v: Array2<f64> = standard_normal((3, 15), &mut rng);
    let g = u.dot(&v);
    let mut trip = Vec::new();
    for i in 0..20 {
        for j in 0..15 {
            if rng.random::<f64>() < 0.6 {
                let e: f64 = rng.random_range(-0.3..0.3);
                trip.push((i, j, g[[i, j]] + e));
            }
        }
    }
    Observations::from_triplets(20, 15, trip, Duplicates::Reject).unwrap()
}

/// `N·J_deep(A₁, A₂) → min ½‖P_Ω(Y − Z)‖² + λ_s‖Z‖_*` with `λ_s = 2Nλ`.
#[test]
fn depth_two_reaches_soft_impute_objective_within_1e_4() {
    for (seed, lambda_s) in [(1u64, 0.1), (2, 1.0)] {
        let obs = problem(seed);
        let n = obs.len() as f64;
        let si = soft_impute(
            &obs,
            lambda_s,
            &SoftImputeOptions {
                max_iters: 20_000,
                tol: 1e-14,
                max_rank: None,
            },
        )
        .unwrap();
        assert!(si.converged);
        // Soft-impute's reported objective is the objective of its Z.
        let check = soft_impute_objective(&obs, si.z.view(), lambda_s).unwrap();
        assert!((check - si.objective).abs() < 1e-9 * si.objective);
        let epochs = 20_000;
        let cfg = TrainConfig {
            depth: 2,
            width: 15,
            lambda: lambda_s / (2.0 * n),
            center: false,
            epochs,
            init_scale: 0.5,
            adam: Adam {
                lr: 0.01,
                ..Adam::default()
            },
            lr_decay: (1e-3f64).powf(1.0 / epochs as f64),
            ..TrainConfig::default()
        };
        let f = fit(&obs, None, &cfg, &mut seeded(seed + 10)).unwrap();
        let deep = n * f.model.objective(&obs, cfg.lambda, None).unwrap();
        let rel = (deep - si.objective) / si.objective;
        assert!(
            rel.abs() <= 1e-4,
            "λ_s = {lambda_s}: deep {deep} vs soft-impute {} (rel {rel:e})",
            si.objective
        );
        // The convex objective of the deep model's Z never beats soft-impute's minimum.
        let convex =
            soft_impute_objective(&obs, f.model.latent().unwrap().view(), lambda_s).unwrap();
        assert!(convex >= si.objective * (1.0 - 1e-9));
    }
}

/// Soft-impute with λ = 0 on a fully observed matrix returns it; with a huge λ, zero.
#[test]
fn soft_impute_limits() {
    let obs = Observations::from_triplets(
        2,
        2,
        vec![(0, 0, 1.0), (0, 1, 2.0), (1, 0, 3.0), (1, 1, 4.0)],
        Duplicates::Reject,
    )
    .unwrap();
    let r = soft_impute(&obs, 0.0, &SoftImputeOptions::default()).unwrap();
    assert!((r.z[[1, 1]] - 4.0).abs() < 1e-10 && r.rank == 2);
    let r = soft_impute(&obs, 100.0, &SoftImputeOptions::default()).unwrap();
    assert!(r.z.iter().all(|v| *v == 0.0) && r.rank == 0);
}
