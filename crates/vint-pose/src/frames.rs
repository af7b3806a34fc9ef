//! Typed frame chains: `camera ← base ← hand ← object`.
//!
//! Visuo-tactile data sets store poses in different frames (camera, robot
//! base, hand, object) and the frame is easy to confuse. A
//! [`Transform<To, From>`] maps coordinates in frame `From` to frame `To`;
//! composition only type-checks when the frames meet:
//! `Transform<A, B> * Transform<B, C> = Transform<A, C>`. A [`FrameChain`]
//! holds the links that a data set provides and reports a missing one as
//! [`Error::MissingLink`].
//!
//! ```
//! use vint_pose::frames::{Base, Camera, FrameChain, Hand, Object, Transform};
//! use vint_pose::se3::Pose;
//! let mut chain = FrameChain::new();
//! chain.camera_from_base = Some(Transform::<Camera, Base>::new(Pose::translation(0.0, 0.0, 1.0)));
//! chain.hand_from_object = Some(Transform::<Hand, Object>::new(Pose::translation(0.0, 0.05, 0.0)));
//! assert!(chain.camera_from_object().is_err()); // base ← hand is missing
//! chain.base_from_hand = Some(Transform::new(Pose::identity()));
//! let t = chain.camera_from_object().unwrap();
//! assert!((t.pose().translation.vector.y - 0.05).abs() < 1e-15);
//! ```

use crate::error::{Error, Result};
use crate::se3::Pose;
use nalgebra::Point3;
use std::fmt;
use std::marker::PhantomData;
use std::ops::Mul;

/// A coordinate frame, named for error messages.
pub trait Frame {
    /// The frame's name.
    const NAME: &'static str;
}

macro_rules! frame {
    ($(#[$m:meta])* $t:ident, $n:literal) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub struct $t;
        impl Frame for $t {
            const NAME: &'static str = $n;
        }
    };
}

frame!(
    /// The camera's optical frame (x right, y down, z forward).
    Camera,
    "camera"
);
frame!(
    /// The robot's base (world) frame.
    Base,
    "base"
);
frame!(
    /// The hand's frame (e.g. the palm body of an MJCF model).
    Hand,
    "hand"
);
frame!(
    /// The object's model frame (the frame of its mesh).
    Object,
    "object"
);

/// A rigid transform taking coordinates in `From` to coordinates in `To`.
pub struct Transform<To, From> {
    pose: Pose,
    _frames: PhantomData<fn(From) -> To>,
}

impl<To, From> Clone for Transform<To, From> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<To, From> Copy for Transform<To, From> {}

impl<To: Frame, From: Frame> fmt::Debug for Transform<To, From> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Transform<{} ← {}>({:?})",
            To::NAME,
            From::NAME,
            self.pose
        )
    }
}

impl<To, From> PartialEq for Transform<To, From> {
    fn eq(&self, other: &Self) -> bool {
        self.pose == other.pose
    }
}

impl<To: Frame, From: Frame> Transform<To, From> {
    /// Wraps a pose as `To ← From`.
    pub fn new(pose: Pose) -> Self {
        Transform {
            pose,
            _frames: PhantomData,
        }
    }

    /// The underlying pose.
    pub fn pose(&self) -> &Pose {
        &self.pose
    }

    /// The inverse, `From ← To`: `(R, t)⁻¹ = (Rᵀ, −Rᵀt)`.
    pub fn inverse(&self) -> Transform<From, To> {
        Transform::new(self.pose.inverse())
    }

    /// Maps a point given in `From` to `To`.
    pub fn apply(&self, p: &Point3<f64>) -> Point3<f64> {
        self.pose * p
    }
}

impl<A: Frame, B: Frame, C: Frame> Mul<Transform<B, C>> for Transform<A, B> {
    type Output = Transform<A, C>;
    fn mul(self, rhs: Transform<B, C>) -> Transform<A, C> {
        Transform::new(self.pose * rhs.pose)
    }
}

/// The links `camera ← base ← hand ← object` a data set may provide; each
/// is optional, and a query that needs a missing one fails with
/// [`Error::MissingLink`] naming it.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct FrameChain {
    /// Camera extrinsics.
    pub camera_from_base: Option<Transform<Camera, Base>>,
    /// The hand's pose in the base frame (forward kinematics of the arm).
    pub base_from_hand: Option<Transform<Base, Hand>>,
    /// The object's pose in the hand frame (the in-hand pose).
    pub hand_from_object: Option<Transform<Hand, Object>>,
}

fn need<T: Copy>(x: Option<T>, to: &'static str, from: &'static str) -> Result<T> {
    x.ok_or(Error::MissingLink { to, from })
}

impl FrameChain {
    /// A chain with no links.
    pub fn new() -> Self {
        Self::default()
    }

    /// `camera ← object = (camera ← base)(base ← hand)(hand ← object)`.
    ///
    /// # Errors
    /// [`Error::MissingLink`] for the first absent link.
    pub fn camera_from_object(&self) -> Result<Transform<Camera, Object>> {
        Ok(self.camera_from_hand()? * need(self.hand_from_object, "hand", "object")?)
    }

    /// `camera ← hand = (camera ← base)(base ← hand)`.
    ///
    /// # Errors
    /// [`Error::MissingLink`] for the first absent link.
    pub fn camera_from_hand(&self) -> Result<Transform<Camera, Hand>> {
        Ok(need(self.camera_from_base, "camera", "base")?
            * need(self.base_from_hand, "base", "hand")?)
    }

    /// `base ← object = (base ← hand)(hand ← object)`.
    ///
    /// # Errors
    /// [`Error::MissingLink`] for the first absent link.
    pub fn base_from_object(&self) -> Result<Transform<Base, Object>> {
        Ok(need(self.base_from_hand, "base", "hand")?
            * need(self.hand_from_object, "hand", "object")?)
    }

    /// Recovers `hand ← object` from a camera-frame object pose:
    /// `(camera ← hand)⁻¹ (camera ← object)`.
    ///
    /// # Errors
    /// [`Error::MissingLink`] when `camera ← hand` cannot be formed.
    pub fn hand_from_camera_pose(
        &self,
        camera_from_object: Transform<Camera, Object>,
    ) -> Result<Transform<Hand, Object>> {
        Ok(self.camera_from_hand()?.inverse() * camera_from_object)
    }
}
