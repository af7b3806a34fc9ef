//! The side-by-side case of `scripts/compare/svgp_ksvd.py`, written as JSON:
//!
//! 1. the spec's KL case (`s = d_s = 10`, `λ ~ U(0.5, 2)`, random `m_u`,
//!    lower-triangular `L_d` with positive diagonal) and our
//!    `kl_to_diag_prior`;
//! 2. a dual KSVD of `K = Φ_qΦ_kᵀ` (`N = 24`, `p = 8`, `s = 5`): `Λ`, `H_e`,
//!    `H_r`;
//! 3. seeded logits (360 in-distribution rows with labels, 300 OOD rows),
//!    their softmax probabilities and our metrics on them;
//! 4. the inference head (one KEP-SVGP attention head, `f64`, `p = 32`,
//!    `s = 10`, `rank_multi = 6`, posterior mean and deterministic variance,
//!    KL and `J`) at `N = 64, 256, 1024`: its parameters, input, output, and
//!    the median over 5 repeats of its CPU time per call (this thread's
//!    clock; run with `CANDLE_NUM_THREADS=1 RAYON_NUM_THREADS=1`).
//!
//! `cargo run --release --example svgp_ksvd_compare_case -- --export FILE`
use candle_core::{DType, Device, Tensor};
use mlcore::sampling::WorkspaceRng;
use ndarray::{Array1, Array2};
use nncore::params::ParamSet;
use rand::RngExt;
use rand_distr::{Distribution, StandardNormal};
use serde_json::{Value, json};
use svgp_ksvd::attention::{KepConfig, KepSvgpAttention};
use svgp_ksvd::evaluate;
use svgp_ksvd::ksvd::KernelSvd;
use svgp_ksvd::svgp::kl_to_diag_prior;

type BoxResult<T> = Result<T, Box<dyn std::error::Error>>;

fn mat(a: &Array2<f64>) -> Value {
    json!(a.rows().into_iter().map(|r| r.to_vec()).collect::<Vec<_>>())
}

fn flat(t: &Tensor) -> BoxResult<Value> {
    Ok(json!({
        "shape": t.dims(),
        "data": t.flatten_all()?.to_dtype(DType::F64)?.to_vec1::<f64>()?,
    }))
}

fn kl_case(rng: &mut impl rand::Rng) -> BoxResult<Value> {
    let s = 10;
    let lambda = Array1::from_shape_fn(s, |_| rng.random_range(0.5..2.0));
    let m_u = Array2::from_shape_fn((s, s), |_| StandardNormal.sample(rng));
    let factors: Vec<Array2<f64>> = (0..s)
        .map(|_| {
            Array2::from_shape_fn((s, s), |(i, j)| {
                let z: f64 = StandardNormal.sample(rng);
                match i.cmp(&j) {
                    std::cmp::Ordering::Greater => z,
                    std::cmp::Ordering::Equal => (0.5 * z).exp(),
                    std::cmp::Ordering::Less => 0.0,
                }
            })
        })
        .collect();
    let kl = kl_to_diag_prior(m_u.view(), &factors, lambda.view())?;
    Ok(json!({
        "lambda": lambda.to_vec(),
        "m_u": mat(&m_u),
        "s_chol": factors.iter().map(mat).collect::<Vec<_>>(),
        "kl": kl,
    }))
}

fn ksvd_case(rng: &mut impl rand::Rng) -> BoxResult<Value> {
    let (n, p, s) = (24, 8, 5);
    let phi_q = Array2::from_shape_fn((n, p), |_| rng.random_range(-1.0..1.0));
    let phi_k = Array2::from_shape_fn((n, p), |_| rng.random_range(-1.0..1.0));
    let ksvd = KernelSvd::from_features(phi_q.view(), phi_k.view(), s)?;
    Ok(json!({
        "phi_q": mat(&phi_q),
        "phi_k": mat(&phi_k),
        "s": s,
        "lambda": ksvd.lambda.to_vec(),
        "h_e": mat(&ksvd.h_e),
        "h_r": mat(&ksvd.h_r),
    }))
}

fn softmax_rows(logits: &Array2<f64>) -> Array2<f64> {
    let mut p = logits.clone();
    for mut row in p.rows_mut() {
        let m = row.fold(f64::NEG_INFINITY, |a, &b| a.max(b));
        row.mapv_inplace(|v| (v - m).exp());
        let z = row.sum();
        row.mapv_inplace(|v| v / z);
    }
    p
}

