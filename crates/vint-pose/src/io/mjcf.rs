//! MuJoCo MJCF kinematics, as the Gymnasium-Robotics Shadow Hand uses it:
//! `<include>`, `<default>` classes (nested, `class` / `childclass`),
//! `<compiler angle eulerseq>`, bodies with `pos` and `quat` / `euler` /
//! `axisangle`, hinge and slide joints, geoms (capsule, sphere, box, …,
//! `fromto`), sites and `<touch>` sensors; forward kinematics from joint angles.
//!
//! Semantics follow the MJCF reference: a body's frame is its parent's
//! composed with `(pos, orientation)`; then each of its joints, in document
//! order, acts in the body frame — a hinge rotates by `q` about `axis`
//! through `pos` (`T ← T·Trans(pos)·Rot(axis, q)·Trans(−pos)`), a slide
//! translates by `q·axis`. Free and ball joints are kept at their reference
//! configuration (they take no entry of the joint vector). Attribute values
//! come from the element, else its class (`class`, else the nearest
//! enclosing body's `childclass`, else `main`), else the parent classes.
//! MJCF quaternions (`w x y z`) are normalised as MuJoCo does. Unknown
//! elements (assets, actuators, contacts, lights, …) are ignored.

use crate::error::{Error, Result};
use crate::se3::Pose;
use nalgebra::{Isometry3, Point3, Quaternion, Translation3, Unit, UnitQuaternion, Vector3};
use ndarray::ArrayView1;
use std::collections::HashMap;

fn fmt_err(file: &str, line: usize, reason: impl Into<String>) -> Error {
    Error::Format {
        file: file.to_string(),
        line,
        reason: reason.into(),
    }
}

/// An XML element with includes expanded, carrying where it came from.
#[derive(Debug, Clone)]
struct El {
    tag: String,
    attrs: Vec<(String, String)>,
    children: Vec<El>,
    file: String,
    line: usize,
}

impl El {
    fn attr(&self, k: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(a, _)| a == k)
            .map(|(_, v)| v.as_str())
    }
}

fn convert<F: FnMut(&str) -> Result<String>>(
    node: roxmltree::Node<'_, '_>,
    file: &str,
    resolve: &mut F,
    depth: usize,
    out: &mut Vec<El>,
) -> Result<()> {
    for c in node.children().filter(|c| c.is_element()) {
        let line = c.document().text_pos_at(c.range().start).row as usize;
        let tag = c.tag_name().name().to_string();
        if tag == "include" {
            let Some(f) = c.attribute("file") else {
                return Err(fmt_err(file, line, "<include> without file"));
            };
            if depth > 16 {
                return Err(fmt_err(
                    file,
                    line,
                    "includes nested deeper than 16 (a cycle?)",
                ));
            }
            let text = resolve(f)?;
            let doc = roxmltree::Document::parse(&text)
                .map_err(|e| fmt_err(f, e.pos().row as usize, e.to_string()))?;
            // The included file's root (<mujoco>) is replaced by its children.
            convert(doc.root_element(), f, resolve, depth + 1, out)?;
            continue;
        }
        let mut el = El {
            tag,
            attrs: c
                .attributes()
                .map(|a| (a.name().to_string(), a.value().to_string()))
                .collect(),
            children: Vec::new(),
            file: file.to_string(),
            line,
        };
        let mut kids = Vec::new();
        convert(c, file, resolve, depth, &mut kids)?;
        el.children = kids;
        out.push(el);
    }
    Ok(())
}

fn floats(el: &El, key: &str, v: &str) -> Result<Vec<f64>> {
    v.split_whitespace()
        .map(|t| match t.parse::<f64>() {
            Ok(x) if x.is_finite() => Ok(x),
            _ => Err(fmt_err(
                &el.file,
                el.line,
                format!("attribute {key}={v:?}: {t:?} is not a finite number"),
            )),
        })
        .collect()
}

fn fixed<const N: usize>(el: &El, key: &str, v: &str) -> Result<[f64; N]> {
    let f = floats(el, key, v)?;
    f.try_into().map_err(|f: Vec<f64>| {
        fmt_err(
            &el.file,
            el.line,
            format!(
                "attribute {key}={v:?} has {} numbers, expected {N}",
                f.len()
            ),
        )
    })
}

