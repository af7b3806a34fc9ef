//! The ODE model trait, exact Jacobians and Taylor-mode initialisation.

use num_dual::{Dual, Dual3, DualNum};

/// The scalar type an ODE right-hand side is written for: `f64` and every
/// forward-mode dual number of `num-dual` over `f64` (nested ones
/// included). One user-written right-hand side thus gives values, exact
/// Jacobians (EK1), Taylor coefficients (initialisation) and parameter
/// gradients.
pub trait Scalar: DualNum<Primitive = f64> + Copy + Send + Sync {}
impl<T: DualNum<Primitive = f64> + Copy + Send + Sync> Scalar for T {}

/// An ODE `ẋ = f(x, θ, t)`, `x(t₀) = x₀(θ)`, with `dim` states and
/// `n_params` parameters θ.
///
/// Write `rhs` and `x0` once, generically over [`Scalar`]; the filter
/// evaluates them with nested dual numbers for the EK1 Jacobian
/// `J_f = ∂f/∂x`, the Taylor coefficients of the initial state and the
/// gradient of the likelihood in θ.
///
/// ```
/// use diffusion_tempering::{OdeModel, Scalar};
/// /// ẋ = −a x, x(0) = 1.
/// struct Decay;
/// impl OdeModel for Decay {
///     fn dim(&self) -> usize { 1 }
///     fn n_params(&self) -> usize { 1 }
///     fn rhs<T: Scalar>(&self, _t: T, x: &[T], p: &[T], out: &mut [T]) {
///         out[0] = -p[0] * x[0];
///     }
///     fn x0<T: Scalar>(&self, _p: &[T]) -> Vec<T> { vec![T::from(1.0)] }
/// }
/// ```
pub trait OdeModel: Sync {
    /// Number of states `d`.
    fn dim(&self) -> usize;
    /// Number of parameters.
    fn n_params(&self) -> usize;
    /// Writes `f(x, θ, t)` into `out` (length `dim`). `x` has length `dim`
    /// and `p` length `n_params`.
    fn rhs<T: Scalar>(&self, t: T, x: &[T], p: &[T], out: &mut [T]);
    /// The initial state `x₀(θ)` (length `dim`).
    fn x0<T: Scalar>(&self, p: &[T]) -> Vec<T>;
}

/// `f(x)` and the Jacobian `J = ∂f/∂x` (row-major `d × d`) at `(t, x, θ)`,
/// exact by forward-mode duals: `d` evaluations of `f` in `Dual<T>`.
pub fn rhs_and_jacobian<M: OdeModel, T: Scalar>(
    model: &M,
    t: T,
    x: &[T],
    p: &[T],
) -> (Vec<T>, Vec<T>) {
    let d = x.len();
    let pd: Vec<Dual<T>> = p.iter().map(|&v| Dual::from_re(v)).collect();
    let td = Dual::from_re(t);
    let mut xd: Vec<Dual<T>> = x.iter().map(|&v| Dual::from_re(v)).collect();
    let mut out = vec![Dual::from_re(T::from(0.0)); d];
    let mut f = vec![T::from(0.0); d];
    let mut jac = vec![T::from(0.0); d * d];
    for j in 0..d {
        xd[j].eps = T::from(1.0);
        model.rhs(td, &xd, &pd, &mut out);
        xd[j].eps = T::from(0.0);
        for i in 0..d {
            jac[i * d + j] = out[i].eps;
            if j == 0 {
                f[i] = out[i].re;
            }
        }
    }
    (f, jac)
}

/// Largest prior order with Taylor-mode initialisation: up to `q = 3` with
/// `Dual3` numbers, up to `q = 7` with nested `Dual3<Dual3>` numbers (their
/// mixed parts `∂ⁱ_ε₁ ∂ʲ_ε₂` at `t₀ + ε₁ + ε₂` carry the derivatives up to
/// order six of `t ↦ f(x(t), θ, t)`).
pub const MAX_TAYLOR_ORDER: usize = 7;

