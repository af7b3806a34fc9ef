//! The Gaussian kernel shared by SSIM's window and the blur.

/// The normalised Gaussian kernel of scipy's `gaussian_filter1d`:
/// wₖ ∝ exp(−k²/(2σ²)) for k = −r..=r, Σ wₖ = 1.
pub(crate) fn gaussian_kernel(sigma: f64, radius: usize) -> Vec<f64> {
    let r = radius as f64;
    let mut w: Vec<f64> = (0..=2 * radius)
        .map(|k| {
            // (x/σ)² rather than x²/σ²: no 0/0 when σ² underflows.
            let z = (k as f64 - r) / sigma;
            (-0.5 * z * z).exp()
        })
        .collect();
    let s: f64 = w.iter().sum();
    w.iter_mut().for_each(|v| *v /= s);
    w
}
