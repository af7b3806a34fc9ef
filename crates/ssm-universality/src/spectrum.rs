//! Eigenvalue distributions of the diagonal recurrence `Λ = diag(λ₁ … λ_N)`
//! (paper §4, "benefits of complex eigenvalues"), the LRU ring
//! parameterisation `λ = exp(−exp(ν) + iθ)` with its input normalisation
//! `γ = √(1 − |λ|²)`, the expected Gram matrix `E[V^H V]/N` of the
//! Vandermonde matrix, and warnings for spectra that encode badly.

use crate::C64;
use crate::error::{Error, Result};
use rand::{Rng, RngExt};
use std::f64::consts::TAU;

/// A distribution (or a deterministic layout) of the `N` eigenvalues.
#[derive(Debug, Clone, PartialEq)]
pub enum Spectrum {
    /// Real eigenvalues `λ ~ U[lo, hi]` iid, `−1 ≤ lo < hi ≤ 1`.
    RealUniform {
        /// Lower end.
        lo: f64,
        /// Upper end.
        hi: f64,
    },
    /// The scaled roots of unity `λ_j = r·e^{2πij/N}`, `j = 0 … N−1`, `0 < r ≤ 1`
    /// (deterministic: `sample` ignores the generator). With `N = L`,
    /// `κ₂(V) = r^{−(L−1)}` exactly.
    RootsOfUnity {
        /// The radius `r`.
        r: f64,
    },
    /// The LRU ring initialisation (Orvieto et al., 2023): `u₁, u₂ ~ U[0, 1)`,
    /// `|λ|² = u₁(r_max² − r_min²) + r_min²`, `θ = max_phase·u₂`.
    LruRing {
        /// Smallest modulus, `0 ≤ r_min ≤ r_max`.
        r_min: f64,
        /// Largest modulus, `r_max ≤ 1`.
        r_max: f64,
        /// Phases are drawn in `[0, max_phase)`, `0 ≤ max_phase ≤ 2π`.
        max_phase: f64,
    },
    /// A fixed list of eigenvalues (finite, `|λ| ≤ 1`); `sample(n)` needs `n` = its length.
    Custom(Vec<C64>),
}

impl Default for Spectrum {
    /// The ring of the paper's long-range experiments: `r_min = 0.9`,
    /// `r_max = 0.999`, phases in `[0, 2π)`.
    fn default() -> Self {
        Spectrum::LruRing {
            r_min: 0.9,
            r_max: 0.999,
            max_phase: TAU,
        }
    }
}

/// The LRU parameters of `N` eigenvalues: `λ_j = exp(−exp(ν_j) + iθ_j)`.
#[derive(Debug, Clone, PartialEq)]
pub struct LruParams {
    /// `ν_j = log(−½ log |λ_j|²)`; `+∞` encodes `λ = 0`, `−∞` encodes `|λ| = 1`.
    pub nu: Vec<f64>,
    /// The phases `θ_j`.
    pub theta: Vec<f64>,
}

impl LruParams {
    /// The eigenvalues `λ_j = exp(−exp(ν_j))·e^{iθ_j}`. O(N).
    pub fn lambda(&self) -> Vec<C64> {
        self.nu
            .iter()
            .zip(&self.theta)
            .map(|(&nu, &th)| C64::from_polar((-nu.exp()).exp(), th))
            .collect()
    }

    /// The normalisation `γ_j = √(1 − |λ_j|²) = √(1 − exp(−2 exp ν_j))`. O(N).
    pub fn gamma(&self) -> Vec<f64> {
        self.nu
            .iter()
            .map(|&nu| (-(-2.0 * nu.exp()).exp_m1()).max(0.0).sqrt())
            .collect()
    }

    /// The parameters of given eigenvalues: `ν = log(−log|λ|)`, `θ = arg λ`. O(N).
    ///
    /// # Errors
    /// [`Error::EmptySequence`], [`Error::NonFinite`], and
    /// [`Error::UnstableEigenvalue`] when `|λ| > 1` (ν would not be real).
    pub fn from_lambda(lambda: &[C64]) -> Result<Self> {
        check_lambda(lambda, true)?;
        Ok(LruParams {
            nu: lambda.iter().map(|l| (-l.norm().ln()).ln()).collect(),
            theta: lambda.iter().map(|l| l.arg()).collect(),
        })
    }
}