/// Taylor-mode initialisation: the exact derivatives `x(t₀), ẋ(t₀), …,
/// x⁽ᵠ⁾(t₀)` of the solution, `q ≤ 7`, as `[k][i]` (derivative `k`,
/// component `i`).
///
/// Recursion: `x⁽ᵏ⁺¹⁾(t₀) = dᵏ/dtᵏ f(x(t), θ, t)|_{t₀}`, evaluated with
/// `Dual3` numbers whose parts are the derivatives of the truncated Taylor
/// polynomial of `x` (and of `t` itself, so non-autonomous right-hand sides
/// are handled); for `q > 3` with `Dual3<Dual3>` numbers, the derivative of
/// order `k = i + j` read from the mixed part `(i, j)`. `q` evaluations of
/// `f` (16 dual components each for `q > 3`). Orders above
/// [`MAX_TAYLOR_ORDER`] are truncated to it.
pub fn taylor_init<M: OdeModel, T: Scalar>(model: &M, t0: f64, p: &[T], q: usize) -> Vec<Vec<T>> {
    if q > 3 {
        return taylor_init_nested(model, t0, p, q.min(MAX_TAYLOR_ORDER));
    }
    let d = model.dim();
    let zero = T::from(0.0);
    let mut coeffs: Vec<Vec<T>> = vec![model.x0(p)];
    let pd: Vec<Dual3<T>> = p.iter().map(|&v| Dual3::new(v, zero, zero, zero)).collect();
    let td = Dual3::new(T::from(t0), T::from(1.0), zero, zero);
    let mut out = vec![Dual3::new(zero, zero, zero, zero); d];
    for k in 0..q.min(MAX_TAYLOR_ORDER) {
        let xd: Vec<Dual3<T>> = (0..d)
            .map(|i| {
                let c = |l: usize| if l < coeffs.len() { coeffs[l][i] } else { zero };
                Dual3::new(c(0), c(1), c(2), c(3))
            })
            .collect();
        model.rhs(td, &xd, &pd, &mut out);
        let next: Vec<T> = out
            .iter()
            .map(|o| match k {
                0 => o.re,
                1 => o.v1,
                _ => o.v2,
            })
            .collect();
        coeffs.push(next);
    }
    coeffs
}

/// `taylor_init` for `4 ≤ q ≤ 7` with `Dual3<Dual3<T>>` at `t₀ + ε₁ + ε₂`.
fn taylor_init_nested<M: OdeModel, T: Scalar>(
    model: &M,
    t0: f64,
    p: &[T],
    q: usize,
) -> Vec<Vec<T>> {
    let d = model.dim();
    let zero = T::from(0.0);
    let one = T::from(1.0);
    let lift = |v: T| Dual3::new(v, zero, zero, zero);
    let nested_zero = Dual3::new(lift(zero), lift(zero), lift(zero), lift(zero));
    let pd: Vec<Dual3<Dual3<T>>> = p
        .iter()
        .map(|&v| Dual3::new(lift(v), lift(zero), lift(zero), lift(zero)))
        .collect();
    let td = Dual3::new(
        Dual3::new(T::from(t0), one, zero, zero),
        lift(one),
        lift(zero),
        lift(zero),
    );
    let mut coeffs: Vec<Vec<T>> = vec![model.x0(p)];
    let mut out = vec![nested_zero; d];
    for k in 0..q {
        let xd: Vec<Dual3<Dual3<T>>> = (0..d)
            .map(|i| {
                let c = |l: usize| if l < coeffs.len() { coeffs[l][i] } else { zero };
                let inner = |s: usize| Dual3::new(c(s), c(s + 1), c(s + 2), c(s + 3));
                Dual3::new(inner(0), inner(1), inner(2), inner(3))
            })
            .collect();
        model.rhs(td, &xd, &pd, &mut out);
        let (i, j) = (k.min(3), k - k.min(3));
        let next: Vec<T> = out
            .iter()
            .map(|o| {
                let outer = [o.re, o.v1, o.v2, o.v3][i];
                [outer.re, outer.v1, outer.v2, outer.v3][j]
            })
            .collect();
        coeffs.push(next);
    }
    coeffs
}
