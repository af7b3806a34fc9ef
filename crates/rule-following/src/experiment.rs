//! The small-scale leave-square-out experiment: split a task's grid, train a
//! [`TinyTransformer`] from scratch on the training set, decode the test set
//! greedily, and score it with exact match, by L∞ distance to the nearest
//! training point; the [`Knn`] case-based reference on the same split.

use crate::error::{Error, Result};
use crate::eval::{ExactMatch, exact_match, linf_to_train};
use crate::format::{Format, Rendered};
use crate::knn::Knn;
use crate::split::{Split, Square};
use crate::task::{Sample, Task};
use crate::transformer::{TinyTransformer, TransformerConfig};
use nncore::optim::{OptimizerKind, Schedule};
use nncore::train::TrainConfig;
use rand::Rng;
use std::time::Instant;

/// The experiment's settings.
#[derive(Debug, Clone, PartialEq)]
pub struct GridExperiment {
    /// The task (the quick run: addition on `[0, 40)²`).
    pub task: Task,
    /// The split.
    pub split: Split,
    /// The text format of the training targets.
    pub format: Format,
    /// The model's shape.
    pub model: TransformerConfig,
    /// AdamW steps (rounded up to whole epochs).
    pub steps: usize,
    /// Mini-batch size.
    pub batch: usize,
    /// Peak learning rate (warm-up over 1% of the steps, cosine decay to 10%).
    pub learning_rate: f64,
    /// AdamW decoupled weight decay.
    pub weight_decay: f64,
    /// Neighbours of the kNN reference.
    pub knn_k: usize,
}

impl GridExperiment {
    /// The quick setting on `split`: addition on `[0, 40)²`, direct
    /// answers, `d = 64`, 2 layers, 4 heads, 2,000 AdamW steps of batch 64
    /// at `η = 3·10⁻³`, weight decay 0.01, 1-NN.
    pub fn quick(split: Split) -> Self {
        GridExperiment {
            task: Task::Addition { n: 40 },
            split,
            format: Format::Direct,
            model: TransformerConfig::default(),
            steps: 2000,
            batch: 64,
            learning_rate: 3e-3,
            weight_decay: 0.01,
            knn_k: 1,
        }
    }
}

/// What one run measured.
#[derive(Debug, Clone, PartialEq)]
pub struct GridOutcome {
    /// The test samples, in split order.
    pub test: Vec<Sample>,
    /// The holes of the split.
    pub squares: Vec<Square>,
    /// L∞ distance of each test sample to the nearest training sample.
    pub distances: Vec<u64>,
    /// The transformer's outputs.
    pub outputs: Vec<String>,
    /// Whether each output is right.
    pub correct: Vec<bool>,
    /// Exact-match counts of the transformer.
    pub exact: ExactMatch,
    /// Whether each kNN prediction is right.
    pub knn_correct: Vec<bool>,
    /// Exact-match counts of the kNN.
    pub knn_exact: ExactMatch,
    /// Optimiser steps taken.
    pub steps: usize,
    /// Mean training loss of the last epoch.
    pub final_loss: f64,
    /// Training wall-clock seconds.
    pub train_seconds: f64,
    /// Training tokens (input positions) per second.
    pub tokens_per_second: f64,
}

impl GridExperiment {
    /// Runs the experiment with `rng` (split, weights, batch order). Cost:
    /// `steps` transformer steps plus greedy decoding of the test set and
    /// O(|test|·|train|) for the distances and the kNN.
    ///
    /// # Errors
    /// The split's, the model's and nncore's errors; [`Error::InvalidParameter`]
    /// for zero steps or batch.
    pub fn run<R: Rng + ?Sized>(&self, rng: &mut R) -> Result<GridOutcome> {
        if self.steps == 0 || self.batch == 0 {
            return Err(Error::InvalidParameter {
                name: "steps/batch",
                value: format!("{}/{}", self.steps, self.batch),
                expected: "both ≥ 1",
            });
        }
        let sets = self.split.apply(&self.task, rng)?;
        let rendered: Vec<Rendered> = sets
            .train
            .iter()
            .map(|s| self.format.render(&self.task, s))
            .collect::<Result<_>>()?;
        let per_epoch = sets.train.len().div_ceil(self.batch);
        let epochs = self.steps.div_ceil(per_epoch);
        let config = TrainConfig {
            epochs,
            batch_size: self.batch,
            learning_rate: self.learning_rate,
            optimizer: OptimizerKind::AdamW {
                beta1: 0.9,
                beta2: 0.999,
                eps: 1e-8,
                weight_decay: self.weight_decay,
            },
            schedule: Schedule::WarmupCosine {
                warmup_steps: (epochs * per_epoch).div_ceil(100),
                final_fraction: 0.1,
            },
            progress: false,
            ..Default::default()
        };
        let mut model = TinyTransformer::new(self.model, rng)?;
        let start = Instant::now();
        let history = model.train(&rendered, &config, rng)?;
        let train_seconds = start.elapsed().as_secs_f64();
        let tokens: usize = rendered.iter().map(|r| r.tokens()).sum::<usize>() * epochs;
        let prompts: Vec<String> = sets.test.iter().map(|s| s.question.clone()).collect();
        let raw = model.generate(&prompts)?;
        // Score the final answer: for step-by-step formats, the last line.
        let outputs: Vec<String> = raw
            .iter()
            .map(|o| o.rsplit('\n').next().unwrap_or("").to_string())
            .collect();
        let (exact, correct) = exact_match(&self.task, &sets.test, &outputs)?;
        let distances = linf_to_train(&self.task, &sets.train, &sets.test)?;
        let knn = Knn::fit(&self.task, &sets.train, self.knn_k)?;
        let (knn_exact, knn_correct) = exact_match(
            &self.task,
            &sets.test,
            &knn.predict_samples(&self.task, &sets.test),
        )?;
        Ok(GridOutcome {
            test: sets.test,
            squares: sets.squares,
            distances,
            outputs: raw,
            correct,
            exact,
            knn_correct,
            knn_exact,
            steps: history.step_losses.len(),
            final_loss: history.epochs.last().map_or(f64::NAN, |e| e.train_loss),
            train_seconds,
            tokens_per_second: tokens as f64 / train_seconds.max(1e-9),
        })
    }
}