/// Checks a list of eigenvalues: non-empty, finite and, if `stable`, `|λ| ≤ 1`.
pub(crate) fn check_lambda(lambda: &[C64], stable: bool) -> Result<()> {
    if lambda.is_empty() {
        return Err(Error::EmptySequence { what: "lambda" });
    }
    if lambda
        .iter()
        .any(|l| !l.re.is_finite() || !l.im.is_finite())
    {
        return Err(Error::NonFinite { what: "lambda" });
    }
    if stable && let Some((i, l)) = lambda.iter().enumerate().find(|(_, l)| l.norm() > 1.0) {
        return Err(Error::UnstableEigenvalue {
            i,
            modulus: l.norm(),
        });
    }
    Ok(())
}

/// `E[x^p]` for `x ~ U[a, b]`: `(b^{p+1} − a^{p+1}) / ((p+1)(b − a))`, and `a^p` when `a = b`.
fn uniform_moment(a: f64, b: f64, p: f64) -> f64 {
    if b - a <= f64::EPSILON * b.abs().max(1.0) {
        return a.powf(p);
    }
    (b.powf(p + 1.0) - a.powf(p + 1.0)) / ((p + 1.0) * (b - a))
}

/// `E[e^{ikθ}]` for `θ ~ U[0, φ)`: `(e^{ikφ} − 1)/(ikφ)`, 1 when `kφ = 0`.
fn phase_moment(k: f64, phi: f64) -> C64 {
    let x = k * phi;
    if x.abs() < 1e-12 {
        return C64::new(1.0, 0.0);
    }
    (C64::from_polar(1.0, x) - 1.0) / C64::new(0.0, x)
}

impl Spectrum {
    /// Validates the parameters.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for a real interval outside `[−1, 1]` or
    /// with `lo ≥ hi`, a radius outside `(0, 1]`, a phase outside `[0, 2π]`;
    /// [`Error::InvalidRing`] unless `0 ≤ r_min ≤ r_max ≤ 1`; for `Custom`, the
    /// checks of a stable eigenvalue list.
    pub fn check(&self) -> Result<()> {
        match *self {
            Spectrum::RealUniform { lo, hi } => {
                if !(lo.is_finite() && hi.is_finite() && -1.0 <= lo && lo < hi && hi <= 1.0) {
                    return Err(Error::InvalidParameter {
                        name: "RealUniform lo/hi",
                        value: if lo.is_finite() { hi } else { lo },
                        expected: "-1 <= lo < hi <= 1",
                    });
                }
            }
            Spectrum::RootsOfUnity { r } => {
                if !(r > 0.0 && r <= 1.0) {
                    return Err(Error::InvalidParameter {
                        name: "r",
                        value: r,
                        expected: "0 < r <= 1",
                    });
                }
            }
            Spectrum::LruRing {
                r_min,
                r_max,
                max_phase,
            } => {
                if !(r_min >= 0.0 && r_min <= r_max && r_max <= 1.0) {
                    return Err(Error::InvalidRing { r_min, r_max });
                }
                if !(0.0..=TAU).contains(&max_phase) {
                    return Err(Error::InvalidParameter {
                        name: "max_phase",
                        value: max_phase,
                        expected: "0 <= max_phase <= 2π",
                    });
                }
            }
            Spectrum::Custom(ref l) => check_lambda(l, true)?,
        }
        Ok(())
    }

    /// Draws `n` eigenvalues (roots of unity and custom lists are deterministic). O(n).
    ///
    /// # Errors
    /// [`Error::ZeroWidth`] when `n = 0`; the errors of [`Spectrum::check`];
    /// [`Error::DimensionMismatch`] when a custom list does not have `n` entries.
    pub fn sample(&self, n: usize, rng: &mut impl Rng) -> Result<Vec<C64>> {
        self.check()?;
        if n == 0 {
            return Err(Error::ZeroWidth { what: "n (states)" });
        }
        mlcore::check::alloc_len(&[n], 16, "eigenvalues")?;
        Ok(match *self {
            Spectrum::RealUniform { lo, hi } => (0..n)
                .map(|_| C64::new(lo + (hi - lo) * rng.random::<f64>(), 0.0))
                .collect(),
            Spectrum::RootsOfUnity { r } => (0..n)
                .map(|j| C64::from_polar(r, TAU * j as f64 / n as f64))
                .collect(),
            Spectrum::LruRing { .. } => self.sample_lru(n, rng)?.lambda(),
            Spectrum::Custom(ref l) => {
                if l.len() != n {
                    return Err(Error::DimensionMismatch {
                        what: "custom spectrum length",
                        expected: n,
                        got: l.len(),
                    });
                }
                l.clone()
            }
        })
    }

