//! Steerable kernel bases on k×k pixel grids: the exact
//! [`WignerEckartBasis`] and the λ-relaxed [`RelaxedBasis`].
//!
//! A kernel `k: ℝ² → ℝ^{d_out×d_in}` is expanded per ring r (Gaussian
//! profile `exp(−(|x| − r)²/2σ²)`), base-space harmonic j
//! (`Y_j(x) = [cos jφ, sin jφ]`, `Y_0 = 1`) and pair of irrep blocks
//! (ψ_o of the output field, ψ_i of the input field):
//! `k(x)[a, b] = Σ R_r(|x|) Σ_t Y_j(x)_t W[t, a, b]`. The action
//! `(h⋆k)(x) = ρ_out(h) k(h⁻¹x) ρ_in(h)ᵀ` acts on `vec W` through
//! `T(h) = B_j(h) ⊗ ψ_o(h) ⊗ ψ_i(h)` ([`Planar::base_harmonic_matrix`]).
//! With `T = Q (⊕ ψ) Qᵀ` ([`crate::decompose::decompose`]):
//! - equivariant kernels (`h⋆k = k` ∀h) are the trivial-ψ columns of Q
//!   (the Wigner–Eckart basis);
//! - the relaxed kernel `k_λ = ∫ λ(h) (h⋆k) dh` acts on W by
//!   `M = ∫ λ T dh = Q blockdiag(λ̂(ψ)) Qᵀ`, so the relaxed basis is the
//!   columns of `c = Q · blockdiag_{m(ψ) ≤ L_out} λ̂(ψ)` (the paper's
//!   c_{jJ}; here per triple (j, ψ_o, ψ_i), which spans the same space as
//!   the paper's two-stage j ⊗ J with J ∈ ψ_o ⊗ ψ_i).
//!
//! For uniform λ, λ̂(trivial) = 1 and every other λ̂ = 0, so the relaxed
//! basis is the Wigner–Eckart basis plus zero elements; for λ = δ_e every
//! λ̂ = I and it spans all kernels of the band ([`KernelBasis::unconstrained`]).
//!
//! Pixel p = row·k + col sits at `x = (col − c, row − c)`, c = (k − 1)/2.
//! Rings r = 0, 1, …, c; ring r carries harmonics j ≤ min(J, 2r) (ring 0
//! only j = 0: the harmonics vanish at the origin). Element arrays have
//! shape `(n, d_out, d_in, k·k)` in the fields' own basis (P applied).

use crate::decompose::{Decomposition, decompose, kron};
use crate::error::{Error, Result};
use crate::field::FieldType;
use crate::fourier::BandLimitedLikelihood;
use crate::group::{CompactGroup, Irrep, Planar, PlanarElement};
use ndarray::{Array1, Array2, Array3, Array4, ArrayView1, ArrayView3, Axis, s};
use std::collections::HashMap;

/// Sampling of the kernels.
#[derive(Clone, Debug, PartialEq)]
pub struct KernelParams {
    /// Kernel size k (odd).
    pub size: usize,
    /// Angular band limit J of the base harmonics.
    pub max_frequency: usize,
    /// Width σ of the Gaussian rings.
    pub sigma: f64,
}

impl KernelParams {
    /// k×k kernels with harmonics up to J and σ = 0.6.
    pub fn new(size: usize, max_frequency: usize) -> Self {
        KernelParams {
            size,
            max_frequency,
            sigma: 0.6,
        }
    }

    /// Validates the parameters.
    ///
    /// # Errors
    /// [`Error::ZeroFields`] (k = 0), [`Error::EvenKernelSize`],
    /// [`Error::InvalidParameter`] (σ not finite and > 0; k > 255).
    pub fn check(&self) -> Result<()> {
        if self.size == 0 {
            return Err(Error::ZeroFields {
                what: "kernel size",
            });
        }
        if self.size.is_multiple_of(2) {
            return Err(Error::EvenKernelSize { size: self.size });
        }
        if self.size > 255 {
            return Err(Error::InvalidParameter {
                name: "kernel size",
                value: self.size as f64,
                expected: "odd, at most 255",
            });
        }
        if self.max_frequency > 64 {
            return Err(Error::InvalidParameter {
                name: "max_frequency",
                value: self.max_frequency as f64,
                expected: "at most 64",
            });
        }
        if !(self.sigma.is_finite() && self.sigma > 0.0) {
            return Err(Error::InvalidParameter {
                name: "sigma",
                value: self.sigma,
                expected: "finite and > 0",
            });
        }
        Ok(())
    }

