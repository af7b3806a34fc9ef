//! The look-ahead depths that have MLMC estimators (two- and three-step),
//! as one description the value samplers and the maximisers are generic
//! over: how a level's base samples are drawn and which SAA problem they make.

use super::config::{InnerSplit, InnerValue, SaaConfig};
use super::nstep::{NStepSaa, check_best_f, check_bounds, ei_restarts};
use super::three_step::{ThreeStepSaa, ThreeStepSamples};
use super::two_step::{TwoStepSaa, TwoStepSamples};
use crate::error::Result;
use crate::gp::ExactGp;
use crate::optim::{Bounds, LocalOptimum, best_of};
use rand::Rng;

/// A look-ahead depth with its last-stage value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Depth {
    /// Two-step 1+q₂-EI: `M` is the number of inner MC samples of q-EI.
    Two(InnerValue),
    /// Three-step 1+1+1-EI: `M` is the number of second-stage fantasies.
    Three,
}

/// The base samples of one level of either depth.
pub(crate) enum Drawn {
    /// Two-step samples and the inner value they were drawn for.
    Two(InnerValue, TwoStepSamples),
    /// Three-step samples.
    Three(ThreeStepSamples),
}

impl Depth {
    /// Checks the last-stage value and the solver settings.
    ///
    /// # Errors
    /// [`Error::InvalidBatchSize`].
    pub fn check(&self, saa: &SaaConfig) -> Result<()> {
        if let Depth::Two(inner) = self {
            inner.check()?;
        }
        saa.check()
    }

    /// Draws `N` fantasies with `M` inner samples each, and the raw
    /// candidates of the inner maximisations.
    pub fn draw<R: Rng + ?Sized>(
        &self,
        n: usize,
        m: usize,
        bounds: &Bounds,
        saa: &SaaConfig,
        rng: &mut R,
    ) -> Drawn {
        match *self {
            Depth::Two(inner) => {
                let ib = bounds.repeat(inner.q());
                Drawn::Two(
                    inner,
                    TwoStepSamples::draw(n, m, inner, &ib, saa.inner_raw_samples, rng),
                )
            }
            Depth::Three => Drawn::Three(ThreeStepSamples::draw(
                n,
                m,
                bounds,
                saa.inner_raw_samples,
                rng,
            )),
        }
    }

    /// Checks that `gp`, `bounds`, `x0` and `best_f` fit together.
    ///
    /// # Errors
    /// [`Error::DimensionMismatch`], [`Error::NonFinite`].
    pub fn check_point(
        &self,
        gp: &ExactGp,
        bounds: &Bounds,
        x0: &[f64],
        best_f: f64,
    ) -> Result<()> {
        check_bounds(gp, bounds)?;
        bounds.check_in_box("x0", x0)?;
        check_best_f(best_f)
    }
}

impl Drawn {
    /// The SAA problem on these samples with the given split.
    ///
    /// # Errors
    /// As [`TwoStepSaa::new`] / [`ThreeStepSaa::new`].
    pub fn saa<'a>(
        &'a self,
        gp: &'a ExactGp,
        bounds: &Bounds,
        best_f: f64,
        split: InnerSplit,
        cfg: SaaConfig,
    ) -> Result<NStepSaa<'a>> {
        match self {
            Drawn::Two(inner, s) => TwoStepSaa::new(gp, bounds, best_f, *inner, s, split, cfg)
                .map(TwoStepSaa::into_nstep),
            Drawn::Three(s) => {
                ThreeStepSaa::new(gp, bounds, best_f, s, split, cfg).map(ThreeStepSaa::into_nstep)
            }
        }
    }
}

/// Maximises the SAA problem of `depth` with `N` fantasies and `M` inner
/// samples (plain nested MC) from `saa.restarts` starts chosen by one-step
/// EI among `saa.raw_samples` uniform points; the best local optimum.
///
/// # Errors
/// As [`Drawn::saa`] and [`NStepSaa::maximize`].
pub(crate) fn maximize_nested<R: Rng + ?Sized>(
    depth: Depth,
    gp: &ExactGp,
    bounds: &Bounds,
    n: usize,
    m: usize,
    saa: &SaaConfig,
    rng: &mut R,
) -> Result<LocalOptimum> {
    depth.check(saa)?;
    let best_f = gp.best_observed();
    let s = depth.draw(n, m, bounds, saa, rng);
    let p = s.saa(gp, bounds, best_f, InnerSplit::Full, *saa)?;
    let starts = ei_restarts(gp, bounds, best_f, saa.raw_samples, saa.restarts, rng);
    let opts = p.maximize(&starts)?;
    Ok(best_of(&opts).expect("restarts").clone())
}