    /// Draws `n` eigenvalues of the LRU ring in its `(ν, θ)` parameterisation:
    /// `ν = log(−½ log(u₁(r_max² − r_min²) + r_min²))`, `θ = max_phase·u₂`. O(n).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] when `self` is not an `LruRing`; the errors of [`Spectrum::sample`].
    pub fn sample_lru(&self, n: usize, rng: &mut impl Rng) -> Result<LruParams> {
        self.check()?;
        let Spectrum::LruRing {
            r_min,
            r_max,
            max_phase,
        } = *self
        else {
            return Err(Error::InvalidParameter {
                name: "spectrum",
                value: f64::NAN,
                expected: "an LruRing for sample_lru",
            });
        };
        if n == 0 {
            return Err(Error::ZeroWidth { what: "n (states)" });
        }
        mlcore::check::alloc_len(&[n, 2], 8, "LRU parameters")?;
        let mut nu = Vec::with_capacity(n);
        let mut theta = Vec::with_capacity(n);
        for _ in 0..n {
            let u1: f64 = rng.random();
            let u2: f64 = rng.random();
            let mod2 = u1 * (r_max * r_max - r_min * r_min) + r_min * r_min;
            nu.push((-0.5 * mod2.ln()).ln());
            theta.push(max_phase * u2);
        }
        Ok(LruParams { nu, theta })
    }

    /// The diagonal of the expected normalised Gram matrix, `g_j = E|λ|^{2j}`,
    /// `j = 0 … L−1`: for N ≫ L with phases spread over 2π, `V^H V / N → diag(g)`
    /// and `κ₂(V)² → g₀ / g_{L−1}` (the paper's memory argument). Ring:
    /// `g_j = (r_max^{2(j+1)} − r_min^{2(j+1)}) / ((j+1)(r_max² − r_min²))`; real
    /// `U[lo, hi]`: `(hi^{2j+1} − lo^{2j+1})/((2j+1)(hi − lo))`; roots: `r^{2j}`;
    /// custom: the empirical mean. O(L) (O(NL) for custom).
    ///
    /// # Errors
    /// [`Error::ZeroWidth`] when `L = 0`, and the errors of [`Spectrum::check`].
    pub fn gram_expectation(&self, l: usize) -> Result<Vec<f64>> {
        let g = self.gram_expectation_matrix(l)?;
        Ok((0..l).map(|j| g[[j, j]].re).collect())
    }

    /// The whole expected normalised Gram matrix `G_{jl} = E[conj(λ)^j λ^l]`,
    /// `j, l < L`, of one eigenvalue drawn from the spectrum (for custom lists and
    /// roots of unity, the mean over the list / the `L` roots, the `N = L` case).
    /// Ring: `E[ρ^{j+l}]·E[e^{i(l−j)θ}]` with `ρ² ~ U[r_min², r_max²]`,
    /// `θ ~ U[0, max_phase)`; real `U[lo, hi]`: `E[λ^{j+l}]`. O(L²) (O(NL²) custom).
    ///
    /// # Errors
    /// As [`Spectrum::gram_expectation`].
    pub fn gram_expectation_matrix(&self, l: usize) -> Result<ndarray::Array2<C64>> {
        self.check()?;
        if l == 0 {
            return Err(Error::ZeroWidth { what: "L" });
        }
        mlcore::check::alloc_len(&[l, l], 16, "Gram matrix")?;
        let g = match *self {
            Spectrum::RealUniform { lo, hi } => ndarray::Array2::from_shape_fn((l, l), |(j, k)| {
                let p = (j + k) as i32;
                // E[λ^p] for λ ~ U[lo, hi], exact for integer p (lo may be negative).
                let m = (hi.powi(p + 1) - lo.powi(p + 1)) / (f64::from(p + 1) * (hi - lo));
                C64::new(m, 0.0)
            }),
            Spectrum::RootsOfUnity { r } => ndarray::Array2::from_shape_fn((l, l), |(j, k)| {
                // Mean over the L roots: r^{j+k}·[j = k], since the (k − j)-th power
                // of the L-th roots sums to 0 for 0 < |k − j| < L.
                if j == k {
                    C64::new(r.powi(2 * j as i32), 0.0)
                } else {
                    C64::new(0.0, 0.0)
                }
            }),
            Spectrum::LruRing {
                r_min,
                r_max,
                max_phase,
            } => ndarray::Array2::from_shape_fn((l, l), |(j, k)| {
                let radial = uniform_moment(r_min * r_min, r_max * r_max, (j + k) as f64 / 2.0);
                phase_moment(k as f64 - j as f64, max_phase) * radial
            }),
            Spectrum::Custom(ref lam) => {
                let n = lam.len() as f64;
                ndarray::Array2::from_shape_fn((l, l), |(j, k)| {
                    lam.iter()
                        .map(|x| x.conj().powi(j as i32) * x.powi(k as i32))
                        .sum::<C64>()
                        / n
                })
            }
        };
        Ok(g)
    }
}

