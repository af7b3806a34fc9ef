//! Shared helpers of the integration tests.
#![allow(dead_code)]

use nalgebra::Point3;
use ndarray::Array2;
use rand::{Rng, RngExt};

/// Cube corners (±h)³.
pub fn cube(h: f64) -> Array2<f64> {
    Array2::from_shape_fn((8, 3), |(i, j)| if i >> j & 1 == 1 { h } else { -h })
}

/// The 500-point asymmetric shape of the spec: 500 seeded random directions
/// (uniform on the sphere) mapped onto a tri-axial ellipsoid (semi-axes 8,
/// 4, 2 cm) with a bump towards the generic direction (1, 0.5, 0.3)/‖·‖,
/// which breaks every symmetry. (A Fibonacci lattice is avoided on purpose:
/// its spiral is nearly invariant under a rotation by the golden angle,
/// which gives ICP spurious minima.)
pub fn asymmetric_shape() -> Array2<f64> {
    use rand::SeedableRng;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(500);
    let n = 500;
    let a = {
        let v = [1.0f64, 0.5, 0.3];
        let l = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
        [v[0] / l, v[1] / l, v[2] / l]
    };
    let mut out = Array2::zeros((n, 3));
    for i in 0..n {
        let u = vint_pose::se3::random_unit_vector(&mut rng);
        let dot = u[0] * a[0] + u[1] * a[1] + u[2] * a[2];
        let bump = 1.0 + 0.6 * dot.max(0.0).powi(3);
        let axes = [0.08, 0.04, 0.02];
        for j in 0..3 {
            out[[i, j]] = axes[j] * u[j] * bump;
        }
    }
    out
}

/// Rows of an `n × 3` array as points.
pub fn to_pts(a: &Array2<f64>) -> Vec<Point3<f64>> {
    a.rows()
        .into_iter()
        .map(|r| Point3::new(r[0], r[1], r[2]))
        .collect()
}

/// `n` points uniform in the cube [−scale, scale]³.
pub fn random_cloud(n: usize, scale: f64, rng: &mut impl Rng) -> Array2<f64> {
    Array2::from_shape_fn((n, 3), |_| scale * (2.0 * rng.random::<f64>() - 1.0))
}
