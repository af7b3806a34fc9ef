//! `partial-equivariance`: learned Fourier likelihoods over SO(2) reflect the
//! symmetry of the data (Veefkind & Cesa, ICML 2024).
//!
//! What runs here is the likelihood side of the claim, decided without a
//! network: band-limited likelihoods λ over SO(2) fitted by maximum likelihood
//! (the crate's `fit`) to rotation angles with a known symmetry.
//!
//! * C4 data: a four-mode von Mises mixture (modes 0°, 90°, 180°, 270°,
//!   κ = 20, 5,000 angles), L = 8. On every seed |λ̂(4)| and |λ̂(8)| must both
//!   exceed every other |λ̂(m)|, m ≤ 8 (source: the spec's `learn_c4_likelihood`
//!   example and the paper's claim that learned likelihoods peak at the data's
//!   symmetry). The MLE of this exponential family matches the empirical
//!   Fourier moments, whose mean is I₄(κ)/I₀(κ) for the mixture: |λ̂(4)| must
//!   lie within 5 standard errors of it on every seed (source: the closed form
//!   of the von Mises moments, computed here by 4,096-point periodic
//!   quadrature, independent of the crate).
//! * SO(2) data: uniform angles, L = 4: max_{m ≥ 1} |λ̂(m)| ≤ 0.1 on every seed
//!   (source: issue 28, "on SO(2) data max_m≥1 |λ̂(m)| ≤ 0.1").
//! * Uniform θ: the relaxed basis is the Wigner–Eckart basis, and its kernels
//!   have 90° equivariance error < 1e-10 (source: spec property).
//!
//! The relaxed steerable CNN on rotated digits (C4, SO(2), double digits) is
//! not built yet: its three checks are reported `incomplete` with that reason.

use crate::runner::{
    BoxError, Budget, Check, Context, Figure, Outcome, Plot, Relation, Reproduction, Series,
};
use mlcore::sampling::seeded;
use ndarray::Array1;
use partial_equivariance::basis::{KernelParams, RelaxedBasis, WignerEckartBasis};
use partial_equivariance::diagnostics::equivariance_error;
use partial_equivariance::field::FieldType;
use partial_equivariance::fit::{FitConfig, fit, von_mises_mixture};
use partial_equivariance::fourier::{BandLimitedLikelihood, oversampled_resolution};
use partial_equivariance::group::{Irrep, Planar, PlanarElement};
use rand::RngExt;
use std::f64::consts::{FRAC_PI_2, PI};

/// The reproduction registered as `partial-equivariance`.
pub struct PartialEquivariance;

/// Seeds at the quick and full budgets.
pub const SEEDS: (u64, u64) = (5, 20);
/// Angles per fit.
pub const ANGLES: usize = 5_000;
/// Concentration of each von Mises mode.
pub const KAPPA: f64 = 20.0;
/// Band limit of the C4 fit (the spec's example).
pub const L_C4: usize = 8;
/// Band limit of the SO(2) fit (the paper's experiments).
pub const L_SO2: usize = 4;

/// `|λ̂(m)|` of an SO(2) likelihood: the norm of (E cos mθ, E sin mθ).
fn coefficient(lik: &BandLimitedLikelihood<Planar>, m: usize) -> Result<f64, BoxError> {
    let h = lik.fourier(Irrep::new(0, m))?;
    Ok(h[[0, 0]].hypot(h[[1, 0]]))
}

/// `E[cos mθ]` under one von Mises mode at 0 with concentration κ, i.e.
/// `I_m(κ)/I₀(κ)`, by the trapezoidal rule on 4,096 points (exact to
/// rounding for this smooth periodic integrand).
fn von_mises_moment(m: usize, kappa: f64) -> f64 {
    let n = 4096;
    let (mut num, mut den) = (0.0, 0.0);
    for i in 0..n {
        let t = 2.0 * PI * i as f64 / n as f64;
        let w = (kappa * (t.cos() - 1.0)).exp();
        num += w * (m as f64 * t).cos();
        den += w;
    }
    num / den
}

fn fit_so2(angles: Vec<f64>, l: usize) -> Result<BandLimitedLikelihood<Planar>, BoxError> {
    let obs: Vec<PlanarElement> = angles.into_iter().map(PlanarElement::rotation).collect();
    let config = FitConfig {
        band_limit: l,
        band_limit_out: l,
        ..FitConfig::default()
    };
    Ok(fit(Planar::So2, &obs, &config)?.likelihood)
}