fn metrics_case(rng: &mut impl rand::Rng) -> BoxResult<Value> {
    let (n, k, n_ood) = (360, 10, 300);
    let labels: Vec<usize> = (0..n).map(|_| rng.random_range(0..k)).collect();
    // Informative but imperfect logits: the label's logit raised by 2.
    let logits = Array2::from_shape_fn((n, k), |(i, j)| {
        let z: f64 = StandardNormal.sample(rng);
        1.5 * z + if j == labels[i] { 2.0 } else { 0.0 }
    });
    let ood_logits = Array2::from_shape_fn((n_ood, k), |_| {
        let z: f64 = StandardNormal.sample(rng);
        1.5 * z
    });
    let (probs, ood_probs) = (softmax_rows(&logits), softmax_rows(&ood_logits));
    let m = evaluate::metrics(probs.view(), &labels)?;
    let o = evaluate::ood(probs.view(), ood_probs.view())?;
    Ok(json!({
        "probs": mat(&probs),
        "labels": labels,
        "ood_probs": mat(&ood_probs),
        "ours": {
            "accuracy": m.accuracy, "nll": m.nll, "ece": m.ece, "brier": m.brier,
            "aurc": m.aurc, "e_aurc": m.e_aurc,
            "auroc": o.auroc, "aupr": o.aupr, "fpr95": o.fpr95,
        },
    }))
}

fn cpu() -> f64 {
    mlcore::timing::thread_cpu_seconds().unwrap_or(f64::NAN)
}

fn head_case(n: usize, rng: &mut WorkspaceRng) -> BoxResult<Value> {
    let (p, dev) = (32, Device::Cpu);
    let cfg = KepConfig {
        s: 10,
        rank_multi: 6,
        ..KepConfig::default()
    };
    let mut params = ParamSet::new();
    let layer = KepSvgpAttention::new(&mut params, "k", (p, 1, n), cfg, DType::F64, rng, &dev)?;
    let x = Tensor::randn(0.0f64, 1.0, (1, n, p), &dev)?;
    let out = layer.forward(&x, None::<&mut WorkspaceRng>)?;
    // Repeats per timing sample: about 20 ms of CPU each.
    let t0 = cpu();
    layer.forward(&x, None::<&mut WorkspaceRng>)?;
    let one = (cpu() - t0).max(1e-6);
    let reps = ((0.02 / one).ceil() as usize).clamp(1, 10_000);
    let mut samples = Vec::with_capacity(5);
    for _ in 0..5 {
        let t = cpu();
        for _ in 0..reps {
            std::hint::black_box(layer.forward(&x, None::<&mut WorkspaceRng>)?);
        }
        samples.push((cpu() - t) / reps as f64);
    }
    samples.sort_by(f64::total_cmp);
    let get = |name: &str| -> BoxResult<Value> {
        flat(
            params
                .get(&format!("k.{name}"))
                .ok_or_else(|| format!("parameter k.{name}"))?
                .as_tensor(),
        )
    };
    Ok(json!({
        "n": n, "p": p, "s": cfg.s, "rank_multi": cfg.rank_multi,
        "landmarks": svgp_ksvd::ksvd::landmark_indices(n, cfg.s * cfg.rank_multi)?,
        "params": {
            "qk": get("qk")?, "we": get("we")?, "wr": get("wr")?,
            "log_lambda_sqrt_inv": get("log_lambda_sqrt_inv")?,
            "m_u": get("gp0.m_u")?, "s_lower": get("gp0.s_lower")?,
            "log_s_diag": get("gp0.log_s_diag")?,
            "final_w": get("final.w")?, "final_b": get("final.b")?,
        },
        "x": flat(&x)?,
        "out": flat(&out.out)?,
        "variance": flat(&out.variance)?,
        "kl": out.kl.to_scalar::<f64>()?,
        "j": out.j.to_scalar::<f64>()?,
        "cpu_seconds_median": samples[2],
        "cpu_seconds_samples": samples,
        "reps": reps,
    }))
}

fn main() -> BoxResult<()> {
    let args: Vec<String> = std::env::args().collect();
    let path = match args.iter().position(|a| a == "--export") {
        Some(i) => args.get(i + 1).ok_or("--export needs a file")?.clone(),
        None => return Err("usage: svgp_ksvd_compare_case --export FILE".into()),
    };
    let mut rng = mlcore::sampling::seeded(24);
    let heads = [64usize, 256, 1024]
        .iter()
        .map(|&n| head_case(n, &mut rng))
        .collect::<BoxResult<Vec<_>>>()?;
    for h in &heads {
        println!(
            "head N = {:4}: median CPU {:.1} µs per call",
            h["n"],
            h["cpu_seconds_median"].as_f64().unwrap_or(f64::NAN) * 1e6
        );
    }
    let doc = json!({
        "kl": kl_case(&mut rng)?,
        "ksvd": ksvd_case(&mut rng)?,
        "metrics": metrics_case(&mut rng)?,
        "heads": heads,
    });
    std::fs::write(&path, serde_json::to_string(&doc)?)?;
    println!("wrote {path}");
    Ok(())
}
