//! Shared helpers of the integration tests.
#![allow(dead_code)]

use diffusion_tempering::{OdeModel, Scalar};

/// `ẋ = −a x`, `x(0) = x₀`: the linear test ODE (a user-defined model).
pub struct Decay {
    pub x0: f64,
}

impl OdeModel for Decay {
    fn dim(&self) -> usize {
        1
    }
    fn n_params(&self) -> usize {
        1
    }
    fn rhs<T: Scalar>(&self, _t: T, x: &[T], p: &[T], out: &mut [T]) {
        out[0] = -p[0] * x[0];
    }
    fn x0<T: Scalar>(&self, _p: &[T]) -> Vec<T> {
        vec![T::from(self.x0)]
    }
}

/// An ODE whose right-hand side turns NaN once `t > t_nan`.
pub struct Explodes {
    pub t_nan: f64,
}

impl OdeModel for Explodes {
    fn dim(&self) -> usize {
        1
    }
    fn n_params(&self) -> usize {
        1
    }
    fn rhs<T: Scalar>(&self, t: T, x: &[T], p: &[T], out: &mut [T]) {
        out[0] = if t.re() > self.t_nan {
            T::from(f64::NAN)
        } else {
            -p[0] * x[0]
        };
    }
    fn x0<T: Scalar>(&self, _p: &[T]) -> Vec<T> {
        vec![T::from(1.0)]
    }
}

/// `Σ wᵢ (θᵢ − cᵢ)²`: a separable quadratic loss for the optimisers.
pub struct Quadratic {
    pub c: Vec<f64>,
    pub w: Vec<f64>,
}

impl diffusion_tempering::Objective for Quadratic {
    fn value(&self, t: &[f64]) -> diffusion_tempering::Result<f64> {
        Ok(t.iter()
            .zip(&self.c)
            .zip(&self.w)
            .map(|((x, c), w)| w * (x - c) * (x - c))
            .sum())
    }
    fn value_grad(&self, t: &[f64]) -> diffusion_tempering::Result<(f64, Vec<f64>)> {
        let g = t
            .iter()
            .zip(&self.c)
            .zip(&self.w)
            .map(|((x, c), w)| 2.0 * w * (x - c))
            .collect();
        Ok((self.value(t)?, g))
    }
}

/// Rosenbrock `(1 − a)² + 100 (b − a²)²`.
pub struct Rosenbrock;

impl diffusion_tempering::Objective for Rosenbrock {
    fn value(&self, t: &[f64]) -> diffusion_tempering::Result<f64> {
        Ok((1.0 - t[0]).powi(2) + 100.0 * (t[1] - t[0] * t[0]).powi(2))
    }
    fn value_grad(&self, t: &[f64]) -> diffusion_tempering::Result<(f64, Vec<f64>)> {
        let (a, b) = (t[0], t[1]);
        let g = vec![
            -2.0 * (1.0 - a) - 400.0 * a * (b - a * a),
            200.0 * (b - a * a),
        ];
        Ok((self.value(t)?, g))
    }
}

/// A loss that fails (like an ODE that blows up) for `θ > 0.5`, minimal at
/// `θ = 0.45`.
pub struct FailsAbove;

impl diffusion_tempering::Objective for FailsAbove {
    fn value(&self, t: &[f64]) -> diffusion_tempering::Result<f64> {
        if t[0] > 0.5 {
            return Err(diffusion_tempering::Error::NonFinite { step: 1, t: 0.0 });
        }
        Ok((t[0] - 0.45).powi(2))
    }
    fn value_grad(&self, t: &[f64]) -> diffusion_tempering::Result<(f64, Vec<f64>)> {
        Ok((self.value(t)?, vec![2.0 * (t[0] - 0.45)]))
    }
}

/// The pendulum (l = 3) observed with σ² = 0.1 every 0.05 on [0, 5], data
/// drawn with `seeded(seed)`: the Fenrir likelihood on the same grid and
/// the L2 loss on the official (mean-squared) scale.
pub fn pendulum_losses(
    seed: u64,
) -> (
    diffusion_tempering::FenrirLikelihood<diffusion_tempering::models::Pendulum>,
    diffusion_tempering::rk::L2Loss<diffusion_tempering::models::Pendulum>,
) {
    use diffusion_tempering::rk::{L2Form, L2Loss, RkConfig};
    use diffusion_tempering::{FenrirLikelihood, FilterConfig, Grid, Observations, simulate};
    let model = diffusion_tempering::models::Pendulum::default();
    let times: Vec<f64> = (0..=100).map(|i| i as f64 * 0.05).collect();
    let proj = Observations::selector(&[0], 2).unwrap();
    let mut rng = mlcore::sampling::seeded(seed);
    let obs = simulate(&model, &[3.0], 0.0, times, proj, 0.1, &mut rng).unwrap();
    let lik = FenrirLikelihood::new(
        model,
        obs.clone(),
        Grid::uniform(0.0, 5.0, 0.05).unwrap(),
        FilterConfig::default(),
    )
    .unwrap();
    let l2 = L2Loss::new(model, obs, 0.0, RkConfig::default())
        .unwrap()
        .with_form(L2Form::MeanSquared);
    (lik, l2)
}
