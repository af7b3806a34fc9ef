//! # rule-following — Case-Based or Rule-Based: How Do Transformers Do the Math?
//!
//! Yi Hu, Xiaojuan Tang, Haotong Yang, Muhan Zhang. *Case-Based or
//! Rule-Based: How Do Transformers Do the Math?* ICML 2024 (arXiv
//! 2402.17709). Official code and data: `GraphPKU/Case_or_Rule` (MIT).
//!
//! The paper asks whether transformers solve simple math by rules or by
//! nearby cases. It trains models on five tasks over a grid of operands with
//! a square *hole* left out of the training set (leave-square-out) and finds
//! an accuracy hole: models answer from similar training cases. It then
//! proposes Rule-Following Fine-Tuning (RFFT): the prompt states the rule as
//! code, the model recites and follows it step by step.
//!
//! | paper | item |
//! |---|---|
//! | §3 tasks (addition, modular addition, base addition, linear regression, chicken & rabbit) | [`task::Task`], [`task::Sample`], [`task::TaskName`] |
//! | §3.1 random and leave-square-out splits, rows and columns | [`split::Split`], [`split::Square`] |
//! | official JSON data | [`io::read_json`], [`io::write_json`] |
//! | §4 scratchpad, §5 RFFT | [`format::Format`] |
//! | the addition rule, its trace and a verifier | [`rule::trace`], [`rule::verify_compact`], [`rule::interpret_compact`] |
//! | exact-match evaluation, accuracy by distance | [`eval`] |
//! | case-based reference | [`knn::Knn`] |
//! | small transformer from scratch (candle) | [`transformer::TinyTransformer`] |
//! | the small-scale leave-square-out run (runner entry) | [`experiment::GridExperiment`] |
//! | external models | [`Solver`] |
//!
//! ```
//! use rule_following::split::Split;
//! use rule_following::task::Task;
//! use rule_following::rule::{trace, verify_compact};
//! use rand::SeedableRng;
//! # fn main() -> rule_following::Result<()> {
//! // The paper's one-hole split of addition: a, b ∈ [40, 60] held out.
//! let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0);
//! let sets = Split::one_hole(50, 50, 10).apply(&Task::PAPER_ADDITION, &mut rng)?;
//! assert_eq!((sets.train.len(), sets.test.len()), (9559, 441));
//! // The rule's trace of 59 + 13 and its verification.
//! let t = trace(&[5, 9], &[1, 3], 10)?;
//! assert_eq!(t.compact_text(), "9+3+0=12\n5+1+1=07\n=72");
//! assert!(verify_compact(&[5, 9], &[1, 3], 10, "9+3+0=12\n5+1+1=07\n=72")?.is_valid());
//! let wrong = verify_compact(&[5, 9], &[1, 3], 10, "9+3+0=12\n5+1+0=06\n=62")?;
//! assert_eq!(wrong.first_bad_step, Some(1)); // the dropped carry
//! # Ok(())
//! # }
//! ```

#![deny(missing_docs)]

mod error;
pub mod eval;
pub mod experiment;
pub mod format;
pub mod io;
pub mod knn;
pub mod rule;
pub mod split;
pub mod task;
pub mod transformer;

pub use error::{Error, Result};

/// A model that answers prompts (an external LLM, a fitted transformer…).
pub trait Solver {
    /// The model's output for `prompt` (the evaluation extracts the answer from it).
    ///
    /// # Errors
    /// Whatever the model's own failure is.
    fn answer(&mut self, prompt: &str) -> Result<String>;
}

#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