/// Largest 90° equivariance error of random relaxed kernels at uniform θ,
/// and the largest deviation of the relaxed basis from the Wigner–Eckart
/// basis (after the ridge factor N/(N + 1e-8)), over SO(2) field pairs with
/// frequencies ≤ 1 on a 7×7 grid.
fn uniform_theta_errors(seed: u64) -> Result<(f64, f64), BoxError> {
    let group = Planar::So2;
    let params = KernelParams::new(7, L_SO2);
    let lik = BandLimitedLikelihood::uniform(group, 2, L_SO2, oversampled_resolution(L_SO2))?;
    let n = lik.grid().len() as f64;
    let scale = n / (n + 1e-8);
    let types = [
        FieldType::trivial(group),
        FieldType::irrep(group, Irrep::new(0, 1))?,
        FieldType::new(group, vec![Irrep::TRIVIAL, Irrep::new(0, 1)])?,
    ];
    let mut rng = seeded(seed);
    let (mut equi, mut dev) = (0.0f64, 0.0f64);
    for fin in &types {
        for fout in &types {
            let we = WignerEckartBasis::new(fin, fout, &params)?;
            let rb = RelaxedBasis::new(fin, fout, &params, &lik)?;
            let mut k = 0;
            for (label, el) in rb
                .basis()
                .labels()
                .iter()
                .zip(rb.basis().elements().outer_iter())
            {
                if label.psi == Irrep::TRIVIAL {
                    let w = we.basis().elements().index_axis(ndarray::Axis(0), k);
                    for (a, b) in el.iter().zip(w.iter()) {
                        dev = dev.max((a - b * scale).abs());
                    }
                    k += 1;
                } else {
                    dev = dev.max(el.iter().fold(0.0, |m, v| m.max(v.abs())));
                }
            }
            if k != we.basis().len() {
                return Err(format!(
                    "relaxed basis has {k} trivial elements, Wigner–Eckart {}",
                    we.basis().len()
                )
                .into());
            }
            let w: Array1<f64> = mlcore::sampling::standard_normal(rb.basis().len(), &mut rng);
            let kern = rb.basis().kernel(w.view())?;
            equi = equi.max(equivariance_error(
                kern.view(),
                fin,
                fout,
                &PlanarElement::rotation(FRAC_PI_2),
            )?);
        }
    }
    Ok((equi, dev))
}

