//! The two-compartment Hodgkin–Huxley model: coupling, stimulus, and the
//! Fenrir gradient on it.

use diffusion_tempering::models::{HodgkinHuxley, TwoCompartmentHodgkinHuxley};
use diffusion_tempering::rk::{RkConfig, dopri5};
use diffusion_tempering::{FenrirLikelihood, FilterConfig, Grid, Observations, OdeModel, simulate};
use mlcore::sampling::seeded;

/// Each compartment's right-hand side is the single-compartment one plus the
/// cable current `±(V₂ − V₁)`, and the stimulus enters compartment 1 only.
#[test]
fn rhs_is_two_single_compartments_plus_cable_current() {
    let m = TwoCompartmentHodgkinHuxley::new(6);
    let single = HodgkinHuxley {
        fixed: HodgkinHuxley::TRUE,
        n_free: 3,
        i_amp: 0.0,
    };
    let x = [-65.0, 0.1, 0.6, 0.3, -58.0, 0.2, 0.5, 0.4];
    let p = TwoCompartmentHodgkinHuxley::TRUE;
    for (t, stim) in [(5.0, 0.0), (50.0, m.i_amp)] {
        let mut out = [0.0; 8];
        m.rhs(t, &x, &p, &mut out);
        let mut a = [0.0; 4];
        let mut b = [0.0; 4];
        single.rhs(t, &x[..4], &[25.0, 7.0, 0.09], &mut a);
        single.rhs(t, &x[4..], &[20.0, 10.0, 0.11], &mut b);
        assert!((out[0] - (a[0] + (x[4] - x[0]) + stim)).abs() < 1e-12);
        assert!((out[4] - (b[0] + (x[0] - x[4]))).abs() < 1e-12);
        for k in 1..4 {
            assert!((out[k] - a[k]).abs() < 1e-12);
            assert!((out[4 + k] - b[k]).abs() < 1e-12);
        }
    }
    assert_eq!(m.true_params(), TwoCompartmentHodgkinHuxley::TRUE.to_vec());
    let m4 = TwoCompartmentHodgkinHuxley::new(4);
    assert_eq!(m4.true_params(), vec![25.0, 7.0, 20.0, 10.0]);
    assert_eq!(m4.fixed[4..], [0.1, 0.1]);
    assert!(m4.bounds().check(&m4.true_params()).is_ok());
}

/// The 210 pA step makes compartment 1 spike (V₁ crosses 0 mV) during the
/// stimulus and not before it; the coupled compartment 2 follows.
#[test]
fn stimulus_drives_spikes_in_the_stimulated_compartment() {
    let m = TwoCompartmentHodgkinHuxley::new(4);
    let times: Vec<f64> = (0..=1000).map(|i| i as f64 * 0.1).collect();
    let xs = dopri5(&m, &m.true_params(), 0.0, &times, &RkConfig::default()).unwrap();
    let before = xs[..95].iter().map(|x| x[0]).fold(f64::MIN, f64::max);
    let during = xs[100..900].iter().map(|x| x[0]).fold(f64::MIN, f64::max);
    let during2 = xs[100..900].iter().map(|x| x[4]).fold(f64::MIN, f64::max);
    assert!(before < -60.0, "{before}");
    assert!(during > 0.0, "{during}");
    assert!(during2 > -60.0, "{during2}");
}

/// The dual-number gradient of the Fenrir NLL (both voltages observed) on
/// the two-compartment model matches central differences.
#[test]
fn fenrir_gradient_matches_finite_differences() {
    let m = TwoCompartmentHodgkinHuxley::new(4);
    let grid = Grid::uniform(0.0, 12.0, 0.01).unwrap();
    let proj = Observations::selector(&[0, 4], 8).unwrap();
    let obs = simulate(
        &m,
        &m.true_params(),
        0.0,
        grid.times().to_vec(),
        proj,
        0.1,
        &mut seeded(3),
    )
    .unwrap();
    let lik = FenrirLikelihood::new(m, obs, grid, FilterConfig::default()).unwrap();
    let p = [27.0, 6.5, 19.0, 10.5];
    let kappa2 = 1e3;
    let (v, g) = lik.nll_grad(&p, kappa2).unwrap();
    assert!((v - lik.nll(&p, kappa2).unwrap()).abs() <= 1e-9 * v.abs());
    for i in 0..4 {
        let h = 1e-5 * p[i];
        let mut a = p;
        let mut b = p;
        a[i] += h;
        b[i] -= h;
        let fd = (lik.nll(&a, kappa2).unwrap() - lik.nll(&b, kappa2).unwrap()) / (2.0 * h);
        assert!(
            (g[i] - fd).abs() <= 1e-4 * fd.abs().max(1.0),
            "coordinate {i}: dual {} vs fd {fd}",
            g[i]
        );
    }
}