/// The kind of a joint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JointKind {
    /// Rotation about an axis (one angle, radians).
    Hinge,
    /// Translation along an axis (one length).
    Slide,
    /// Ball joint (kept at reference).
    Ball,
    /// Free joint (kept at reference).
    Free,
}

/// A joint of the model.
#[derive(Debug, Clone, PartialEq)]
pub struct Joint {
    /// Its name (may be empty).
    pub name: String,
    /// The body it moves.
    pub body: usize,
    /// Hinge, slide, ball or free.
    pub kind: JointKind,
    /// Unit axis in the body frame.
    pub axis: Vector3<f64>,
    /// Anchor in the body frame.
    pub pos: Point3<f64>,
    /// Limits `(lo, hi)` when `range` is given (radians for hinges).
    pub range: Option<(f64, f64)>,
}

/// Geometry of a geom or a site, in its own frame.
#[derive(Debug, Clone, PartialEq)]
pub enum Shape {
    /// Capsule along the local z axis: `radius`, `half_length`.
    Capsule {
        /// Radius.
        radius: f64,
        /// Half-length of the axis segment.
        half_length: f64,
    },
    /// Ball.
    Sphere {
        /// Radius.
        radius: f64,
    },
    /// Box with half-extents.
    Box {
        /// Half-extents.
        half: [f64; 3],
    },
    /// Cylinder along local z.
    Cylinder {
        /// Radius.
        radius: f64,
        /// Half-length.
        half_length: f64,
    },
    /// Anything else (mesh, plane, ellipsoid, …), by its type name.
    Other(String),
}

/// A geom or site: name, body, frame in the body, shape.
#[derive(Debug, Clone, PartialEq)]
pub struct Part {
    /// Its name (may be empty).
    pub name: String,
    /// The body it is attached to.
    pub body: usize,
    /// Its frame in the body frame.
    pub local: Pose,
    /// Its shape.
    pub shape: Shape,
    /// Its class (after `childclass` inheritance).
    pub class: String,
}

/// A body of the kinematic tree.
#[derive(Debug, Clone, PartialEq)]
pub struct Body {
    /// Its name (the world body is `"world"`).
    pub name: String,
    /// Parent index (`None` for the world body).
    pub parent: Option<usize>,
    /// Frame relative to the parent at the reference configuration.
    pub local: Pose,
    /// Its joints, in document order.
    pub joints: Vec<usize>,
}

/// A kinematic model read from MJCF.
#[derive(Debug, Clone, PartialEq)]
pub struct Model {
    /// Bodies; index 0 is the world body, parents precede children.
    pub bodies: Vec<Body>,
    /// Joints in document order.
    pub joints: Vec<Joint>,
    /// Geoms.
    pub geoms: Vec<Part>,
    /// Sites.
    pub sites: Vec<Part>,
    /// Touch sensors: `(sensor name, site index)` in document order.
    pub touch_sensors: Vec<(String, usize)>,
    /// Indices of the hinge and slide joints: the order of the joint vector `q`.
    pub dof_joints: Vec<usize>,
}

type Defaults = HashMap<String, (Option<String>, HashMap<String, Vec<(String, String)>>)>;

struct Builder {
    angle_deg: bool,
    eulerseq: String,
    defaults: Defaults,
    model: Model,
}

impl Builder {
    fn lookup(&self, el: &El, class: &str, key: &str) -> Option<String> {
        if let Some(v) = el.attr(key) {
            return Some(v.to_string());
        }
        let mut c = Some(class.to_string());
        let mut guard = 0;
        while let Some(name) = c {
            guard += 1;
            if guard > 64 {
                break;
            }
            let Some((parent, tags)) = self.defaults.get(&name) else {
                break;
            };
            if let Some(v) = tags
                .get(&el.tag)
                .and_then(|a| a.iter().find(|(k, _)| k == key))
            {
                return Some(v.1.clone());
            }
            c = parent
                .clone()
                .or_else(|| (name != "main").then(|| "main".to_string()));
        }
        None
    }

    fn angle(&self, x: f64) -> f64 {
        if self.angle_deg { x.to_radians() } else { x }
    }