    fn centre(&self) -> f64 {
        (self.size as f64 - 1.0) / 2.0
    }

    /// Coordinates of pixel p.
    pub fn coord(&self, p: usize) -> [f64; 2] {
        let c = self.centre();
        [(p % self.size) as f64 - c, (p / self.size) as f64 - c]
    }

    /// The (ring, j) pairs of the expansion, in order.
    pub fn ring_harmonics(&self) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        for r in 0..=(self.size - 1) / 2 {
            for j in 0..=self.max_frequency.min(2 * r) {
                out.push((r, j));
            }
        }
        out
    }

    /// `R_r(|x|) · Y_j(x)` (length 1 or 2).
    pub fn radial_harmonic(&self, r: usize, j: usize, x: [f64; 2]) -> Vec<f64> {
        let rho = x[0].hypot(x[1]);
        let rad = (-(rho - r as f64).powi(2) / (2.0 * self.sigma * self.sigma)).exp();
        if j == 0 {
            return vec![rad];
        }
        if rho < 1e-12 {
            return vec![0.0, 0.0];
        }
        let phi = x[1].atan2(x[0]);
        let (s, c) = (j as f64 * phi).sin_cos();
        vec![rad * c, rad * s]
    }
}

/// Where a basis element comes from.
#[derive(Clone, Debug, PartialEq)]
pub struct ElementLabel {
    /// Ring radius r.
    pub ring: usize,
    /// Base harmonic j.
    pub j: usize,
    /// Output irrep block.
    pub out_block: usize,
    /// Input irrep block.
    pub in_block: usize,
    /// Index of the (ring, j, out_block, in_block) slot in canonical order.
    pub slot: usize,
    /// The irrep ψ of `T = B_j ⊗ ψ_o ⊗ ψ_i` the element belongs to.
    pub psi: Irrep,
    /// The column of Q (the element is `Q·λ̂(ψ)` column `column − offset`).
    pub column: usize,
}

/// A set of kernel basis elements for one (input, output) field pair.
#[derive(Clone, Debug)]
pub struct KernelBasis {
    group: Planar,
    input: FieldType,
    output: FieldType,
    params: KernelParams,
    labels: Vec<ElementLabel>,
    elements: Array4<f64>,
    slots: Vec<(usize, usize, usize, usize)>,
    decompositions: HashMap<(usize, Irrep, Irrep), Decomposition>,
}

type Select<'a> = dyn Fn(&Decomposition, usize) -> Result<Option<Array2<f64>>> + 'a;

fn check_pair(input: &FieldType, output: &FieldType) -> Result<Planar> {
    if input.group() != output.group() {
        return Err(Error::GroupMismatch {
            left: input.group().name(),
            right: output.group().name(),
        });
    }
    Ok(input.group())
}

/// The slots (ring, j, out block, in block) in canonical order.
fn slots_of(
    params: &KernelParams,
    input: &FieldType,
    output: &FieldType,
) -> Vec<(usize, usize, usize, usize)> {
    let mut out = Vec::new();
    for (r, j) in params.ring_harmonics() {
        for bo in 0..output.irreps().len() {
            for bi in 0..input.irreps().len() {
                out.push((r, j, bo, bi));
            }
        }
    }
    out
}

fn decomposition_for(group: Planar, j: usize, po: Irrep, pi: Irrep) -> Result<Decomposition> {
    let d = (if j == 0 { 1 } else { 2 }) * group.irrep_dim(po)? * group.irrep_dim(pi)?;
    decompose(
        &group,
        d,
        |g| {
            Ok(kron(
                &kron(
                    &group.base_harmonic_matrix(j, g),
                    &group.irrep_matrix(po, g)?,
                ),
                &group.irrep_matrix(pi, g)?,
            ))
        },
        j + po.m + pi.m,
    )
}

