//! Initialisers against their defining moments and bounds, orthogonality, the
//! dropout mask, and repeatability from a seed.
//!
//! Moment checks use n = 200,000 draws; each bound is at least 6 standard
//! errors wide, so a correct sampler fails with probability < 1e-8.

use candle_core::{Device, Tensor};
use nncore::init;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

fn values(t: &Tensor) -> Vec<f64> {
    t.flatten_all()
        .unwrap()
        .to_vec1::<f32>()
        .unwrap()
        .into_iter()
        .map(f64::from)
        .collect()
}

fn mean_var(v: &[f64]) -> (f64, f64) {
    let n = v.len() as f64;
    let m = v.iter().sum::<f64>() / n;
    (
        m,
        v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (n - 1.0),
    )
}

fn rng() -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(42)
}

#[test]
fn normal_has_its_mean_and_sd() {
    let v = values(&init::normal(&[400, 500], 1.5, 0.5, &mut rng(), &Device::Cpu).unwrap());
    let (m, var) = mean_var(&v);
    // se(mean) = 0.5/√2e5 ≈ 1.1e-3; se(var) ≈ 0.25·√(2/2e5) ≈ 7.9e-4.
    assert!((m - 1.5).abs() < 7e-3, "{m}");
    assert!((var - 0.25).abs() < 5e-3, "{var}");
}

#[test]
fn uniform_stays_in_range_with_its_moments() {
    let v = values(&init::uniform(&[200_000], -2.0, 1.0, &mut rng(), &Device::Cpu).unwrap());
    assert!(v.iter().all(|&x| (-2.0..=1.0).contains(&x)));
    let (m, var) = mean_var(&v);
    // mean −0.5 (se 1.9e-3), variance 9/12 = 0.75 (se ≈ 1.4e-3).
    assert!((m + 0.5).abs() < 1.2e-2, "{m}");
    assert!((var - 0.75).abs() < 9e-3, "{var}");
}

#[test]
fn xavier_and_kaiming_scales() {
    let dev = Device::Cpu;
    let shape = [500, 400]; // fan_in 400, fan_out 500
    let a = (6.0f64 / 900.0).sqrt();
    let xu = values(&init::xavier_uniform(&shape, 1.0, &mut rng(), &dev).unwrap());
    assert!(xu.iter().all(|x| x.abs() <= a + 1e-7));
    let (_, var) = mean_var(&xu);
    assert!((var / (a * a / 3.0) - 1.0).abs() < 0.02, "{var}");
    let xn = values(&init::xavier_normal(&shape, 2.0, &mut rng(), &dev).unwrap());
    let (_, var) = mean_var(&xn);
    assert!((var / (4.0 * 2.0 / 900.0) - 1.0).abs() < 0.02, "{var}");
    let b = init::RELU_GAIN * (3.0f64 / 400.0).sqrt();
    let ku = values(&init::kaiming_uniform(&shape, init::RELU_GAIN, &mut rng(), &dev).unwrap());
    assert!(ku.iter().all(|x| x.abs() <= b + 1e-7));
    let kn = values(&init::kaiming_normal(&shape, init::RELU_GAIN, &mut rng(), &dev).unwrap());
    let (_, var) = mean_var(&kn);
    assert!((var / (2.0 / 400.0) - 1.0).abs() < 0.02, "{var}");
    // Convolution weights: fan_in = in·k₁·k₂.
    assert_eq!(init::fans(&[16, 3, 5, 5]).unwrap(), (75, 400));
}

#[test]
fn orthogonal_rows_or_columns_are_orthonormal() {
    let dev = Device::Cpu;
    for (shape, gain) in [
        (vec![30, 50], 1.0),
        (vec![50, 30], 2.0),
        (vec![8, 2, 3, 3], 1.0),
    ] {
        let t = init::orthogonal(&shape, gain, &mut rng(), &dev).unwrap();
        let m = t.flatten_from(1).unwrap();
        let (r, c) = m.dims2().unwrap();
        let gram = if r <= c {
            m.matmul(&m.t().unwrap())
        } else {
            m.t().unwrap().matmul(&m)
        }
        .unwrap()
        .to_vec2::<f32>()
        .unwrap();
        for (i, row) in gram.iter().enumerate() {
            for (j, &g) in row.iter().enumerate() {
                let want = if i == j { gain * gain } else { 0.0 };
                assert!(
                    (f64::from(g) - want).abs() < 1e-5,
                    "{shape:?} [{i},{j}] = {g}"
                );
            }
        }
    }
}

#[test]
fn dropout_mask_keeps_the_mean() {
    let v = values(&init::dropout_mask(&[200_000], 0.3, &mut rng(), &Device::Cpu).unwrap());
    let keep = 1.0 / 0.7;
    assert!(v.iter().all(|&x| x == 0.0 || (x - keep).abs() < 1e-6));
    let zeros = v.iter().filter(|&&x| x == 0.0).count() as f64 / v.len() as f64;
    // se = √(0.3·0.7/2e5) ≈ 1.0e-3.
    assert!((zeros - 0.3).abs() < 7e-3, "{zeros}");
    let (m, _) = mean_var(&v);
    assert!((m - 1.0).abs() < 0.015, "{m}");
    let ones = values(&init::dropout_mask(&[10], 0.0, &mut rng(), &Device::Cpu).unwrap());
    assert!(ones.iter().all(|&x| x == 1.0));
}

#[test]
fn same_seed_same_tensor() {
    let dev = Device::Cpu;
    let a = values(&init::kaiming_normal(&[20, 10], 1.0, &mut rng(), &dev).unwrap());
    let b = values(&init::kaiming_normal(&[20, 10], 1.0, &mut rng(), &dev).unwrap());
    let c = values(
        &init::kaiming_normal(&[20, 10], 1.0, &mut ChaCha8Rng::seed_from_u64(43), &dev).unwrap(),
    );
    assert_eq!(a, b);
    assert_ne!(a, c);
}
