//! The paper's benchmark systems, each an [`OdeModel`] with its true
//! parameters and prior box.

use crate::model::{OdeModel, Scalar};
use crate::optimize::Bounds;

/// Pendulum `φ̈ = −(g/l) sin φ`, state `(φ, ω)`, parameter `l`
/// (true 3, prior `U(0.1, 10)`), `g = 9.81`, `φ₀ = π/4`, `ω₀ = 0`,
/// `t ∈ [0, 10]`, the angle observed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pendulum {
    /// Gravitational acceleration `g`.
    pub g: f64,
    /// Initial angle `φ₀`.
    pub phi0: f64,
}

impl Default for Pendulum {
    fn default() -> Self {
        Pendulum {
            g: 9.81,
            phi0: std::f64::consts::FRAC_PI_4,
        }
    }
}

impl Pendulum {
    /// The true parameter `l = 3`.
    pub const TRUE_PARAMS: [f64; 1] = [3.0];
    /// The prior box `l ∈ [0.1, 10]`.
    pub fn bounds() -> Bounds {
        Bounds::new(vec![0.1], vec![10.0]).expect("static bounds")
    }
}

impl OdeModel for Pendulum {
    fn dim(&self) -> usize {
        2
    }
    fn n_params(&self) -> usize {
        1
    }
    fn rhs<T: Scalar>(&self, _t: T, x: &[T], p: &[T], out: &mut [T]) {
        out[0] = x[1];
        out[1] = -(x[0].sin() * self.g) / p[0];
    }
    fn x0<T: Scalar>(&self, _p: &[T]) -> Vec<T> {
        vec![T::from(self.phi0), T::from(0.0)]
    }
}

/// Lotka–Volterra `ẋ = αx − βxy`, `ẏ = −γy + δxy`, `x₀ = y₀ = 1`,
/// `t ∈ [0, 20]`, prey observed; true `(α, β, γ, δ) = (1.5, 1, 3, 1)`, each
/// with prior `U(10⁻³, 5)`.
///
/// The first `n_free` of `(α, β, γ, δ)` are the parameters; the others are
/// held at `fixed` (the paper's 2- and 4-parameter variants).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LotkaVolterra {
    /// Values of `(α, β, γ, δ)` used for the coordinates that are not free.
    pub fixed: [f64; 4],
    /// How many leading coordinates are parameters (1 to 4).
    pub n_free: usize,
}

impl LotkaVolterra {
    /// The true `(α, β, γ, δ)`.
    pub const TRUE: [f64; 4] = [1.5, 1.0, 3.0, 1.0];
    /// The 2-parameter variant, fitting `(α, β)`.
    pub fn two_param() -> Self {
        LotkaVolterra {
            fixed: Self::TRUE,
            n_free: 2,
        }
    }
    /// The 4-parameter variant.
    pub fn four_param() -> Self {
        LotkaVolterra {
            fixed: Self::TRUE,
            n_free: 4,
        }
    }
    /// The true values of the free parameters.
    pub fn true_params(&self) -> Vec<f64> {
        Self::TRUE[..self.n_free.min(4)].to_vec()
    }
    /// The prior box `[10⁻³, 5]` for every free parameter.
    pub fn bounds(&self) -> Bounds {
        let n = self.n_free.min(4);
        Bounds::new(vec![1e-3; n], vec![5.0; n]).expect("static bounds")
    }
}

impl OdeModel for LotkaVolterra {
    fn dim(&self) -> usize {
        2
    }
    fn n_params(&self) -> usize {
        self.n_free.min(4)
    }
    fn rhs<T: Scalar>(&self, _t: T, x: &[T], p: &[T], out: &mut [T]) {
        let c = |i: usize| free_or_fixed(p, &self.fixed, i);
        let (a, b, g, d) = (c(0), c(1), c(2), c(3));
        out[0] = a * x[0] - b * x[0] * x[1];
        out[1] = -g * x[1] + d * x[0] * x[1];
    }
    fn x0<T: Scalar>(&self, _p: &[T]) -> Vec<T> {
        vec![T::from(1.0), T::from(1.0)]
    }
}

