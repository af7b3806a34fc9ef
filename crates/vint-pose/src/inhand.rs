//! The in-hand experiment (feature `io`): an object held against the palm
//! of the MuJoCo Shadow Hand (92 touch sensors) at random joint angles, seen
//! by a depth camera from a random direction; vision-only ICP against
//! vision + touch ICP ([`fuse_icp`]) from the same perturbed start.
//!
//! One frame ([`run_frame`]):
//! 1. joint angles `q` uniform within the MJCF ranges; forward kinematics;
//! 2. an object rotation uniform on SO(3) (Shoemake); the object is placed
//!    on the palm's front face (outward normal `n`, the palm body's −y) at a
//!    random lateral offset (±`lateral`), pressed `palm_press` into it — a soft
//!    contact; fingers at random angles may touch it or pass through it (no
//!    physics);
//! 3. a camera at a uniformly random direction and a distance in
//!    `camera_distance`, looking at the object (world z up);
//! 4. [`render_frame`]: depth with the hand's collision capsules and boxes as
//!    occluders (the forearm mesh is not rendered), the object's visible
//!    pixels (perfect segmentation), and the 92 touch sites as touch zones;
//! 5. the start `T₀` = the true pose perturbed by ≤ `max_angle_deg` about a
//!    random axis and ≤ `max_translation` (the spec's ICP bound: 15°, 2 cm);
//! 6. vision only: [`crate::register::icp`] of the visible cloud onto the model; vision + touch:
//!    [`fuse_icp`] with the contact points; both with the same parameters.
//!    With fewer than [`MIN_VISUAL_POINTS`] visible points vision-only keeps
//!    `T₀`, and vision + touch uses the contacts alone when there are ≥ 3
//!    (else `T₀`); an ICP that reports degenerate correspondences keeps `T₀`.

use crate::cloud::back_project;
use crate::error::{Error, Result};
use crate::io::meshes::parse_obj;
use crate::io::mjcf::{Model, Shape};
use crate::mesh::Mesh;
use crate::metrics::{AddS, diameter_points};
use crate::points::{from_points, from_vectors};
use crate::register::{IcpParams, IcpResult, IcpTarget, fuse_icp, icp_points};
use crate::se3::{
    Pose, perturb, random_rotation, random_unit_vector, rotation_error_deg, translation_error,
};
use crate::synth::{Primitive, SensorParams, SurfaceIndex, TouchZone, look_at, render_frame};
use mlcore::data::Dataset;
use nalgebra::{Isometry3, Point3, Translation3, Vector3};
use ndarray::{Array1, Array2};
use rand::{Rng, RngExt};

/// Fewest visible points for which vision-only ICP is attempted.
pub const MIN_VISUAL_POINTS: usize = 10;

fn data_err(e: mlcore::Error) -> Error {
    Error::Format {
        file: "<data set>".into(),
        line: 0,
        reason: e.to_string(),
    }
}

/// The Shadow Hand: its kinematic model, the bodies and parts used.
#[derive(Debug, Clone)]
pub struct ShadowHand {
    /// The MJCF model.
    pub model: Model,
    palm: usize,
    geoms: Vec<usize>,
    touch_sites: Vec<usize>,
}

impl ShadowHand {
    /// Wraps a model: the hand is the subtree of body `root`, its palm the body `palm`.
    ///
    /// # Errors
    /// [`Error::UnknownName`] for a missing body; [`Error::EmptyCloud`] when
    /// the model has no touch sensors or no primitive geoms under `root`.
    pub fn new(model: Model, root: &str, palm: &str) -> Result<Self> {
        let r = model.body_index(root)?;
        let palm = model.body_index(palm)?;
        let geoms: Vec<usize> = (0..model.geoms.len())
            .filter(|&g| {
                let p = &model.geoms[g];
                model.is_descendant(p.body, r)
                    && match p.shape {
                        Shape::Capsule {
                            radius,
                            half_length,
                        } => radius > 0.0 && half_length >= 0.0,
                        Shape::Sphere { radius } => radius > 0.0,
                        Shape::Box { half } => half.iter().all(|&h| h > 0.0),
                        _ => false,
                    }
            })
            .collect();
        if geoms.is_empty() {
            return Err(Error::EmptyCloud {
                what: "hand collision primitives",
            });
        }
        let touch_sites: Vec<usize> = model.touch_sensors.iter().map(|&(_, s)| s).collect();
        if touch_sites.is_empty() {
            return Err(Error::EmptyCloud {
                what: "touch sensors",
            });
        }
        Ok(ShadowHand {
            model,
            palm,
            geoms,
            touch_sites,
        })
    }

