//! # nonsmooth-mechanics
//!
//! Newton–Euler rigid bodies with unit quaternions, contact geometry and contact relations
//! with local frames (Siconos developer notes, chapters "NewtonEuler Dynamical Systems" and
//! "NewtonEulerR: computation of ∇_q H"; Siconos documentation,
//! <https://nonsmooth.gricad-pages.univ-grenoble-alpes.fr/siconos/>).
//!
//! - [`lie`]: quaternions, SO(3), `expq`, Rodrigues, `T(Ω)`, `Φ`, `Ψ`, `T(q)`.
//! - [`body`]: [`body::NewtonEulerDs`], a rigid body implementing the kernel's second-order
//!   system trait (integrated by the kernel's Moreau–Jean scheme).
//! - [`contact`]: contact relations with local frames ([`contact::ContactRelation`]) feeding
//!   FC3D (or, normal only, LCP) one-step problems.
//! - [`relation`]: the trait of user-defined relations `y = h(q)` on one or two bodies with
//!   their Jacobians in twist space ([`relation::NewtonEulerRelation`]), and its adapter to the
//!   kernel ([`relation::NewtonEulerR`]).
//! - [`joints`]: ball, pivot, prismatic, cylindrical and fixed joints (equality relations) and
//!   joint stops (unilateral relations on a joint coordinate).
//! - [`geometry`]: shapes (sphere, half-space, box, capsule), narrow phase, broad phase.
//! - [`scene`]: a builder and a simulation that detects contacts before every step; the
//!   contacts of the last step ([`scene::Scene::contacts`]) and the static shapes.
//! - [`scene_file`]: TOML scene files (bodies, materials, statics, joints, generators, solver,
//!   run and output settings), read, written and built into a [`scene::Scene`].
//! - [`pile`]: the sphere pile of the `sphere_pile` example and of the benchmark report.
//! - [`output`]: CSV and VTK (ParaView) output.

pub mod body;
pub mod contact;
mod error;
pub mod geometry;
pub mod joints;
pub mod lie;
pub mod output;
pub mod pile;
pub mod relation;
pub mod run;
pub mod scene;
pub mod scene_file;

pub use error::MechanicsError;