/// FitzHugh–Nagumo `v̇ = c(v − v³/3 + r)`, `ṙ = −(v − a + b r)/c`,
/// `(v₀, r₀) = (−1, 1)`, parameters `(a, b, c)`, true `(0.2, 0.2, 3)`,
/// prior box `[10⁻³, 5]³` (a choice; the paper's official scripts do not
/// include this system's setup), `v` observed on `t ∈ [0, 20]`.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct FitzHughNagumo;

impl FitzHughNagumo {
    /// The true `(a, b, c)`.
    pub const TRUE_PARAMS: [f64; 3] = [0.2, 0.2, 3.0];
    /// The prior box `[10⁻³, 5]³`.
    pub fn bounds() -> Bounds {
        Bounds::new(vec![1e-3; 3], vec![5.0; 3]).expect("static bounds")
    }
}

impl OdeModel for FitzHughNagumo {
    fn dim(&self) -> usize {
        2
    }
    fn n_params(&self) -> usize {
        3
    }
    fn rhs<T: Scalar>(&self, _t: T, x: &[T], p: &[T], out: &mut [T]) {
        let (v, r) = (x[0], x[1]);
        out[0] = p[2] * (v - v * v * v / 3.0 + r);
        out[1] = -(v - p[0] + p[1] * r) / p[2];
    }
    fn x0<T: Scalar>(&self, _p: &[T]) -> Vec<T> {
        vec![T::from(-1.0), T::from(1.0)]
    }
}

/// Coordinate `i` of a partly fitted parameter vector: the fitted value
/// `p[i]` for the leading `p.len()` coordinates, the fixed value otherwise.
fn free_or_fixed<T: Scalar>(p: &[T], fixed: &[f64], i: usize) -> T {
    if i < p.len() { p[i] } else { T::from(fixed[i]) }
}

/// Soma area of the official Hodgkin–Huxley models (cm², as used there):
/// `get_Asoma(τₘ = 15.3 ms, Rₘ = 184 MΩ) = 15.3·10⁻³ / 184 ≈ 8.315·10⁻⁵`, from
/// the Allen cell-types recording the official code cites.
pub const SOMA_AREA: f64 = 15.3e-3 / 184.0;

/// The official step stimulus: 210 pA = 2.1·10⁻⁴ µA, on for 10 ≤ t ≤ 90 ms.
pub const STIMULUS: f64 = 210e-6;

/// The step current density `amp` on 10 ≤ t ≤ 90 ms (both ends included,
/// as in the official `Iₑ`), 0 elsewhere.
fn step_stimulus(t: f64, amp: f64) -> f64 {
    if (10.0..=90.0).contains(&t) { amp } else { 0.0 }
}

/// Single-compartment Hodgkin–Huxley neuron (Pospischil-type Na/K/leak
/// kinetics), states `(V, m, h, n)`:
///
/// `C V̇ = I(t) − g_Na m³h (V − E_Na) − g_K n⁴ (V − E_K) − g_leak (V − E_leak)`,
/// `ẋ = α_x(V)(1 − x) − β_x(V) x` for `x ∈ {m, h, n}`, with
/// `α_m = −0.32(u−13)/(e^{−(u−13)/4} − 1)`, `β_m = 0.28(u−40)/(e^{(u−40)/5} − 1)`,
/// `α_h = 0.128 e^{−(u−17)/18}`, `β_h = 4/(1 + e^{−(u−40)/5})`,
/// `α_n = −0.032(u−15)/(e^{−(u−15)/5} − 1)`, `β_n = 0.5 e^{−(u−10)/40}`,
/// `u = V − V_T`. Defaults: `g_Na = 25`, `g_K = 7`, `g_leak = 0.1` (mS/cm²),
/// `E_Na = 53`, `E_K = −107`, `E_leak = −70`, `V_T = −60` (mV), `C = 1`
/// (µF/cm²), `V₀ = −70`, gates at their steady state at `V₀`; a step
/// current of density `i_amp` (µA/cm²) for `10 ≤ t ≤ 90` ms, `t ∈ [0, 100]`.
///
/// The first `n_free` of `(g_Na, g_K, g_leak)` are the parameters.
///
/// As in the official scripts (`SimpleHHSystem`), the 210 pA stimulus is
/// divided by the soma area [`SOMA_AREA`] `= get_Asoma(15.3 ms, 184 MΩ)`,
/// giving `i_amp = 2.1·10⁻⁴ µA / 8.315·10⁻⁵ cm² ≈ 2.526` µA/cm²; the gates
/// start at their steady state at `V₀`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HodgkinHuxley {
    /// Values of `(g_Na, g_K, g_leak)` for coordinates that are not free.
    pub fixed: [f64; 3],
    /// How many leading conductances are parameters (1 to 3).
    pub n_free: usize,
    /// Stimulus density (µA/cm²).
    pub i_amp: f64,
}