/// A reason to expect a poorly conditioned encoding from a list of eigenvalues.
#[derive(Debug, Clone, PartialEq)]
pub enum SpectrumWarning {
    /// Every eigenvalue is real: κ₂(V) grows exponentially in L (Gautschi).
    Real,
    /// The phases leave an empty arc wider than π: the spectrum is
    /// phase-restricted (like `max_phase = π/10` rings) and about as
    /// ill-conditioned as a real one.
    PhaseRestricted {
        /// The widest empty arc of phases, in radians.
        largest_gap: f64,
    },
    /// Two eigenvalues closer than `tol · max|λ|`.
    Clustered {
        /// First index.
        i: usize,
        /// Second index.
        j: usize,
        /// `|λᵢ − λⱼ|`.
        distance: f64,
    },
}

/// Warnings for a list of eigenvalues: [`SpectrumWarning::Real`],
/// [`SpectrumWarning::PhaseRestricted`] (among the eigenvalues of modulus
/// `> 1e-12`, the widest empty arc of phases exceeds π), and
/// [`SpectrumWarning::Clustered`] for the closest pair when it is closer
/// than `cluster_tol · max|λ|`. O(N log N).
///
/// # Errors
/// [`Error::EmptySequence`], [`Error::NonFinite`]; [`Error::InvalidParameter`]
/// when `cluster_tol` is not finite and `≥ 0`.
pub fn warnings(lambda: &[C64], cluster_tol: f64) -> Result<Vec<SpectrumWarning>> {
    check_lambda(lambda, false)?;
    if !(cluster_tol.is_finite() && cluster_tol >= 0.0) {
        return Err(Error::InvalidParameter {
            name: "cluster_tol",
            value: cluster_tol,
            expected: "finite and >= 0",
        });
    }
    let mut out = Vec::new();
    let scale = lambda.iter().map(|l| l.norm()).fold(0.0, f64::max);
    if lambda.iter().all(|l| l.im == 0.0) {
        out.push(SpectrumWarning::Real);
    } else {
        let mut ph: Vec<f64> = lambda
            .iter()
            .filter(|l| l.norm() > 1e-12)
            .map(|l| l.arg().rem_euclid(TAU))
            .collect();
        ph.sort_by(f64::total_cmp);
        if let (Some(&first), Some(&last)) = (ph.first(), ph.last()) {
            let mut gap = first + TAU - last;
            for w in ph.windows(2) {
                gap = gap.max(w[1] - w[0]);
            }
            if gap > std::f64::consts::PI {
                out.push(SpectrumWarning::PhaseRestricted { largest_gap: gap });
            }
        }
    }
    // Closest pair: sort by real part and sweep (exact for the minimum distance).
    let mut idx: Vec<usize> = (0..lambda.len()).collect();
    idx.sort_by(|&a, &b| lambda[a].re.total_cmp(&lambda[b].re));
    let mut best = (f64::INFINITY, 0, 0);
    for a in 0..idx.len() {
        for b in a + 1..idx.len() {
            if lambda[idx[b]].re - lambda[idx[a]].re >= best.0 {
                break;
            }
            let d = (lambda[idx[a]] - lambda[idx[b]]).norm();
            if d < best.0 {
                best = (d, idx[a].min(idx[b]), idx[a].max(idx[b]));
            }
        }
    }
    if best.0.is_finite() && best.0 <= cluster_tol * scale {
        out.push(SpectrumWarning::Clustered {
            i: best.1,
            j: best.2,
            distance: best.0,
        });
    }
    Ok(out)
}
