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