    /// Loads `manipulate_block_touch_sensors.xml` (and its includes) from the
    /// vendored `shadow-hand` data set; hand root `robot0:hand mount`, palm `robot0:palm`.
    ///
    /// # Errors
    /// Data-set errors (as [`Error::Format`]); MJCF errors.
    pub fn from_dataset(ds: &Dataset) -> Result<Self> {
        let read = |f: &str| ds.read_to_string(&format!("{f}.gz")).map_err(data_err);
        let top = read("manipulate_block_touch_sensors.xml")?;
        let model = Model::parse_with(&top, "manipulate_block_touch_sensors.xml", read)?;
        Self::new(model, "robot0:hand mount", "robot0:palm")
    }

    /// Number of touch sensors.
    pub fn n_touch(&self) -> usize {
        self.touch_sites.len()
    }

    /// Joint angles uniform within the model's ranges.
    pub fn random_joints(&self, rng: &mut impl Rng) -> Array1<f64> {
        Array1::from_iter(
            self.model
                .dof_ranges()
                .into_iter()
                .map(|(lo, hi)| lo + (hi - lo) * rng.random::<f64>()),
        )
    }
}

/// A prepared object: mesh, model points with normals, ICP target, ADD-S tree.
#[derive(Debug, Clone)]
pub struct ObjectModel {
    /// Its name (file stem).
    pub name: String,
    /// The mesh (metres).
    pub mesh: Mesh,
    /// Model points (area-weighted surface samples) used for ICP and ADD/ADD-S.
    pub points: Array2<f64>,
    /// The diameter (over mesh vertices; exact, the farthest pair of a mesh is a vertex pair).
    pub diameter: f64,
    target: IcpTarget,
    adds: AddS,
    surface: SurfaceIndex,
}

impl ObjectModel {
    /// Prepares `mesh`: `n_points` model points with face normals, a dense
    /// `n_surface`-sample index for contact detection.
    ///
    /// # Errors
    /// As [`Mesh::sample_surface`].
    pub fn new(
        name: &str,
        mesh: Mesh,
        n_points: usize,
        n_surface: usize,
        rng: &mut impl Rng,
    ) -> Result<Self> {
        let (p, n) = mesh.sample_points(n_points, rng)?;
        let points = from_points(&p);
        let target = IcpTarget::with_normals(points.view(), from_vectors(&n).view())?;
        let adds = AddS::from_points(&p)?;
        let surface = SurfaceIndex::new(&mesh, n_surface, rng)?;
        let diameter = diameter_points(mesh.points());
        Ok(ObjectModel {
            name: name.to_string(),
            mesh,
            points,
            diameter,
            target,
            adds,
            surface,
        })
    }

    /// ADD-S and ADD of `est` against `gt` on the model points.
    ///
    /// # Errors
    /// [`Error::NonFinite`] in a pose.
    pub fn errors(&self, gt: &Pose, est: &Pose) -> Result<(f64, f64)> {
        Ok((self.adds.error(gt, est)?, self.adds.add(gt, est)?))
    }
}

/// The vendored object meshes (`meshes` data set): every `*.obj.gz`, scaled
/// by the `scale` its URDF in the same folder gives it (1 if none), sorted by path.
///
/// # Errors
/// Data-set errors; OBJ format errors.
pub fn load_meshes(ds: &Dataset) -> Result<Vec<(String, Mesh)>> {
    let files: Vec<String> = ds.files().map(str::to_string).collect();
    let mut out = Vec::new();
    let mut objs: Vec<&String> = files.iter().filter(|f| f.ends_with(".obj.gz")).collect();
    objs.sort();
    for f in objs {
        let text = ds.read_to_string(f).map_err(data_err)?;
        let mesh = parse_obj(&text, f)?;
        let (dir, base) = match f.rsplit_once('/') {
            Some((d, b)) => (format!("{d}/"), b.trim_end_matches(".gz").to_string()),
            None => (String::new(), f.trim_end_matches(".gz").to_string()),
        };
        let mut scale = 1.0;
        for u in files.iter().filter(|u| {
            u.ends_with(".urdf.gz") && u.starts_with(&dir) && !u[dir.len()..].contains('/')
        }) {
            let t = ds.read_to_string(u).map_err(data_err)?;
            let doc = roxmltree::Document::parse(&t).map_err(|e| Error::Format {
                file: u.clone(),
                line: e.pos().row as usize,
                reason: e.to_string(),
            })?;
            let hit = doc
                .descendants()
                .find(|n| n.has_tag_name("mesh") && n.attribute("filename") == Some(base.as_str()));
            if let Some(n) = hit {
                if let Some(s) = n.attribute("scale") {
                    scale = s
                        .split_whitespace()
                        .next()
                        .and_then(|x| x.parse().ok())
                        .ok_or_else(|| Error::Format {
                            file: u.clone(),
                            line: 0,
                            reason: format!("bad scale {s:?}"),
                        })?;
                }
                break;
            }
        }
        let name = base.trim_end_matches(".obj").to_string();
        out.push((name, mesh.scaled(scale)?));
    }
    if out.is_empty() {
        return Err(Error::EmptyCloud {
            what: "object meshes",
        });
    }
    Ok(out)
}

