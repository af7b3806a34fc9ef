//! `lookahead-mlmc`: MLMC against nested MC on the closed-form nested toy
//! (estimates against the exact bias formula, fitted rates over seeds, cost
//! against measured RMSE with bootstrap intervals), the two-step look-ahead
//! value (agreement with BoTorch; MLMC against nested MC at equal measured
//! cost from the crate's instrumented counter), and
//! the BO comparison of two-step look-ahead by MLMC against EI on Branin and
//! Hartmann-6 (paired Wilcoxon over seeds).

mod bo;
mod toy;
mod two_step;

pub use toy::{TOY_EPS, TOY_EPS_QUICK};
pub use two_step::{BOTORCH_TWO_STEP, TWO_STEP_EPS};

use crate::runner::{BoxError, Budget, Context, Outcome, Reproduction};
use lookahead_mlmc::gp::{ExactGp, Kernel, KernelKind};
use ndarray::{Array1, array};
use std::time::Instant;

/// The reproduction registered as `lookahead-mlmc`.
pub struct LookaheadMlmc;

/// The spec's 1-D GP: train_x = [−8, −3, 0, 2.5, 7], toy targets, Matérn-5/2
/// (lengthscale 2, outputscale 1), mean 0, noise 1e-4.
pub fn spec_gp() -> Result<ExactGp, lookahead_mlmc::Error> {
    let x = array![[-8.0], [-3.0], [0.0], [2.5], [7.0]];
    let y: Array1<f64> = x.column(0).mapv(lookahead_mlmc::testfns::toy1d);
    let k = Kernel::new(KernelKind::Matern52, vec![2.0], 1.0)?;
    ExactGp::new(x.view(), y.view(), k, 0.0, 1e-4)
}

impl Reproduction for LookaheadMlmc {
    fn id(&self) -> &'static str {
        "lookahead-mlmc"
    }

    fn paper(&self) -> &'static str {
        "Accelerating Look-ahead in Bayesian Optimization: Multilevel Monte Carlo is All you Need (Yang et al., ICML 2024)"
    }

    fn claim(&self) -> &'static str {
        "For nested expectations and maximisations such as the two-step look-ahead acquisition, MLMC with antithetic \
         coupling reaches RMSE ε at the canonical cost O(ε⁻²), against O(ε⁻³) for tuned nested Monte Carlo, and \
         look-ahead by MLMC benefits Bayesian optimisation over EI."
    }

    fn run(&self, ctx: &Context) -> Result<Outcome, BoxError> {
        let quick = ctx.budget() == Budget::Quick;
        let seed = ctx.seed();
        let toy_budget = if quick {
            toy::ToyBudget::quick()
        } else {
            toy::ToyBudget::full()
        };
        let two_steps = 6;
        ctx.set_steps((2 + toy_budget.eps.len() + two_steps + bo::runs(quick)) as u64);
        let step = |msg: &str| {
            ctx.set_message(msg.to_string());
            ctx.step();
        };
        let t = Instant::now();
        let toy = toy::run(seed, toy_budget, &step)?;
        let toy_secs = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let two = two_step::run(seed, quick, &step)?;
        let two_secs = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let bo = bo::run(seed, quick, &step)?;
        let bo_secs = t.elapsed().as_secs_f64();

        let mut checks = toy.checks;
        checks.extend(two.checks);
        checks.extend(bo.checks);
        let mut figures = toy.figures;
        figures.extend(two.figures);
        figures.extend(bo.figures);
        let mut plots = vec![toy.plot];
        plots.extend(two.plots);
        plots.extend(bo.plots);
        let mut notes = toy.notes;
        notes.extend(two.notes);
        notes.push(format!(
            "BO: EI vs two-step look-ahead by MLMC (paper: ε = 0.15, antithetic, forward matching, q₂ = 2){}; 2d uniform \
             initial points, the same initial design per seed for every method, MAP-refitted Matérn-5/2 GP on unit-cube \
             inputs and standardised targets, reduced solver settings (2 restarts). The check is a one-sided paired \
             Wilcoxon test of the final simple regret over seeds; NMSE = (regret / initial regret)² is plotted against \
             iterations and cumulative wall time. The quick budget runs too few seeds to decide it. Earlier full runs \
             (3 seeds × 10 iterations) had EI ahead (Branin mean regret 0.68 vs 1.58, Hartmann-6 0.27 vs 0.63; \
             docs/perf.md): if the full budget confirms that, the BO checks fail and the figures show why.",
            if quick {
                ""
            } else {
                ", and three-step 1+1+1-EI by MLMC (ε = 0.2, 2 seeds × 5 iterations, informative) on Branin"
            }
        ));
        notes.push(
            "The paper's code baseline N = M = round(ε⁻²) costs ε⁻⁴ (mlmc::NestedRule::PaperBaseline); the nested MC here is the \
             tuned ε⁻³ one, the fairer comparison."
                .into(),
        );
        notes.push(format!(
            "Wall time: toy {toy_secs:.1} s, two-step {two_secs:.1} s, BO {bo_secs:.1} s. The full budget (toy with 40 \
             repetitions per ε, two-step rates n = 1000 and 20 equal-cost runs per method at ε = 0.01, BO 20 seeds × 30 iterations on Branin and Hartmann-6 at ≈ 3.5 s per \
             look-ahead iteration, three-step ≈ 50 s per iteration) takes an estimated 1.5–2.5 hours on 2 cores."
        ));
        Ok(Outcome {
            checks,
            figures,
            plots,
            notes,
        })
    }
}