impl HodgkinHuxley {
    /// True `(g_Na, g_K, g_leak)`.
    pub const TRUE: [f64; 3] = [25.0, 7.0, 0.1];
    const E_NA: f64 = 53.0;
    const E_K: f64 = -107.0;
    const E_LEAK: f64 = -70.0;
    const V_T: f64 = -60.0;
    const V0: f64 = -70.0;

    /// The model with `n_free` conductances fitted.
    pub fn new(n_free: usize) -> Self {
        HodgkinHuxley {
            fixed: Self::TRUE,
            n_free: n_free.clamp(1, 3),
            i_amp: STIMULUS / SOMA_AREA,
        }
    }
    /// The prior box: `g_Na ∈ [0.5, 80]`, `g_K ∈ [10⁻⁴, 15]`,
    /// `g_leak ∈ [10⁻⁴, 0.6]` (leading `n_free`).
    pub fn bounds(&self) -> Bounds {
        let lo = [0.5, 1e-4, 1e-4];
        let hi = [80.0, 15.0, 0.6];
        Bounds::new(lo[..self.n_free].to_vec(), hi[..self.n_free].to_vec()).expect("static")
    }
    /// True values of the free parameters.
    pub fn true_params(&self) -> Vec<f64> {
        Self::TRUE[..self.n_free].to_vec()
    }

    fn rates<T: Scalar>(v: T) -> [(T, T); 3] {
        let u = v - Self::V_T;
        let one = T::from(1.0);
        let am = (u - 13.0) * -0.32 / ((-(u - 13.0) / 4.0).exp() - one);
        let bm = (u - 40.0) * 0.28 / (((u - 40.0) / 5.0).exp() - one);
        let ah = (-(u - 17.0) / 18.0).exp() * 0.128;
        let bh = T::from(4.0) / ((-(u - 40.0) / 5.0).exp() + one);
        let an = (u - 15.0) * -0.032 / ((-(u - 15.0) / 5.0).exp() - one);
        let bn = (-(u - 10.0) / 40.0).exp() * 0.5;
        [(am, bm), (ah, bh), (an, bn)]
    }
}

impl OdeModel for HodgkinHuxley {
    fn dim(&self) -> usize {
        4
    }
    fn n_params(&self) -> usize {
        self.n_free
    }
    fn rhs<T: Scalar>(&self, t: T, x: &[T], p: &[T], out: &mut [T]) {
        let c = |i: usize| free_or_fixed(p, &self.fixed, i);
        let (gna, gk, gl) = (c(0), c(1), c(2));
        let (v, m, h, n) = (x[0], x[1], x[2], x[3]);
        let i_inj = step_stimulus(t.re(), self.i_amp);
        let ina = gna * m * m * m * h * (v - Self::E_NA);
        let ik = gk * n * n * n * n * (v - Self::E_K);
        let il = gl * (v - Self::E_LEAK);
        out[0] = -(ina + ik + il) + i_inj;
        let r = Self::rates(v);
        for (k, (a, b)) in r.iter().enumerate() {
            let g = x[1 + k];
            out[1 + k] = *a * (-g + 1.0) - *b * g;
        }
    }
    fn x0<T: Scalar>(&self, _p: &[T]) -> Vec<T> {
        let r = Self::rates(Self::V0);
        let mut x = vec![T::from(Self::V0)];
        for (a, b) in r {
            x.push(T::from(a / (a + b)));
        }
        x
    }
}

