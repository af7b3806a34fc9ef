//! The entry points: one start, several starts, the best of several fits.

use super::barrier::minimize_barrier;
use super::bounds::Bounds;
use super::config::{BoxMethod, Lbfgs};
use super::logistic::minimize_logit;
use super::objective::{LocalFit, Objective};
use crate::error::Error;

/// Minimises `obj` over `bounds` from `x0` with L-BFGS, the box handled as
/// `cfg.box_method` says (see the module docs).
///
/// The logistic method evaluates the start once first (not counted in
/// [`LocalFit::evals`]) and returns the objective's error if that fails;
/// a start within [`Logistic::clip`](super::Logistic::clip) of the width from a bound is moved
/// inside by that much. The barrier method moves a start on a bound 1 %
/// inside, as Optim.jl does.
///
/// # Errors
/// [`Error::InvalidParameter`] for bad settings ([`Lbfgs::check`]);
/// [`Error::Empty`], [`Error::ShapeMismatch`], [`Error::NonFinite`] or
/// [`Error::InvalidParameter`] for a start that is empty, of the wrong
/// dimension, not finite or outside the box ([`Bounds::check`]); the
/// objective's error at the start; [`Error::NoConvergence`] if argmin itself
/// fails (not seen in practice: failed points are handled as above).
pub fn minimize<O>(
    obj: &O,
    bounds: &Bounds,
    x0: &[f64],
    cfg: &Lbfgs,
) -> std::result::Result<LocalFit, O::Error>
where
    O: Objective + ?Sized,
    O::Error: From<Error>,
{
    cfg.check()?;
    bounds.check(x0, "x0")?;
    match cfg.box_method {
        BoxMethod::Barrier => minimize_barrier(obj, bounds, x0, cfg, &mut Vec::new()),
        BoxMethod::Logistic => {
            let u0 = bounds.to_logit(x0, cfg.logistic.clip);
            let th0 = cfg.logistic.to_box(bounds, &u0);
            obj.value(&th0)?;
            let first = cfg.max_step.is_finite().then_some(cfg.max_step);
            Ok(minimize_logit(obj, bounds, u0, cfg, first)?.0)
        }
    }
}

/// [`minimize`] from every start, in order.
///
/// # Errors
/// [`Error::Empty`] without starts; otherwise the first error of
/// [`minimize`].
pub fn minimize_multistart<O>(
    obj: &O,
    bounds: &Bounds,
    starts: &[Vec<f64>],
    cfg: &Lbfgs,
) -> std::result::Result<Vec<LocalFit>, O::Error>
where
    O: Objective + ?Sized,
    O::Error: From<Error>,
{
    if starts.is_empty() {
        return Err(Error::Empty { what: "starts" }.into());
    }
    starts
        .iter()
        .map(|s| minimize(obj, bounds, s, cfg))
        .collect()
}

/// The fit with the smallest finite loss (the first on ties); `None` when
/// no loss is finite.
pub fn best(fits: &[LocalFit]) -> Option<&LocalFit> {
    fits.iter()
        .filter(|f| f.loss.is_finite())
        .fold(None, |acc: Option<&LocalFit>, f| match acc {
            Some(a) if a.loss <= f.loss => Some(a),
            _ => Some(f),
        })
}