impl Reproduction for PartialEquivariance {
    fn id(&self) -> &'static str {
        "partial-equivariance"
    }

    fn paper(&self) -> &'static str {
        "A Probabilistic Approach to Learning the Degree of Equivariance in Steerable CNNs (Veefkind & Cesa, ICML 2024)"
    }

    fn claim(&self) -> &'static str {
        "Learned band-limited Fourier likelihoods over the group reflect the data's symmetry (peaks at C4 for C4 data, uniform for SO(2)); uniform likelihoods recover the fully equivariant basis"
    }

    fn run(&self, ctx: &Context) -> Result<Outcome, BoxError> {
        let seeds = match ctx.budget() {
            Budget::Quick => SEEDS.0,
            Budget::Full => SEEDS.1,
        };
        ctx.set_steps(2 * seeds + 1);
        let q = FRAC_PI_2;
        let modes = [0.0, q, 2.0 * q, 3.0 * q];
        let rho4 = von_mises_moment(4, KAPPA);
        let rho8 = von_mises_moment(8, KAPPA);
        // Var(cos 4θ) = (1 + E cos 8θ)/2 − (E cos 4θ)²; sin 4θ has mean 0.
        let se4 = (((1.0 + rho8) / 2.0 - rho4 * rho4) / ANGLES as f64).sqrt();
        let (mut margin, mut worst_z) = (f64::INFINITY, 0.0f64);
        let mut so2_max = 0.0f64;
        let mut c4_mean = [0.0; L_C4];
        let mut so2_mean = [0.0; L_SO2];
        for s in 0..seeds {
            let mut rng = seeded(ctx.seed() ^ (0x00c4_0000 + s));
            let lik = fit_so2(von_mises_mixture(&modes, KAPPA, ANGLES, &mut rng)?, L_C4)?;
            let c: Vec<f64> = (1..=L_C4)
                .map(|m| coefficient(&lik, m))
                .collect::<Result<_, _>>()?;
            let peaks = c[3].min(c[7]);
            let others = c
                .iter()
                .enumerate()
                .filter(|(i, _)| *i != 3 && *i != 7)
                .fold(0.0f64, |m, (_, v)| m.max(*v));
            margin = margin.min(peaks - others);
            worst_z = worst_z.max((c[3] - rho4).abs() / se4);
            for (a, v) in c4_mean.iter_mut().zip(&c) {
                *a += v / seeds as f64;
            }
            ctx.step();
            let mut rng = seeded(ctx.seed() ^ (0x0502_0000 + s));
            let angles: Vec<f64> = (0..ANGLES)
                .map(|_| rng.random_range(0.0..2.0 * PI))
                .collect();
            let lik = fit_so2(angles, L_SO2)?;
            for m in 1..=L_SO2 {
                let v = coefficient(&lik, m)?;
                so2_max = so2_max.max(v);
                so2_mean[m - 1] += v / seeds as f64;
            }
            ctx.step();
        }
        let (equi, dev) = uniform_theta_errors(ctx.seed())?;
        ctx.step();
        let n = seeds as usize;
        let no_cnn = "the relaxed steerable CNN on rotated digits is not built yet (crate docs): \
                      the likelihood-side claims above are decided without a network";
        let checks = vec![
            Check::new(
                format!(
                    "C4 data (4-mode von Mises, κ = {KAPPA}, {ANGLES} angles, L = {L_C4}): worst seed's \
                     min(|λ̂(4)|, |λ̂(8)|) − max over other m ≤ 8 of |λ̂(m)|"
                ),
                margin,
                Relation::Above,
                0.0,
                "spec, example learn_c4_likelihood (|λ̂| large at m = 4, 8, small elsewhere); paper: learned \
                 likelihoods peak at the data's symmetry",
            )
            .with_seeds(n),
            Check::new(
                format!(
                    "C4 data: worst seed's |λ̂(4)| − I₄(κ)/I₀(κ) in standard errors (I₄/I₀ = {rho4:.4}, SE = {se4:.2e})"
                ),
                worst_z,
                Relation::AtMost,
                5.0,
                "closed form: the MLE matches the empirical Fourier moments, whose mean is the von Mises \
                 moment I₄(κ)/I₀(κ) (4,096-point quadrature); 5 SE per seed",
            )
            .with_seeds(n),
            Check::new(
                format!("SO(2) data (uniform angles, {ANGLES} per seed, L = {L_SO2}): worst seed's max_(m ≥ 1) |λ̂(m)|"),
                so2_max,
                Relation::AtMost,
                0.1,
                "issue 28 (on SO(2) data max_m≥1 |λ̂(m)| ≤ 0.1); spec: uniform for SO(2)",
            )
            .with_seeds(n),
            Check::new(
                "uniform θ: largest 90° equivariance error of random relaxed kernels (SO(2), 7×7, fields of \
                 frequency ≤ 1)",
                equi,
                Relation::Below,
                1e-10,
                "spec property: uniform θ gives RelaxedBasis = WignerEckartBasis, 90° error < 1e-10",
            ),
            Check::new(
                "uniform θ: largest |relaxed − Wigner–Eckart| basis entry (after the ridge factor N/(N + 1e-8))",
                dev,
                Relation::Below,
                1e-10,
                "spec property: uniform θ gives RelaxedBasis = WignerEckartBasis",
            ),
            Check::new(
                "C4-rotated digits: |λ̂(4)| > max_(m = 1–3) |λ̂(m)| in every layer and seed",
                f64::NAN,
                Relation::Above,
                0.0,
                "paper: learned likelihoods recover the data's symmetry (issue 28)",
            )
            .undecided(no_cnn),
            Check::new(
                "SO(2)-rotated digits: max_(m ≥ 1) |λ̂(m)| ≤ 0.1 in every layer",
                f64::NAN,
                Relation::AtMost,
                0.1,
                "spec / issue 28",
            )
            .undecided(no_cnn),
            Check::new(
                "accuracy of the relaxed CNN minus the fully equivariant and plain CNNs (paired, ≥ 10 seeds): \
                 lower end of the interval",
                f64::NAN,
                Relation::Above,
                -1.0,
                "paper: partial equivariance does not cost accuracy (issue 28: lower end > −1 point)",
            )
            .undecided(no_cnn),
        ];
        let mut figures = vec![
            Figure::new("I₄(κ)/I₀(κ), κ = 20", rho4),
            Figure::new("I₈(κ)/I₀(κ), κ = 20", rho8),
        ];
        for (m, v) in c4_mean.iter().enumerate() {
            figures.push(Figure::new(
                format!("C4 data: mean |λ̂({})| over {n} seeds", m + 1),
                *v,
            ));
        }
        for (m, v) in so2_mean.iter().enumerate() {
            figures.push(Figure::new(
                format!("SO(2) data: mean |λ̂({})| over {n} seeds", m + 1),
                *v,
            ));
        }
        let plots = vec![Plot {
            title: "Fitted likelihoods: mean |λ̂(m)| per frequency".into(),
            x_label: "frequency m".into(),
            y_label: "|λ̂(m)|".into(),
            series: vec![
                Series::line(
                    "C4 data (L = 8)",
                    c4_mean
                        .iter()
                        .enumerate()
                        .map(|(m, v)| ((m + 1) as f64, *v))
                        .collect(),
                ),
                Series::line(
                    "SO(2) data (L = 4)",
                    so2_mean
                        .iter()
                        .enumerate()
                        .map(|(m, v)| ((m + 1) as f64, *v))
                        .collect(),
                ),
            ],
            ..Plot::default()
        }];
        Ok(Outcome {
            checks,
            figures,
            plots,
            notes: vec![
                "Likelihoods are fitted by Newton's method on an oversampled grid (8·L_out + 32 angles); on the \
                 official grid of 2L + 1 points log Z is only approximate (crate docs, module fourier)."
                    .into(),
                format!("Not built yet: {no_cnn}."),
            ],
        })
    }
}
