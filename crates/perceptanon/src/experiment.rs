//! The whole pipeline on a corpus: anonymise, rate (simulated annotator),
//! compute MSE / PSNR / SSIM, split, train the learned scores, and
//! correlate everything with the held-out labels. Shared by the runner
//! entry `perceptanon` and the example `anonymize_and_score`.

use rand::Rng;

use crate::anonymize::Method;
use crate::error::{Error, Result};
use crate::eval::{CorrelationRow, correlation_report};
use crate::features::Handcrafted;
use crate::iqa::{SsimParams, mse, psnr, ssim};
use crate::model::cnn::{CnnParams, CnnScorer};
use crate::model::lite::{PerceptAnonLite, head_input};
use crate::model::{Setting, TrainParams};
use crate::simulate::{Sample, SimulatedAnnotator};
use crate::split::{SampleMeta, SplitKind, make_split};

/// Pixel metrics of one sample.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PixelMetrics {
    /// MSE.
    pub mse: f64,
    /// PSNR in dB (data range 1).
    pub psnr: f64,
    /// SSIM, standard preset.
    pub ssim: f64,
    /// SSIM, PerceptAnon preset.
    pub ssim_compat: f64,
}

/// The metrics of every sample. O(Σ pixels · 11).
///
/// # Errors
/// The metrics' errors (e.g. a tile smaller than the 11-pixel window).
pub fn pixel_metrics(samples: &[Sample]) -> Result<Vec<PixelMetrics>> {
    samples
        .iter()
        .map(|s| {
            Ok(PixelMetrics {
                mse: mse(&s.original, &s.anonymized)?,
                psnr: psnr(&s.original, &s.anonymized, 1.0)?,
                ssim: ssim(&s.original, &s.anonymized, &SsimParams::standard())?,
                ssim_compat: ssim(
                    &s.original,
                    &s.anonymized,
                    &SsimParams::perceptanon_compat(),
                )?,
            })
        })
        .collect()
}

/// Violations of "SSIM and PSNR are non-increasing in strength".
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Monotonicity {
    /// (base, method) groups where some step raises SSIM or PSNR by more
    /// than the tolerance, per method name.
    pub violating_groups: std::collections::BTreeMap<&'static str, usize>,
    /// Groups checked.
    pub groups: usize,
    /// Largest SSIM increase between consecutive strengths (0 if none).
    pub worst_ssim_increase: f64,
    /// Largest PSNR increase in dB (0 if none).
    pub worst_psnr_increase: f64,
}

impl Monotonicity {
    /// Total violating groups.
    pub fn total(&self) -> usize {
        self.violating_groups.values().sum()
    }
}

/// (base index, method name).
type GroupKey = (usize, &'static str);

/// Checks, per (base, method) group ordered by strength, that SSIM and PSNR
/// never increase by more than `tol`. O(#samples log #samples).
pub fn monotonicity_violations(
    samples: &[Sample],
    metrics: &[PixelMetrics],
    tol: f64,
) -> Monotonicity {
    let mut groups: std::collections::BTreeMap<GroupKey, Vec<(f64, f64, f64)>> = Default::default();
    for (s, m) in samples.iter().zip(metrics) {
        groups
            .entry((s.base, s.method.name()))
            .or_default()
            .push((s.strength, m.ssim, m.psnr));
    }
    let mut out = Monotonicity {
        groups: groups.len(),
        ..Default::default()
    };
    for ((_, method), mut g) in groups {
        g.sort_by(|a, b| a.0.total_cmp(&b.0));
        let mut bad = false;
        for w in g.windows(2) {
            let up_s = w[1].1 - w[0].1;
            let up_p = if w[0].2.is_infinite() {
                f64::NEG_INFINITY
            } else {
                w[1].2 - w[0].2
            };
            if up_s > tol || up_p > tol {
                bad = true;
                out.worst_ssim_increase = out.worst_ssim_increase.max(up_s);
                out.worst_psnr_increase = out.worst_psnr_increase.max(up_p);
            }
        }
        *out.violating_groups.entry(method).or_default() += usize::from(bad);
    }
    out
}

/// Budget of one pipeline run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PipelineParams {
    /// Feature heads (PerceptAnonLite).
    pub lite: TrainParams,
    /// The small CNN; `None` skips it.
    pub cnn: Option<CnnParams>,
}

impl Default for PipelineParams {
    fn default() -> Self {
        Self {
            lite: TrainParams::default(),
            cnn: Some(CnnParams::default()),
        }
    }
}

/// The correlation report of one split.
#[derive(Debug, Clone, PartialEq)]
pub struct SplitReport {
    /// The split's name (`all`, `anon-mask`, …).
    pub split: String,
    /// One row per metric, oriented so that higher = more anonymous
    /// (MSE, −PSNR, 1 − SSIM, 1 − SSIM compat, learned scores).
    pub rows: Vec<CorrelationRow>,
}

impl SplitReport {
    /// The row of `metric`.
    pub fn row(&self, metric: &str) -> Option<&CorrelationRow> {
        self.rows.iter().find(|r| r.metric == metric)
    }
}

/// A rated corpus with everything the splits reuse: pixel metrics and the
/// handcrafted head inputs of both settings, computed once.
#[derive(Debug, Clone)]
pub struct Prepared {
    /// The samples.
    pub samples: Vec<Sample>,
    /// Their labels (mean rating in [1, 10]).
    pub labels: Vec<f64>,
    /// Their pixel metrics.
    pub metrics: Vec<PixelMetrics>,
    ha1: Vec<Vec<f64>>,
    ha2: Vec<Vec<f64>>,
}

