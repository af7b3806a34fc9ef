//! Triangle meshes: validation, area-weighted surface sampling with face
//! normals, and a few procedural shapes.

use crate::error::{self, Error, Result};
use crate::points::{from_points, from_vectors, to_points};
use nalgebra::{Point3, Vector3};
use ndarray::{Array2, ArrayView2};
use rand::{Rng, RngExt};

/// Surface samples and their unit normals.
type Samples = (Vec<Point3<f64>>, Vec<Vector3<f64>>);

/// A triangle mesh: vertices and faces (vertex index triples).
#[derive(Debug, Clone, PartialEq)]
pub struct Mesh {
    vertices: Vec<Point3<f64>>,
    faces: Vec<[usize; 3]>,
}

impl Mesh {
    /// A mesh from `n × 3` vertices and faces.
    ///
    /// # Errors
    /// Point validation errors; [`Error::EmptyCloud`] for no faces;
    /// [`Error::IndexOutOfRange`] for a face index `≥ n`.
    pub fn new(vertices: ArrayView2<'_, f64>, faces: &[[usize; 3]]) -> Result<Self> {
        let v = to_points(vertices, "mesh vertices")?;
        Self::from_parts(v, faces.to_vec())
    }

    pub(crate) fn from_parts(vertices: Vec<Point3<f64>>, faces: Vec<[usize; 3]>) -> Result<Self> {
        if vertices.is_empty() {
            return Err(Error::EmptyCloud {
                what: "mesh vertices",
            });
        }
        if faces.is_empty() {
            return Err(Error::EmptyCloud { what: "mesh faces" });
        }
        for f in &faces {
            for &i in f {
                if i >= vertices.len() {
                    return Err(Error::IndexOutOfRange {
                        what: "face vertex",
                        index: i,
                        len: vertices.len(),
                    });
                }
            }
        }
        Ok(Mesh { vertices, faces })
    }

    /// The vertices as `n × 3`.
    pub fn vertices(&self) -> Array2<f64> {
        from_points(&self.vertices)
    }

    /// The faces.
    pub fn faces(&self) -> &[[usize; 3]] {
        &self.faces
    }

    pub(crate) fn points(&self) -> &[Point3<f64>] {
        &self.vertices
    }

    /// Total surface area `Σ ½‖(b − a) × (c − a)‖`. O(#faces).
    pub fn area(&self) -> f64 {
        self.faces.iter().map(|f| self.tri_area(f)).sum()
    }

    fn tri_area(&self, f: &[usize; 3]) -> f64 {
        let [a, b, c] = f.map(|i| self.vertices[i]);
        0.5 * (b - a).cross(&(c - a)).norm()
    }

    /// The mesh with every vertex multiplied by `scale` (URDF `scale`).
    ///
    /// # Errors
    /// [`Error::BadParameter`] for a non-positive or non-finite scale.
    pub fn scaled(&self, scale: f64) -> Result<Mesh> {
        error::positive(scale, "scale")?;
        Ok(Mesh {
            vertices: self.vertices.iter().map(|p| p * scale).collect(),
            faces: self.faces.clone(),
        })
    }

    /// The mesh translated so that its bounding box is centred at the origin.
    pub fn centered(&self) -> Mesh {
        let (lo, hi) = self.bounds();
        let c = (lo.coords + hi.coords) / 2.0;
        Mesh {
            vertices: self.vertices.iter().map(|p| p - c).collect(),
            faces: self.faces.clone(),
        }
    }

    /// Axis-aligned bounding box `(min, max)`.
    pub fn bounds(&self) -> (Point3<f64>, Point3<f64>) {
        let mut lo = self.vertices[0];
        let mut hi = self.vertices[0];
        for p in &self.vertices {
            for a in 0..3 {
                lo[a] = lo[a].min(p[a]);
                hi[a] = hi[a].max(p[a]);
            }
        }
        (lo, hi)
    }

    /// `n` points sampled uniformly on the surface (face chosen with
    /// probability ∝ area, then uniform barycentric `(1 − √r₁, √r₁(1 − r₂), √r₁ r₂)`)
    /// and each point's unit face normal `(b − a) × (c − a)` normalised
    /// (oriented by the face winding). O(n log F).
    ///
    /// # Errors
    /// [`Error::BadParameter`] for `n = 0`; [`Error::DegenerateCorrespondences`]
    /// when the total area is 0; [`Error::TooLarge`].
    pub fn sample_surface(
        &self,
        n: usize,
        rng: &mut impl Rng,
    ) -> Result<(Array2<f64>, Array2<f64>)> {
        let (p, nr) = self.sample_points(n, rng)?;
        Ok((from_points(&p), from_vectors(&nr)))
    }

    pub(crate) fn sample_points(&self, n: usize, rng: &mut impl Rng) -> Result<Samples> {
        if n == 0 {
            return Err(Error::BadParameter {
                name: "n",
                value: 0.0,
                reason: "must be ≥ 1",
            });
        }
        error::alloc(n, 48, "surface samples")?;
        let mut cum = Vec::with_capacity(self.faces.len());
        let mut total = 0.0;
        for f in &self.faces {
            total += self.tri_area(f);
            cum.push(total);
        }
        if !(total > 0.0 && total.is_finite()) {
            return Err(Error::DegenerateCorrespondences {
                reason: format!("mesh surface area is {total}"),
            });
        }
        let mut pts = Vec::with_capacity(n);
        let mut nrm = Vec::with_capacity(n);
        for _ in 0..n {
            let x = rng.random::<f64>() * total;
            let k = cum.partition_point(|&c| c <= x).min(cum.len() - 1);
            let [a, b, c] = self.faces[k].map(|i| self.vertices[i]);
            let (r1, r2): (f64, f64) = (rng.random(), rng.random());
            let s = r1.sqrt();
            let p = a.coords * (1.0 - s) + b.coords * (s * (1.0 - r2)) + c.coords * (s * r2);
            let nv = (b - a).cross(&(c - a));
            let len = nv.norm();
            pts.push(Point3::from(p));
            nrm.push(if len > 0.0 { nv / len } else { Vector3::z() });
        }
        Ok((pts, nrm))
    }

    /// An axis-aligned box with half-extents `h`, 12 outward-wound triangles.
    ///
    /// # Errors
    /// [`Error::BadParameter`] for a non-positive half-extent.
    pub fn cuboid(h: [f64; 3]) -> Result<Mesh> {
        for v in h {
            error::positive(v, "half-extent")?;
        }
        let mut v = Vec::with_capacity(8);
        for i in 0..8 {
            let s = |b: usize| if i >> b & 1 == 1 { 1.0 } else { -1.0 };
            v.push(Point3::new(s(0) * h[0], s(1) * h[1], s(2) * h[2]));
        }
        let f = vec![
            [0, 2, 1],
            [1, 2, 3],
            [4, 5, 6],
            [5, 7, 6],
            [0, 1, 4],
            [1, 5, 4],
            [2, 6, 3],
            [3, 6, 7],
            [0, 4, 2],
            [2, 4, 6],
            [1, 3, 5],
            [3, 7, 5],
        ];
        Mesh::from_parts(v, f)
    }
}
