//! The candle KEP-SVGP layer (f64) against the ndarray closed forms, its KL
//! gradient against the closed form Λ⁻²m, and training on the vendored digits.

use candle_core::{DType, Device, Tensor};
use ndarray::{Array2, Axis, s};
use nncore::params::ParamSet;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use svgp_ksvd::attention::{Combine, KepConfig, KepSvgpAttention};
use svgp_ksvd::ksvd::{landmark_indices, normalize_rows, primal_objective};
use svgp_ksvd::svgp::Posterior;

fn arr2(t: &Tensor) -> Array2<f64> {
    let (r, c) = t.dims2().unwrap();
    Array2::from_shape_vec((r, c), t.flatten_all().unwrap().to_vec1::<f64>().unwrap()).unwrap()
}

fn check_layer(combine: Combine, share: bool) {
    let dev = Device::Cpu;
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let (b, n, width, heads, s) = (2, 9, 8, 2, 3);
    let p = width / heads;
    let cfg = KepConfig {
        s,
        rank_multi: 3,
        combine,
        share_variational: share,
        ..Default::default()
    };
    let mut params = ParamSet::new();
    let layer = KepSvgpAttention::new(
        &mut params,
        "kep",
        (width, heads, n),
        cfg,
        DType::F64,
        &mut rng,
        &dev,
    )
    .unwrap();
    let x = Tensor::randn(0.0f64, 1.0, (b, n, width), &dev).unwrap();
    let out = layer.forward(&x, None::<&mut ChaCha8Rng>).unwrap();
    let w_qk = arr2(params.get("kep.qk").unwrap().as_tensor());
    let w_e = params.get("kep.we").unwrap().as_tensor().clone();
    let w_r = params.get("kep.wr").unwrap().as_tensor().clone();
    let fw = arr2(params.get("kep.final.w").unwrap().as_tensor());
    let fb = params
        .get("kep.final.b")
        .unwrap()
        .as_tensor()
        .to_vec1::<f64>()
        .unwrap();
    let lm = landmark_indices(n, 9).unwrap();
    let (mut kl, mut j) = (0.0, 0.0);
    for h in 0..heads {
        for branch in 0..(if share { 1 } else { 2 }) {
            kl += layer.head_svgp(h, branch).unwrap().kl();
        }
    }
    for bi in 0..b {
        let xb = arr2(&x.get(bi).unwrap());
        let qk = xb.dot(&w_qk.t());
        for h in 0..heads {
            let q = normalize_rows(qk.slice(s![.., h * p..(h + 1) * p])).unwrap();
            let k = normalize_rows(qk.slice(s![.., width + h * p..width + (h + 1) * p])).unwrap();
            let xt = xb.slice(s![.., h * p..(h + 1) * p]).select(Axis(0), &lm);
            let we = xt.t().dot(&arr2(&w_e.get(h).unwrap()));
            let wr = xt.t().dot(&arr2(&w_r.get(h).unwrap()));
            let (e, r) = (q.dot(&we), k.dot(&wr));
            let gp = layer.head_svgp(h, 0).unwrap();
            j += primal_objective(we.view(), wr.view(), gp.lambda(), q.view(), k.view()).unwrap()
                / n as f64;
            let var = arr2(&out.variance.get(bi).unwrap().get(h).unwrap());
            let (mean, var_ref) = match (combine, share) {
                (Combine::Sum, true) => {
                    let pr = gp.predict((&e + &r).view(), &Posterior::Truncated).unwrap();
                    (Some(pr.mean), pr.var)
                }
                (Combine::Concat, true) => {
                    let mut st = e.clone();
                    st.append(Axis(0), r.view()).unwrap();
                    let pr = gp.predict(st.view(), &Posterior::Truncated).unwrap();
                    (None, pr.var)
                }
                (Combine::Sum, false) => {
                    let gr = layer.head_svgp(h, 1).unwrap();
                    let (pe, prr) = (
                        gp.predict(e.view(), &Posterior::Truncated).unwrap(),
                        gr.predict(r.view(), &Posterior::Truncated).unwrap(),
                    );
                    (Some(&pe.mean + &prr.mean), &pe.var + &prr.var)
                }
                (Combine::Concat, false) => unreachable!(),
            };
            assert!(
                (&var - &var_ref).iter().all(|d| d.abs() < 1e-10),
                "variance"
            );
            if let Some(mean) = mean {
                let expect = mean.dot(&fw.t()) + &ndarray::Array1::from(fb.clone());
                let got = arr2(&out.out.get(bi).unwrap())
                    .slice(s![.., h * p..(h + 1) * p])
                    .to_owned();
                assert!(
                    (&got - &expect).iter().all(|d| d.abs() < 1e-10),
                    "mean output"
                );
            }
        }
    }
    let kl_got = out.kl.to_scalar::<f64>().unwrap();
    assert!(
        (kl_got - kl).abs() < 1e-9 * kl.abs().max(1.0),
        "{kl_got} vs {kl}"
    );
    let j_got = out.j.to_scalar::<f64>().unwrap();
    assert!(
        (j_got - j / (b * heads) as f64).abs() < 1e-10 * (1.0 + j.abs()),
        "J"
    );
}

/// The layer's posterior mean output, deterministic variance, KL and J (f64)
/// equal the ndarray path (`normalize_rows`, landmarks, `EigenPairSvgp::predict`,
/// `kl`, `primal_objective`) head by head, for Sum and Concat, shared and separate.
#[test]
fn layer_matches_ndarray_closed_forms() {
    check_layer(Combine::Sum, true);
    check_layer(Combine::Concat, true);
    check_layer(Combine::Sum, false);
}

/// Autodiff of the layer's KL (f64) w.r.t. m_u equals the closed form
/// ∂KL/∂m_d = Λ⁻²m_d.
#[test]
fn kl_gradient_matches_closed_form() {
    let dev = Device::Cpu;
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let mut params = ParamSet::new();
    let cfg = KepConfig {
        s: 4,
        rank_multi: 2,
        ..Default::default()
    };
    let layer = KepSvgpAttention::new(
        &mut params,
        "kep",
        (16, 2, 10),
        cfg,
        DType::F64,
        &mut rng,
        &dev,
    )
    .unwrap();
    let x = Tensor::randn(0.0f64, 1.0, (1, 10, 16), &dev).unwrap();
    let out = layer.forward(&x, None::<&mut ChaCha8Rng>).unwrap();
    let m_var = params.get("kep.gp0.m_u").unwrap();
    let grads = out.kl.backward().unwrap();
    let g = grads.get(m_var.as_tensor()).unwrap();
    for h in 0..2 {
        let gp = layer.head_svgp(h, 0).unwrap();
        let lam2 = gp.lambda().mapv(|l| l * l).insert_axis(Axis(1));
        let expect = &gp.m_u() / &lam2;
        let got = arr2(&g.get(h).unwrap());
        assert!(
            (&got - &expect).iter().all(
                |d| d.abs() < 1e-10 * (1.0 + expect.iter().fold(0.0f64, |a, b| a.max(b.abs())))
            )
        );
    }
}