    fn orientation(&self, el: &El, class: &str) -> Result<UnitQuaternion<f64>> {
        if let Some(q) = self.lookup(el, class, "quat") {
            let q: [f64; 4] = fixed(el, "quat", &q)?;
            let qq = Quaternion::new(q[0], q[1], q[2], q[3]);
            if qq.norm().is_nan() || qq.norm() <= 0.0 {
                return Err(fmt_err(&el.file, el.line, "quat is zero"));
            }
            return Ok(UnitQuaternion::from_quaternion(qq));
        }
        if let Some(a) = self.lookup(el, class, "axisangle") {
            let a: [f64; 4] = fixed(el, "axisangle", &a)?;
            let Some(ax) = Unit::try_new(Vector3::new(a[0], a[1], a[2]), 1e-12) else {
                return Err(fmt_err(&el.file, el.line, "axisangle has a zero axis"));
            };
            return Ok(UnitQuaternion::from_axis_angle(&ax, self.angle(a[3])));
        }
        if let Some(e) = self.lookup(el, class, "euler") {
            let e: [f64; 3] = fixed(el, "euler", &e)?;
            let mut q = UnitQuaternion::identity();
            for (k, ch) in self.eulerseq.chars().enumerate() {
                let axis = match ch.to_ascii_lowercase() {
                    'x' => Vector3::x_axis(),
                    'y' => Vector3::y_axis(),
                    _ => Vector3::z_axis(),
                };
                let r = UnitQuaternion::from_axis_angle(&axis, self.angle(e[k]));
                q = if ch.is_ascii_lowercase() {
                    q * r
                } else {
                    r * q
                };
            }
            return Ok(q);
        }
        for k in ["xyaxes", "zaxis"] {
            if el.attr(k).is_some() {
                return Err(fmt_err(
                    &el.file,
                    el.line,
                    format!("orientation by {k} is not supported (use quat, euler or axisangle)"),
                ));
            }
        }
        Ok(UnitQuaternion::identity())
    }

    fn frame(&self, el: &El, class: &str) -> Result<Pose> {
        let pos = match self.lookup(el, class, "pos") {
            Some(p) => fixed::<3>(el, "pos", &p)?,
            None => [0.0; 3],
        };
        Ok(Isometry3::from_parts(
            Translation3::new(pos[0], pos[1], pos[2]),
            self.orientation(el, class)?,
        ))
    }

    fn part(&self, el: &El, class: &str, body: usize, is_site: bool) -> Result<Part> {
        let class = el.attr("class").unwrap_or(class).to_string();
        if el.attr("class").is_some() && !self.defaults.contains_key(&class) {
            return Err(Error::UnknownName {
                kind: "class",
                name: class,
            });
        }
        let ty = self
            .lookup(el, &class, "type")
            .unwrap_or_else(|| "sphere".to_string());
        let size = match self.lookup(el, &class, "size") {
            Some(s) => floats(el, "size", &s)?,
            None => vec![if is_site { 0.005 } else { 0.0 }],
        };
        let get = |k: usize| size.get(k).copied().unwrap_or(0.0);
        let mut local = self.frame(el, &class)?;
        let mut shape = match ty.as_str() {
            "capsule" => Shape::Capsule {
                radius: get(0),
                half_length: get(1),
            },
            "sphere" => Shape::Sphere { radius: get(0) },
            "box" => Shape::Box {
                half: [get(0), get(1), get(2)],
            },
            "cylinder" => Shape::Cylinder {
                radius: get(0),
                half_length: get(1),
            },
            other => Shape::Other(other.to_string()),
        };
        if let Some(ft) = self.lookup(el, &class, "fromto") {
            let f: [f64; 6] = fixed(el, "fromto", &ft)?;
            let a = Vector3::new(f[0], f[1], f[2]);
            let b = Vector3::new(f[3], f[4], f[5]);
            let d = b - a;
            let half = d.norm() / 2.0;
            let rot = UnitQuaternion::rotation_between(&Vector3::z(), &d).unwrap_or_else(|| {
                UnitQuaternion::from_axis_angle(&Vector3::x_axis(), std::f64::consts::PI)
            });
            local = Isometry3::from_parts(Translation3::from((a + b) / 2.0), rot);
            shape = match shape {
                Shape::Capsule { radius, .. } => Shape::Capsule {
                    radius,
                    half_length: half,
                },
                Shape::Cylinder { radius, .. } => Shape::Cylinder {
                    radius,
                    half_length: half,
                },
                s => s,
            };
        }
        Ok(Part {
            name: el.attr("name").unwrap_or("").to_string(),
            body,
            local,
            shape,
            class,
        })
    }