/// Two coupled Hodgkin–Huxley compartments (the paper's "HH 2-comp"
/// setups), states `(V₁, m₁, h₁, n₁, V₂, m₂, h₂, n₂)`.
///
/// Each compartment has the kinetics of [`HodgkinHuxley`]; the voltages are
/// coupled by the cable matrix `G = [[−1, 1], [1, −1]]`:
/// `V̇₁ = f_V(x₁; g₁) + (V₂ − V₁) + I(t)`, `V̇₂ = f_V(x₂; g₂) + (V₁ − V₂)`,
/// with the step stimulus in compartment 1 only. Parameters:
/// `(g_Na,₁, g_K,₁, g_Na,₂, g_K,₂)` and, with `n_free = 6`, also
/// `(g_leak,₁, g_leak,₂)`; true values `(25, 7, 20, 10, 0.09, 0.11)`
/// (`g_leak = (0.1, 0.1)` when only 4 are fitted, as in the official 4-parameter
/// script); prior boxes as in [`HodgkinHuxley::bounds`]. Both voltages
/// are observed in the paper.
///
/// As in the official scripts, each compartment has half the soma area of
/// `get_Asoma(15.3 ms, 184 MΩ) = 8.315·10⁻⁵ cm²`, so the 210 pA step is a
/// density `i_amp = 2.1·10⁻⁴ µA / 4.158·10⁻⁵ cm² ≈ 5.05` µA/cm² for
/// `10 ≤ t ≤ 90` ms.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TwoCompartmentHodgkinHuxley {
    /// Values of `(g_Na,₁, g_K,₁, g_Na,₂, g_K,₂, g_leak,₁, g_leak,₂)` used for
    /// coordinates that are not free.
    pub fixed: [f64; 6],
    /// How many leading conductances are parameters (4 or 6; clamped to
    /// 1..=6).
    pub n_free: usize,
    /// Stimulus density in compartment 1 (µA/cm²).
    pub i_amp: f64,
}

impl TwoCompartmentHodgkinHuxley {
    /// True conductances of the 6-parameter setup.
    pub const TRUE: [f64; 6] = [25.0, 7.0, 20.0, 10.0, 0.09, 0.11];

    /// The model with `n_free` conductances fitted (the paper: 4 or 6).
    pub fn new(n_free: usize) -> Self {
        let n_free = n_free.clamp(1, 6);
        let mut fixed = Self::TRUE;
        if n_free <= 4 {
            fixed[4] = 0.1;
            fixed[5] = 0.1;
        }
        TwoCompartmentHodgkinHuxley {
            fixed,
            n_free,
            i_amp: STIMULUS / (SOMA_AREA / 2.0),
        }
    }
    /// The prior box: `g_Na ∈ [0.5, 80]`, `g_K ∈ [10⁻⁴, 15]`,
    /// `g_leak ∈ [10⁻⁴, 0.6]` (leading `n_free`).
    pub fn bounds(&self) -> Bounds {
        let lo = [0.5, 1e-4, 0.5, 1e-4, 1e-4, 1e-4];
        let hi = [80.0, 15.0, 80.0, 15.0, 0.6, 0.6];
        Bounds::new(lo[..self.n_free].to_vec(), hi[..self.n_free].to_vec()).expect("static")
    }
    /// True values of the free parameters.
    pub fn true_params(&self) -> Vec<f64> {
        self.fixed[..self.n_free].to_vec()
    }
}

impl OdeModel for TwoCompartmentHodgkinHuxley {
    fn dim(&self) -> usize {
        8
    }
    fn n_params(&self) -> usize {
        self.n_free
    }
    fn rhs<T: Scalar>(&self, t: T, x: &[T], p: &[T], out: &mut [T]) {
        let c = |i: usize| free_or_fixed(p, &self.fixed, i);
        let stim = step_stimulus(t.re(), self.i_amp);
        let single = HodgkinHuxley {
            fixed: HodgkinHuxley::TRUE,
            n_free: 3,
            i_amp: 0.0,
        };
        for k in 0..2 {
            let g = [c(2 * k), c(2 * k + 1), c(4 + k)];
            single.rhs(t, &x[4 * k..4 * k + 4], &g, &mut out[4 * k..4 * k + 4]);
        }
        let (v1, v2) = (x[0], x[4]);
        out[0] = out[0] + (v2 - v1) + stim;
        out[4] += v1 - v2;
    }
    fn x0<T: Scalar>(&self, p: &[T]) -> Vec<T> {
        let single = HodgkinHuxley::new(3);
        let mut x = single.x0(p);
        x.extend(single.x0(p));
        x
    }
}