impl KernelBasis {
    fn build(
        input: &FieldType,
        output: &FieldType,
        params: &KernelParams,
        select: &Select<'_>,
    ) -> Result<Self> {
        params.check()?;
        let group = check_pair(input, output)?;
        let slots = slots_of(params, input, output);
        let mut decompositions = HashMap::new();
        let (d_out, d_in) = (output.dim(), input.dim());
        let pixels = params.size * params.size;
        let mut labels = Vec::new();
        let mut columns: Vec<Array1<f64>> = Vec::new();
        for (slot, &(r, j, bo, bi)) in slots.iter().enumerate() {
            let (po, pi) = (output.irreps()[bo], input.irreps()[bi]);
            let key = (j, po, pi);
            if let std::collections::hash_map::Entry::Vacant(v) = decompositions.entry(key) {
                v.insert(decomposition_for(group, j, po, pi)?);
            }
            let dec = &decompositions[&key];
            for (bidx, block) in dec.blocks.iter().enumerate() {
                if let Some(cols) = select(dec, bidx)? {
                    for c in 0..cols.ncols() {
                        labels.push(ElementLabel {
                            ring: r,
                            j,
                            out_block: bo,
                            in_block: bi,
                            slot,
                            psi: block.irrep,
                            column: block.offset + c,
                        });
                        columns.push(cols.column(c).to_owned());
                    }
                }
            }
        }
        let n = labels.len();
        mlcore::check::alloc_len(&[n, d_out, d_in, pixels], 8, "kernel basis")?;
        let mut elements = Array4::zeros((n, d_out, d_in, pixels));
        let harmonics: Vec<Vec<Vec<f64>>> = params
            .ring_harmonics()
            .iter()
            .map(|&(r, j)| {
                (0..pixels)
                    .map(|p| params.radial_harmonic(r, j, params.coord(p)))
                    .collect()
            })
            .collect();
        let rh_index: HashMap<(usize, usize), usize> = params
            .ring_harmonics()
            .into_iter()
            .enumerate()
            .map(|(i, k)| (k, i))
            .collect();
        for (e, (label, col)) in labels.iter().zip(&columns).enumerate() {
            let (po, pi) = (
                output.irreps()[label.out_block],
                input.irreps()[label.in_block],
            );
            let (dop, dip) = (group.irrep_dim(po)?, group.irrep_dim(pi)?);
            let (oo, oi) = (
                output.offsets()[label.out_block],
                input.offsets()[label.in_block],
            );
            let h = &harmonics[rh_index[&(label.ring, label.j)]];
            let mut el = elements.index_axis_mut(Axis(0), e);
            for (p, y) in h.iter().enumerate() {
                for (t, yt) in y.iter().enumerate() {
                    if *yt == 0.0 {
                        continue;
                    }
                    for a in 0..dop {
                        for b in 0..dip {
                            el[[oo + a, oi + b, p]] += yt * col[(t * dop + a) * dip + b];
                        }
                    }
                }
            }
        }
        if output.change_of_basis().is_some() || input.change_of_basis().is_some() {
            let eye = |d: usize| Array2::<f64>::eye(d);
            let po = output
                .change_of_basis()
                .cloned()
                .unwrap_or_else(|| eye(d_out));
            let pi = input
                .change_of_basis()
                .cloned()
                .unwrap_or_else(|| eye(d_in));
            for mut el in elements.outer_iter_mut() {
                for p in 0..pixels {
                    let m = el.slice(s![.., .., p]).to_owned();
                    el.slice_mut(s![.., .., p]).assign(&po.dot(&m).dot(&pi.t()));
                }
            }
        }
        Ok(KernelBasis {
            group,
            input: input.clone(),
            output: output.clone(),
            params: params.clone(),
            labels,
            elements,
            slots,
            decompositions,
        })
    }

    /// Every kernel of the band: all columns of every Q (the relaxed basis of
    /// λ = δ_e, λ̂(ψ) = I). Used by [`crate::diagnostics::equivariance_spectrum`].
    ///
    /// # Errors
    /// As [`WignerEckartBasis::new`].
    pub fn unconstrained(
        input: &FieldType,
        output: &FieldType,
        params: &KernelParams,
    ) -> Result<Self> {
        Self::build(input, output, params, &|dec, b| {
            Ok(Some(dec.columns(&dec.blocks[b]).to_owned()))
        })
    }

    /// Number of basis elements n.
    pub fn len(&self) -> usize {
        self.labels.len()
    }

    /// Whether there are no elements (e.g. no equivariant kernel exists).
    pub fn is_empty(&self) -> bool {
        self.labels.is_empty()
    }

    /// The elements, shape `(n, d_out, d_in, k·k)`.
    pub fn elements(&self) -> &Array4<f64> {
        &self.elements
    }

    /// Where each element comes from.
    pub fn labels(&self) -> &[ElementLabel] {
        &self.labels
    }

    /// The group.
    pub fn group(&self) -> Planar {
        self.group
    }

    /// Input field type.
    pub fn input(&self) -> &FieldType {
        &self.input
    }