    fn body(&mut self, el: &El, parent: usize, class: &str) -> Result<()> {
        let here = if el.attr("childclass").is_some() || el.attr("class").is_some() {
            let c = el
                .attr("childclass")
                .or(el.attr("class"))
                .unwrap_or(class)
                .to_string();
            if !self.defaults.contains_key(&c) {
                return Err(Error::UnknownName {
                    kind: "class",
                    name: c,
                });
            }
            c
        } else {
            class.to_string()
        };
        let id = self.model.bodies.len();
        let local = self.frame(el, &here)?;
        self.model.bodies.push(Body {
            name: el.attr("name").unwrap_or("").to_string(),
            parent: Some(parent),
            local,
            joints: Vec::new(),
        });
        self.children(el, id, &here)
    }

    fn children(&mut self, el: &El, body: usize, class: &str) -> Result<()> {
        for c in &el.children {
            match c.tag.as_str() {
                "body" => self.body(c, body, class)?,
                "geom" => {
                    let p = self.part(c, class, body, false)?;
                    self.model.geoms.push(p);
                }
                "site" => {
                    let p = self.part(c, class, body, true)?;
                    self.model.sites.push(p);
                }
                "joint" | "freejoint" => {
                    let cl = c.attr("class").unwrap_or(class).to_string();
                    let ty = if c.tag == "freejoint" {
                        "free".to_string()
                    } else {
                        self.lookup(c, &cl, "type")
                            .unwrap_or_else(|| "hinge".to_string())
                    };
                    let kind = match ty.as_str() {
                        "hinge" => JointKind::Hinge,
                        "slide" => JointKind::Slide,
                        "ball" => JointKind::Ball,
                        "free" => JointKind::Free,
                        t => {
                            return Err(fmt_err(
                                &c.file,
                                c.line,
                                format!("unknown joint type {t:?}"),
                            ));
                        }
                    };
                    let axis = match self.lookup(c, &cl, "axis") {
                        Some(a) => fixed::<3>(c, "axis", &a)?,
                        None => [0.0, 0.0, 1.0],
                    };
                    let Some(axis) = Unit::try_new(Vector3::from(axis), 1e-12) else {
                        return Err(fmt_err(&c.file, c.line, "joint axis is zero"));
                    };
                    let pos = match self.lookup(c, &cl, "pos") {
                        Some(a) => fixed::<3>(c, "pos", &a)?,
                        None => [0.0; 3],
                    };
                    let range = match self.lookup(c, &cl, "range") {
                        Some(r) => {
                            let r: [f64; 2] = fixed(c, "range", &r)?;
                            let (a, b) = if kind == JointKind::Hinge {
                                (self.angle(r[0]), self.angle(r[1]))
                            } else {
                                (r[0], r[1])
                            };
                            Some((a, b))
                        }
                        None => None,
                    };
                    let j = self.model.joints.len();
                    self.model.joints.push(Joint {
                        name: c.attr("name").unwrap_or("").to_string(),
                        body,
                        kind,
                        axis: axis.into_inner(),
                        pos: Point3::from(pos),
                        range,
                    });
                    self.model.bodies[body].joints.push(j);
                    if matches!(kind, JointKind::Hinge | JointKind::Slide) {
                        self.model.dof_joints.push(j);
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }
}

fn read_defaults(el: &El, parent: Option<String>, out: &mut Defaults) {
    let name = el.attr("class").map(str::to_string).unwrap_or_else(|| {
        if parent.is_none() {
            "main".to_string()
        } else {
            String::new()
        }
    });
    let mut tags: HashMap<String, Vec<(String, String)>> = HashMap::new();
    for c in &el.children {
        if c.tag != "default" {
            tags.entry(c.tag.clone())
                .or_default()
                .extend(c.attrs.iter().cloned());
        }
    }
    let entry = out
        .entry(name.clone())
        .or_insert((parent.clone(), HashMap::new()));
    for (k, v) in tags {
        entry.1.entry(k).or_default().extend(v);
    }
    for c in el.children.iter().filter(|c| c.tag == "default") {
        read_defaults(c, Some(name.clone()), out);
    }
}

impl Model {
    /// Parses MJCF text named `file`; `<include file=…>` is resolved by
    /// `resolve(file) -> text` (e.g. reading from a folder or a verified data set).
    ///
    /// # Errors
    /// [`Error::Format`] (file, line) for malformed XML or attributes;
    /// [`Error::UnknownName`] for an unknown class or touch-sensor site;
    /// what `resolve` returns.
    pub fn parse_with(
        text: &str,
        file: &str,
        mut resolve: impl FnMut(&str) -> Result<String>,
    ) -> Result<Model> {
        let doc = roxmltree::Document::parse(text)
            .map_err(|e| fmt_err(file, e.pos().row as usize, e.to_string()))?;
        let root_node = doc.root_element();
        if root_node.tag_name().name() != "mujoco" {
            return Err(fmt_err(file, 1, "root element is not <mujoco>"));
        }
        let mut top = Vec::new();
        convert(root_node, file, &mut resolve, 0, &mut top)?;
        let mut b = Builder {
            angle_deg: true,
            eulerseq: "xyz".into(),
            defaults: HashMap::new(),
            model: Model {
                bodies: vec![Body {
                    name: "world".into(),
                    parent: None,
                    local: Pose::identity(),
                    joints: Vec::new(),
                }],
                joints: Vec::new(),
                geoms: Vec::new(),
                sites: Vec::new(),
                touch_sensors: Vec::new(),
                dof_joints: Vec::new(),
            },
        };
        b.defaults.insert("main".into(), (None, HashMap::new()));
        for el in &top {
            match el.tag.as_str() {
                "compiler" => {
                    if let Some(a) = el.attr("angle") {
                        b.angle_deg = match a {
                            "degree" => true,
                            "radian" => false,
                            _ => {
                                return Err(fmt_err(
                                    &el.file,
                                    el.line,
                                    format!("compiler angle {a:?}"),
                                ));
                            }
                        };
                    }
                    if let Some(s) = el.attr("eulerseq") {
                        if s.len() != 3 || !s.chars().all(|c| "xyzXYZ".contains(c)) {
                            return Err(fmt_err(&el.file, el.line, format!("eulerseq {s:?}")));
                        }
                        b.eulerseq = s.to_string();
                    }
                }
                "default" => read_defaults(el, None, &mut b.defaults),
                _ => {}
            }
        }
        // Bodies at the top level (a robot file meant for inclusion) or in <worldbody>.
        let mut worldbody = El {
            tag: "worldbody".into(),
            attrs: Vec::new(),
            children: Vec::new(),
            file: file.into(),
            line: 0,
        };
        for el in &top {
            match el.tag.as_str() {
                "worldbody" => worldbody.children.extend(el.children.iter().cloned()),
                "body" => worldbody.children.push(el.clone()),
                _ => {}
            }
        }
        b.children(&worldbody, 0, "main")?;
        for el in top.iter().filter(|e| e.tag == "sensor") {
            for s in el.children.iter().filter(|s| s.tag == "touch") {
                let site = s
                    .attr("site")
                    .ok_or_else(|| fmt_err(&s.file, s.line, "<touch> without site"))?;
                let idx = b.model.site_index(site)?;
                b.model
                    .touch_sensors
                    .push((s.attr("name").unwrap_or("").to_string(), idx));
            }
        }
        Ok(b.model)
    }

    /// Parses self-contained MJCF text (an `<include>` is an error).
    ///
    /// # Errors
    /// As [`Model::parse_with`].
    pub fn parse(text: &str, file: &str) -> Result<Model> {
        Self::parse_with(text, file, |f| {
            Err(fmt_err(
                f,
                0,
                "includes are not available (use parse_with or read)",
            ))
        })
    }

    /// Reads an MJCF file; includes are resolved relative to its folder.
    ///
    /// # Errors
    /// [`Error::Io`]; as [`Model::parse_with`].
    pub fn read(path: impl AsRef<std::path::Path>) -> Result<Model> {
        let path = path.as_ref();
        let dir = path.parent().map(|p| p.to_path_buf()).unwrap_or_default();
        let rd = |p: &std::path::Path| {
            std::fs::read_to_string(p).map_err(|e| Error::Io {
                path: p.display().to_string(),
                source: e,
            })
        };
        let text = rd(path)?;
        Self::parse_with(&text, &path.display().to_string(), |f| rd(&dir.join(f)))
    }

    fn find(names: impl Iterator<Item = String>, kind: &'static str, name: &str) -> Result<usize> {
        let mut it = names;
        it.position(|n| n == name)
            .ok_or_else(|| Error::UnknownName {
                kind,
                name: name.to_string(),
            })
    }

    /// Index of the body `name`.
    ///
    /// # Errors
    /// [`Error::UnknownName`].
    pub fn body_index(&self, name: &str) -> Result<usize> {
        Self::find(self.bodies.iter().map(|b| b.name.clone()), "body", name)
    }

    /// Index of the joint `name`.
    ///
    /// # Errors
    /// [`Error::UnknownName`].
    pub fn joint_index(&self, name: &str) -> Result<usize> {
        Self::find(self.joints.iter().map(|b| b.name.clone()), "joint", name)
    }

    /// Index of the site `name`.
    ///
    /// # Errors
    /// [`Error::UnknownName`].
    pub fn site_index(&self, name: &str) -> Result<usize> {
        Self::find(self.sites.iter().map(|b| b.name.clone()), "site", name)
    }

    /// Number of entries of the joint vector (hinge and slide joints).
    pub fn dof(&self) -> usize {
        self.dof_joints.len()
    }

    /// Whether body `b` is `root` or lies below it.
    pub fn is_descendant(&self, b: usize, root: usize) -> bool {
        let mut c = Some(b);
        while let Some(i) = c {
            if i == root {
                return true;
            }
            c = self.bodies.get(i).and_then(|x| x.parent);
        }
        false
    }

    /// World poses of all bodies for the joint vector `q` (one entry per
    /// [`Model::dof_joints`], radians / metres). O(#bodies + #joints).
    ///
    /// # Errors
    /// [`Error::LengthMismatch`]; [`Error::NonFinite`].
    pub fn forward_kinematics(&self, q: ArrayView1<'_, f64>) -> Result<Vec<Pose>> {
        if q.len() != self.dof() {
            return Err(Error::LengthMismatch {
                what: "joint vector",
                got: q.len(),
                expected: self.dof(),
            });
        }
        if let Some(index) = q.iter().position(|v| !v.is_finite()) {
            return Err(Error::NonFinite {
                what: "joint vector",
                index,
            });
        }
        let mut value = vec![0.0; self.joints.len()];
        for (k, &j) in self.dof_joints.iter().enumerate() {
            value[j] = q[k];
        }
        let mut out: Vec<Pose> = Vec::with_capacity(self.bodies.len());
        for b in &self.bodies {
            let mut t = match b.parent {
                Some(p) => out[p] * b.local,
                None => b.local,
            };
            for &j in &b.joints {
                let jt = &self.joints[j];
                match jt.kind {
                    JointKind::Hinge => {
                        let r = UnitQuaternion::from_axis_angle(
                            &Unit::new_unchecked(jt.axis),
                            value[j],
                        );
                        let p = jt.pos.coords;
                        t *= Isometry3::from_parts(Translation3::from(p - r * p), r);
                    }
                    JointKind::Slide => {
                        t *= Isometry3::translation(
                            jt.axis.x * value[j],
                            jt.axis.y * value[j],
                            jt.axis.z * value[j],
                        )
                    }
                    JointKind::Ball | JointKind::Free => {}
                }
            }
            out.push(t);
        }
        Ok(out)
    }

    /// World pose of a geom or site given the body poses from [`Model::forward_kinematics`].
    ///
    /// # Errors
    /// [`Error::IndexOutOfRange`] when the part's body is not in `body_poses`.
    pub fn part_pose(&self, body_poses: &[Pose], part: &Part) -> Result<Pose> {
        body_poses
            .get(part.body)
            .map(|b| b * part.local)
            .ok_or(Error::IndexOutOfRange {
                what: "body",
                index: part.body,
                len: body_poses.len(),
            })
    }

    /// Joint limits of the joint vector; `(−π, π)` for a hinge without `range`,
    /// `(0, 0)` for a slide without one.
    pub fn dof_ranges(&self) -> Vec<(f64, f64)> {
        self.dof_joints
            .iter()
            .map(|&j| {
                let jt = &self.joints[j];
                jt.range.unwrap_or(if jt.kind == JointKind::Hinge {
                    (-std::f64::consts::PI, std::f64::consts::PI)
                } else {
                    (0.0, 0.0)
                })
            })
            .collect()
    }
}