/// Computes metrics and head inputs of a rated corpus. O(Σ pixels · 11).
///
/// # Errors
/// [`Error::SizeMismatch`] when labels and samples differ in number;
/// [`Error::EmptyInput`]; metric and feature errors.
pub fn prepare(samples: Vec<Sample>, labels: Vec<f64>) -> Result<Prepared> {
    if samples.is_empty() {
        return Err(Error::EmptyInput { what: "samples" });
    }
    if samples.len() != labels.len() {
        return Err(Error::SizeMismatch {
            what: "samples and labels",
            expected: format!("{} labels", samples.len()),
            found: format!("{} labels", labels.len()),
        });
    }
    for (i, &l) in labels.iter().enumerate() {
        crate::labels::check_score(l, i)?;
    }
    let metrics = pixel_metrics(&samples)?;
    let rows = |setting| -> Result<Vec<Vec<f64>>> {
        samples
            .iter()
            .map(|s| head_input(&Handcrafted, setting, &s.original, &s.anonymized))
            .collect()
    };
    let (ha1, ha2) = (rows(Setting::Ha1)?, rows(Setting::Ha2)?);
    Ok(Prepared {
        samples,
        labels,
        metrics,
        ha1,
        ha2,
    })
}

/// Runs one split: trains the learned scores on its train part (train +
/// validation) and correlates all metrics with the labels of its test part.
///
/// # Errors
/// Split, training and correlation errors.
pub fn run_split(
    name: &str,
    kind: &SplitKind,
    data: &Prepared,
    params: &PipelineParams,
    rng: &mut impl Rng,
) -> Result<SplitReport> {
    let (samples, metrics, labels) = (&data.samples, &data.metrics, &data.labels);
    let meta: Vec<SampleMeta> = samples
        .iter()
        .zip(labels)
        .map(|(s, &score)| SampleMeta {
            score,
            dataset: s.source.clone(),
            method: s.method.family().to_string(),
        })
        .collect();
    let split = make_split(&meta, kind, rng)?;
    let train: Vec<usize> = split.train.iter().chain(&split.val).copied().collect();
    let test = &split.test;
    let y_train: Vec<f64> = train.iter().map(|&i| labels[i]).collect();
    let y_test: Vec<f64> = test.iter().map(|&i| labels[i]).collect();
    let pick = |f: &dyn Fn(&PixelMetrics) -> f64| -> Vec<f64> {
        test.iter().map(|&i| f(&metrics[i])).collect()
    };
    let mut columns: Vec<(String, Vec<f64>)> = vec![
        ("MSE".into(), pick(&|m| m.mse)),
        (
            "-PSNR".into(),
            pick(&|m| if m.psnr.is_finite() { -m.psnr } else { -1000.0 }),
        ),
        ("1-SSIM".into(), pick(&|m| 1.0 - m.ssim)),
        ("1-SSIM (compat)".into(), pick(&|m| 1.0 - m.ssim_compat)),
    ];
    for (setting, label, all_rows) in [
        (Setting::Ha1, "Lite HA1", &data.ha1),
        (Setting::Ha2, "Lite HA2", &data.ha2),
    ] {
        let rows =
            |idx: &[usize]| -> Vec<Vec<f64>> { idx.iter().map(|&i| all_rows[i].clone()).collect() };
        let model = PerceptAnonLite::fit(&rows(&train), &y_train, setting, &params.lite, rng)?;
        columns.push((label.into(), model.predict_scores(&rows(test))?));
    }
    if let Some(cnn) = &params.cnn {
        let imgs = |idx: &[usize], orig: bool| -> Vec<crate::image::Image> {
            idx.iter()
                .map(|&i| {
                    if orig {
                        samples[i].original.clone()
                    } else {
                        samples[i].anonymized.clone()
                    }
                })
                .collect()
        };
        for (setting, label) in [(Setting::Ha1, "CNN HA1"), (Setting::Ha2, "CNN HA2")] {
            let model = CnnScorer::fit(
                &imgs(&train, true),
                &imgs(&train, false),
                &y_train,
                setting,
                cnn,
                rng,
            )?;
            columns.push((
                label.into(),
                model.predict_scores(&imgs(test, true), &imgs(test, false))?,
            ));
        }
    }
    let refs: Vec<(&str, &[f64])> = columns
        .iter()
        .map(|(n, v)| (n.as_str(), v.as_slice()))
        .collect();
    Ok(SplitReport {
        split: name.to_string(),
        rows: correlation_report(&refs, &y_test)?,
    })
}

/// Rates every sample with the simulated annotator. O(#samples · area).
///
/// # Errors
/// The annotator's errors.
pub fn rate_all(
    samples: &[Sample],
    annotator: &SimulatedAnnotator,
    rng: &mut impl Rng,
) -> Result<Vec<f64>> {
    samples
        .iter()
        .map(|s| annotator.rate(&s.original, &s.anonymized, s.region, rng))
        .collect()
}

/// The leave-one-method-out splits (`anon-blurpix`, `anon-mask`, `anon-inpaint`).
pub fn method_splits() -> Vec<(String, SplitKind)> {
    let mut fams: Vec<&str> = Method::ALL.iter().map(|m| m.family()).collect();
    fams.dedup();
    fams.into_iter()
        .map(|f| {
            (
                format!("anon-{f}"),
                SplitKind::LeaveOneMethodOut(f.to_string()),
            )
        })
        .collect()
}