    /// Output field type.
    pub fn output(&self) -> &FieldType {
        &self.output
    }

    /// Kernel parameters.
    pub fn params(&self) -> &KernelParams {
        &self.params
    }

    /// The kernel `Σ_e w_e · element_e`, shape `(d_out, d_in, k·k)`. O(n·d_out·d_in·k²).
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] (w length), [`Error::NonFinite`].
    pub fn kernel(&self, weights: ArrayView1<'_, f64>) -> Result<Array3<f64>> {
        if weights.len() != self.len() {
            return Err(Error::ShapeMismatch {
                what: "basis weights",
                expected: self.len().to_string(),
                got: weights.len().to_string(),
            });
        }
        crate::error::finite(weights.iter().copied(), "basis weights")?;
        let (_, d_out, d_in, pixels) = self.elements.dim();
        let flat = self
            .elements
            .view()
            .into_shape_with_order((self.len(), d_out * d_in * pixels))
            .map_err(|_| Error::ZeroFields { what: "basis" })?;
        let k = weights.dot(&flat);
        k.into_shape_with_order((d_out, d_in, pixels))
            .map_err(|_| Error::ZeroFields { what: "basis" })
    }

    /// A layer's full kernel from weights `(c_out, c_in, n)`: shape
    /// `(c_out·d_out, c_in·d_in, k, k)` (the convolution weight layout).
    /// O(c_out·c_in·n·d_out·d_in·k²).
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`], [`Error::NonFinite`], [`Error::ZeroFields`]
    /// (zero fields), allocation limits.
    pub fn expand_layer(&self, weights: ArrayView3<'_, f64>) -> Result<Array4<f64>> {
        let (co, ci, n) = weights.dim();
        if co == 0 || ci == 0 {
            return Err(Error::ZeroFields { what: "layer" });
        }
        if n != self.len() {
            return Err(Error::ShapeMismatch {
                what: "layer weights",
                expected: format!("[c_out, c_in, {}]", self.len()),
                got: format!("{:?}", weights.dim()),
            });
        }
        crate::error::finite(weights.iter().copied(), "layer weights")?;
        let (_, d_out, d_in, pixels) = self.elements.dim();
        let rows = co
            .checked_mul(d_out)
            .ok_or(Error::ZeroFields { what: "overflow" })?;
        let cols = ci
            .checked_mul(d_in)
            .ok_or(Error::ZeroFields { what: "overflow" })?;
        mlcore::check::alloc_len(&[rows, cols, pixels], 8, "layer kernel")?;
        let flat = self
            .elements
            .view()
            .into_shape_with_order((n, d_out * d_in * pixels))
            .map_err(|_| Error::ZeroFields { what: "basis" })?;
        let w2 = weights
            .to_owned()
            .into_shape_with_order((co * ci, n))
            .map_err(|_| Error::ZeroFields { what: "layer" })?;
        let all = w2.dot(&flat); // (co·ci, d_out·d_in·pixels)
        let mut out = Array4::zeros((rows, cols, self.params.size, self.params.size));
        for o in 0..co {
            for i in 0..ci {
                let blk = all.row(o * ci + i);
                for a in 0..d_out {
                    for b in 0..d_in {
                        for p in 0..pixels {
                            out[[
                                o * d_out + a,
                                i * d_in + b,
                                p / self.params.size,
                                p % self.params.size,
                            ]] = blk[(a * d_in + b) * pixels + p];
                        }
                    }
                }
            }
        }
        Ok(out)
    }
}

/// The exact steerable basis: kernels with `h⋆k = k` for every h in the
/// group (the trivial-ψ columns of each Q).
#[derive(Clone, Debug)]
pub struct WignerEckartBasis {
    basis: KernelBasis,
}

impl WignerEckartBasis {
    /// Builds the basis. O(#slots · |grid| · D²) for the (cached)
    /// decompositions plus O(n·k²·D) to sample.
    ///
    /// # Errors
    /// [`Error::GroupMismatch`] (fields on different groups),
    /// [`Error::EvenKernelSize`], [`Error::ZeroFields`],
    /// [`Error::InvalidParameter`], allocation limits.
    pub fn new(input: &FieldType, output: &FieldType, params: &KernelParams) -> Result<Self> {
        let basis = KernelBasis::build(input, output, params, &|dec, b| {
            let block = &dec.blocks[b];
            Ok((block.irrep == Irrep::TRIVIAL).then(|| dec.columns(block).to_owned()))
        })?;
        Ok(WignerEckartBasis { basis })
    }

    /// The elements.
    pub fn basis(&self) -> &KernelBasis {
        &self.basis
    }
}

/// The λ-relaxed basis `c = Q · blockdiag_{m(ψ) ≤ L_out} λ̂(ψ)` (module docs).
#[derive(Clone, Debug)]
pub struct RelaxedBasis {
    basis: KernelBasis,
}

impl RelaxedBasis {
    /// Builds the basis from the likelihood's λ̂. Cost as
    /// [`WignerEckartBasis::new`] plus O(n·D·d_ψ).
    ///
    /// # Errors
    /// As [`WignerEckartBasis::new`]; [`Error::GroupMismatch`] when the
    /// likelihood lives on another group.
    pub fn new(
        input: &FieldType,
        output: &FieldType,
        params: &KernelParams,
        likelihood: &BandLimitedLikelihood<Planar>,
    ) -> Result<Self> {
        let group = check_pair(input, output)?;
        if *likelihood.group() != group {
            return Err(Error::GroupMismatch {
                left: likelihood.group().name(),
                right: group.name(),
            });
        }
        let (_, l_out) = likelihood.band_limits();
        let basis = KernelBasis::build(input, output, params, &|dec, b| {
            let block = &dec.blocks[b];
            if block.irrep.m > l_out {
                return Ok(None);
            }
            let hat = likelihood.fourier(block.irrep)?;
            Ok(Some(dec.columns(block).dot(&hat)))
        })?;
        Ok(RelaxedBasis { basis })
    }

    /// The elements.
    pub fn basis(&self) -> &KernelBasis {
        &self.basis
    }

    /// Weights that synthesise `k_λ` from an unconstrained kernel `k` with
    /// harmonic coefficients `W` (per slot): `w_e = (Q_ψᵀ W_slot)[col]`, so
    /// that `Σ_e w_e element_e = Q blockdiag(λ̂) Qᵀ W` = `∫ λ (h⋆k) dh`. O(n·D).
    ///
    /// # Errors
    /// [`Error::GroupMismatch`] / [`Error::ShapeMismatch`] when `kernel` was
    /// made for other fields or parameters.
    pub fn weights_for(&self, kernel: &HarmonicKernel) -> Result<Array1<f64>> {
        let b = &self.basis;
        if kernel.input != b.input || kernel.output != b.output || kernel.params != b.params {
            return Err(Error::ShapeMismatch {
                what: "harmonic kernel",
                expected: "the basis' field types and kernel parameters".into(),
                got: "others".into(),
            });
        }
        let mut w = Array1::zeros(b.len());
        for (e, label) in b.labels.iter().enumerate() {
            let (r, j, bo, bi) = b.slots[label.slot];
            let _ = r;
            let key = (j, b.output.irreps()[bo], b.input.irreps()[bi]);
            let q = &b.decompositions[&key].q;
            w[e] = q.column(label.column).dot(&kernel.coefficients[label.slot]);
        }
        Ok(w)
    }
}

/// An unconstrained kernel of the band, given by its harmonic coefficients
/// `W_slot ∈ ℝ^{d_j·d_o·d_i}` (row-major (t, a, b)) per slot, evaluable at
/// any point of the plane (the input of [`crate::diagnostics::project`]).
#[derive(Clone, Debug, PartialEq)]
pub struct HarmonicKernel {
    input: FieldType,
    output: FieldType,
    params: KernelParams,
    slots: Vec<(usize, usize, usize, usize)>,
    coefficients: Vec<Array1<f64>>,
}

impl HarmonicKernel {
    /// A kernel with i.i.d. N(0, 1) coefficients.
    ///
    /// # Errors
    /// As [`WignerEckartBasis::new`].
    pub fn random(
        input: &FieldType,
        output: &FieldType,
        params: &KernelParams,
        rng: &mut impl rand::Rng,
    ) -> Result<Self> {
        use rand_distr::{Distribution, StandardNormal};
        params.check()?;
        let group = check_pair(input, output)?;
        let slots = slots_of(params, input, output);
        let mut coefficients = Vec::with_capacity(slots.len());
        for &(_, j, bo, bi) in &slots {
            let d = (if j == 0 { 1 } else { 2 })
                * group.irrep_dim(output.irreps()[bo])?
                * group.irrep_dim(input.irreps()[bi])?;
            coefficients.push(Array1::from_shape_fn(d, |_| StandardNormal.sample(rng)));
        }
        Ok(HarmonicKernel {
            input: input.clone(),
            output: output.clone(),
            params: params.clone(),
            slots,
            coefficients,
        })
    }

    /// Output and input field types.
    pub fn fields(&self) -> (&FieldType, &FieldType) {
        (&self.output, &self.input)
    }

    /// Kernel parameters.
    pub fn params(&self) -> &KernelParams {
        &self.params
    }

    /// `k(x)`, a d_out × d_in matrix in the fields' basis. O(#slots·D + d³).
    ///
    /// # Errors
    /// [`Error::NonFinite`] for a non-finite x.
    pub fn evaluate(&self, x: [f64; 2]) -> Result<Array2<f64>> {
        crate::error::finite(x, "point")?;
        let group = self.input.group();
        let mut k = Array2::zeros((self.output.dim(), self.input.dim()));
        for (&(r, j, bo, bi), w) in self.slots.iter().zip(&self.coefficients) {
            let y = self.params.radial_harmonic(r, j, x);
            let dop = group.irrep_dim(self.output.irreps()[bo])?;
            let dip = group.irrep_dim(self.input.irreps()[bi])?;
            let (oo, oi) = (self.output.offsets()[bo], self.input.offsets()[bi]);
            for (t, yt) in y.iter().enumerate() {
                for a in 0..dop {
                    for b in 0..dip {
                        k[[oo + a, oi + b]] += yt * w[(t * dop + a) * dip + b];
                    }
                }
            }
        }
        if let Some(p) = self.output.change_of_basis() {
            k = p.dot(&k);
        }
        if let Some(p) = self.input.change_of_basis() {
            k = k.dot(&p.t());
        }
        Ok(k)
    }

    /// The kernel sampled on the pixel grid, shape `(d_out, d_in, k·k)`.
    ///
    /// # Errors
    /// None in practice (as [`HarmonicKernel::evaluate`]).
    pub fn sample(&self) -> Result<Array3<f64>> {
        let pixels = self.params.size * self.params.size;
        let mut out = Array3::zeros((self.output.dim(), self.input.dim(), pixels));
        for p in 0..pixels {
            out.slice_mut(s![.., .., p])
                .assign(&self.evaluate(self.params.coord(p))?);
        }
        Ok(out)
    }
}

/// `(h⋆k)` for a kernel sampled on the pixel grid, for h a symmetry of the
/// grid (rotations by multiples of 90°, optionally with the flip):
/// `(h⋆k)(x_p) = ρ_out(h) k(h⁻¹ x_p) ρ_in(h)ᵀ`. O(k²·d³).
///
/// # Errors
/// [`Error::NotAGridSymmetry`], [`Error::InvalidElement`] (h not in the
/// group), [`Error::ShapeMismatch`], [`Error::EvenKernelSize`].
pub fn act_on_sampled(
    kernel: ArrayView3<'_, f64>,
    input: &FieldType,
    output: &FieldType,
    h: &PlanarElement,
) -> Result<Array3<f64>> {
    let group = check_pair(input, output)?;
    group.check_element(h)?;
    let quarter = h.angle / std::f64::consts::FRAC_PI_2;
    if (quarter - quarter.round()).abs() > 1e-9 {
        return Err(Error::NotAGridSymmetry { angle: h.angle });
    }
    let (d_out, d_in, pixels) = kernel.dim();
    let size = (pixels as f64).sqrt().round() as usize;
    if d_out != output.dim() || d_in != input.dim() || size * size != pixels || pixels == 0 {
        return Err(Error::ShapeMismatch {
            what: "sampled kernel",
            expected: format!("[{}, {}, k·k]", output.dim(), input.dim()),
            got: format!("{:?}", kernel.dim()),
        });
    }
    if size.is_multiple_of(2) {
        return Err(Error::EvenKernelSize { size });
    }
    let params = KernelParams::new(size, 0);
    let c = params.centre();
    let hinv = group.inverse(h);
    let ro = output.representation(h)?;
    let ri = input.representation(h)?;
    let mut out = Array3::zeros((d_out, d_in, pixels));
    for p in 0..pixels {
        let y = hinv.act(params.coord(p));
        let col = (y[0] + c).round() as usize;
        let row = (y[1] + c).round() as usize;
        let q = row * size + col;
        let kq = kernel.slice(s![.., .., q]);
        out.slice_mut(s![.., .., p])
            .assign(&ro.dot(&kq).dot(&ri.t()));
    }
    Ok(out)
}