/// Parameters of the experiment.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct InHandConfig {
    /// The camera and noise model.
    pub sensor: SensorParams,
    /// Model points per object (default 1000).
    pub model_points: usize,
    /// Surface samples for contact detection (default 20000).
    pub surface_samples: usize,
    /// Camera distance range (metres, default 0.30–0.45).
    pub camera_distance: (f64, f64),
    /// Largest start rotation error (degrees, default 15, the spec's ICP bound).
    pub max_angle_deg: f64,
    /// Largest start translation error (metres, default 0.02, the spec's ICP bound).
    pub max_translation: f64,
    /// How far the object is pressed into the palm (metres, default 0.003).
    pub palm_press: f64,
    /// Lateral offset range on the palm (± metres, default 0.015).
    pub lateral: f64,
    /// ICP parameters, shared by both methods.
    pub icp: IcpParams,
    /// How the contact points are weighted against the visual points.
    pub tactile_weight: TactileWeight,
}

impl Default for InHandConfig {
    fn default() -> Self {
        InHandConfig {
            sensor: SensorParams::default(),
            model_points: 1000,
            surface_samples: 20_000,
            camera_distance: (0.30, 0.45),
            max_angle_deg: 15.0,
            max_translation: 0.02,
            palm_press: 0.003,
            lateral: 0.015,
            icp: IcpParams {
                max_iterations: 50,
                max_correspondence_distance: 0.05,
                trim: 0.9,
                point_to_plane: false,
                tolerance: 1e-8,
            },
            tactile_weight: TactileWeight::PerPoint,
        }
    }
}

/// The weight of the contact points in [`fuse_icp`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum TactileWeight {
    /// Every point, visual or tactile, weighs the same — the maximum-likelihood
    /// weighting when both sensors have the same noise (default: depth σ = 2 mm,
    /// contact σ = 2 mm): `w_tactile = n_t / n_v`.
    PerPoint,
    /// The contacts together weigh this many times the visual points
    /// (`w_tactile` of [`fuse_icp`]).
    Total(f64),
}

/// What one frame measured.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FrameResult {
    /// Fraction of the object's pixels hidden by the hand.
    pub occlusion: f64,
    /// Visible object points.
    pub n_visual: usize,
    /// Touch sensors in contact.
    pub n_contacts: usize,
    /// ADD-S of the start.
    pub add_s_start: f64,
    /// ADD-S of vision-only ICP.
    pub add_s_vision: f64,
    /// ADD-S of vision + touch ICP.
    pub add_s_fused: f64,
    /// ADD of vision-only ICP.
    pub add_vision: f64,
    /// ADD of vision + touch ICP.
    pub add_fused: f64,
    /// Rotation error (degrees) of vision-only / vision + touch.
    pub rot_deg: (f64, f64),
    /// Translation error (metres) of vision-only / vision + touch.
    pub trans: (f64, f64),
}

fn object_pose_from(res: Result<IcpResult>, start: &Pose) -> Pose {
    match res {
        Ok(r) => r.pose.inverse(),
        Err(_) => *start,
    }
}

/// Runs one frame (module docs).
///
/// # Errors
/// Parameter errors; rendering errors.
pub fn run_frame(
    hand: &ShadowHand,
    obj: &ObjectModel,
    cfg: &InHandConfig,
    rng: &mut impl Rng,
) -> Result<FrameResult> {
    let (dmin, dmax) = cfg.camera_distance;
    if !(dmin > 0.0 && dmax >= dmin && dmax.is_finite()) {
        return Err(Error::BadParameter {
            name: "camera_distance",
            value: dmin,
            reason: "need 0 < min ≤ max < ∞",
        });
    }
    let m = &hand.model;
    let q = hand.random_joints(rng);
    let bodies = m.forward_kinematics(q.view())?;
    let palm = bodies[hand.palm];
    let n = palm.rotation * Vector3::new(0.0, -1.0, 0.0);
    let (ex, ez) = (palm.rotation * Vector3::x(), palm.rotation * Vector3::z());
    let anchor = palm * Point3::new(0.011, -0.0111, 0.038)
        + ex * (cfg.lateral * (2.0 * rng.random::<f64>() - 1.0))
        + ez * (cfg.lateral * (2.0 * rng.random::<f64>() - 1.0));
    let rot = random_rotation(rng);
    let lowest = obj
        .mesh
        .points()
        .iter()
        .map(|p| n.dot(&(rot * p.coords)))
        .fold(f64::INFINITY, f64::min);
    let c = anchor.coords + n * (-lowest - cfg.palm_press);
    let world_from_obj = Isometry3::from_parts(Translation3::from(c), rot);
    let dist = dmin + (dmax - dmin) * rng.random::<f64>();
    let eye = Point3::from(c + random_unit_vector(rng).into_inner() * dist);
    let cam_from_world = look_at(&eye, &Point3::from(c), &Vector3::z())?;
    let gt = cam_from_world * world_from_obj;
    let mut occ = Vec::with_capacity(hand.geoms.len());
    for &g in &hand.geoms {
        let part = &m.geoms[g];
        let pose = cam_from_world * m.part_pose(&bodies, part)?;
        occ.push(match part.shape {
            Shape::Capsule {
                radius,
                half_length,
            } => Primitive::Capsule {
                a: pose * Point3::new(0.0, 0.0, -half_length),
                b: pose * Point3::new(0.0, 0.0, half_length),
                radius,
            },
            Shape::Sphere { radius } => Primitive::Sphere {
                center: pose * Point3::origin(),
                radius,
            },
            Shape::Box { half } => Primitive::Cuboid { pose, half },
            _ => continue,
        });
    }
    let mut zones = Vec::with_capacity(hand.touch_sites.len());
    for &s in &hand.touch_sites {
        let part = &m.sites[s];
        let pose = cam_from_world * m.part_pose(&bodies, part)?;
        let (half, sphere) = match part.shape {
            Shape::Box { half } => (half, false),
            Shape::Sphere { radius } => ([radius; 3], true),
            Shape::Capsule {
                radius,
                half_length,
            }
            | Shape::Cylinder {
                radius,
                half_length,
            } => ([radius, radius, half_length + radius], false),
            Shape::Other(_) => ([0.005; 3], true),
        };
        zones.push(TouchZone { pose, half, sphere });
    }
    let frame = render_frame(&obj.mesh, &obj.surface, &gt, &occ, &zones, &cfg.sensor, rng)?;
    let start = perturb(&gt, cfg.max_angle_deg, cfg.max_translation, rng)?;
    let init = start.inverse();
    let visual = back_project(
        frame.depth.view(),
        &cfg.sensor.intrinsics,
        Some(frame.mask.view()),
    )
    .ok();
    let n_visual = visual.as_ref().map_or(0, |v| v.nrows());
    let contacts = frame.contacts;
    let n_contacts = contacts.nrows();
    let (est_v, est_f) = if n_visual >= MIN_VISUAL_POINTS {
        let v = visual.as_ref().map(|a| a.view()).ok_or(Error::EmptyCloud {
            what: "visual points",
        })?;
        let ev = object_pose_from(
            fuse_icp(
                v,
                Array2::zeros((0, 3)).view(),
                0.0,
                &obj.target,
                &init,
                &cfg.icp,
            ),
            &start,
        );
        let w = match cfg.tactile_weight {
            TactileWeight::PerPoint => n_contacts as f64 / n_visual as f64,
            TactileWeight::Total(w) => w,
        };
        let ef = object_pose_from(
            fuse_icp(v, contacts.view(), w, &obj.target, &init, &cfg.icp),
            &start,
        );
        (ev, ef)
    } else if n_contacts >= 3 {
        let pts: Vec<Point3<f64>> = contacts
            .rows()
            .into_iter()
            .map(|r| Point3::new(r[0], r[1], r[2]))
            .collect();
        let ef = object_pose_from(
            icp_points(&pts, &vec![1.0; pts.len()], &obj.target, &init, &cfg.icp),
            &start,
        );
        (start, ef)
    } else {
        (start, start)
    };
    let (add_s_start, _) = obj.errors(&gt, &start)?;
    let (add_s_vision, add_vision) = obj.errors(&gt, &est_v)?;
    let (add_s_fused, add_fused) = obj.errors(&gt, &est_f)?;
    Ok(FrameResult {
        occlusion: frame.occlusion,
        n_visual,
        n_contacts,
        add_s_start,
        add_s_vision,
        add_s_fused,
        add_vision,
        add_fused,
        rot_deg: (
            rotation_error_deg(&gt, &est_v),
            rotation_error_deg(&gt, &est_f),
        ),
        trans: (
            translation_error(&gt, &est_v),
            translation_error(&gt, &est_f),
        ),
    })
}
