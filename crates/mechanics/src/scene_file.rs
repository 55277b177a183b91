//! Scene files: a TOML description of a [`Scene`] (bodies, materials, static geometry, joints
//! and joint stops, gravity, the Moreau–Jean θ-scheme, the one-step solver and its
//! non-convergence policy), of generated granular set-ups (lattices and random packings of
//! spheres in a box) and of the run (`h`, `T`) and its outputs, read and written with serde.
//! `docs/scene-format.md` documents every key.
//!
//! Every table refuses unknown keys. Errors name the file, the line and the key
//! ([`MechanicsError::SceneFile`]): the TOML parser's spans give the line of a syntax error, an
//! unknown key or a value of the wrong type; the values the scene refuses (a negative mass,
//! `μ < 0`, an unknown shape, a joint on a missing body) are reported at the line of their table.
//!
//! A scene built in code is written by [`SceneFile::from_builder`] with exact values (masses and
//! inertias rather than densities, quaternions and rotation matrices as given, floats in
//! shortest round-trip form), so that the file, read and built again, steps bit for bit as the
//! scene built in code.
//!
//! The generators draw from SplitMix64 streams (Steele, Lea & Flood, "Fast splittable
//! pseudorandom number generators", OOPSLA 2014; [`crate::pile::uniform`]) seeded by the file:
//! the same file gives the same bodies on every machine.

use std::collections::BTreeMap;
use std::collections::HashMap;
use std::ops::Range;
use std::path::{Path, PathBuf};

use nonsmooth_numerics::Parallelism;
use nonsmooth_numerics::fc::Fc3dMethod;
use nonsmooth_numerics::fc::nsgs::{NsgsErrorEvaluation, NsgsLocalSolver};
use serde::{Deserialize, Serialize};
use toml::Spanned;

use crate::MechanicsError;
use crate::geometry::{Pose, Shape};
use crate::lie::{Quaternion, Vec3};
use crate::pile::uniform;
use crate::scene::{BodySpec, Material, Scene, SceneBuilder, SceneJoint, SceneNonConvergence, SceneOptions, StopSide};

/// The largest number of bodies a generator may create (a guard against typos such as an extra
/// digit in `count`).
pub const MAX_GENERATED: usize = 1_000_000;

/// A scene file: the sections of the TOML document (see `docs/scene-format.md`).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SceneFile {
    /// `[simulation]`: time step, final time, θ, gravity, detection margin.
    #[serde(default)]
    pub simulation: SimulationSection,
    /// `[solver]`: the one-step solver, the Newton loop and the non-convergence policy.
    #[serde(default)]
    pub solver: SolverSection,
    /// `[output]`: what the run command writes, how often, in which formats.
    #[serde(default)]
    pub output: OutputSection,
    /// `[materials.NAME]`: named materials.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub materials: BTreeMap<String, Spanned<MaterialEntry>>,
    /// `[[material_pair]]`: contact laws of pairs of materials, replacing the mean.
    #[serde(default, rename = "material_pair", skip_serializing_if = "Vec::is_empty")]
    pub material_pairs: Vec<Spanned<MaterialPairEntry>>,
    /// `[[static]]`: fixed shapes (ground, walls, open boxes, meshes, any shape).
    #[serde(default, rename = "static", skip_serializing_if = "Vec::is_empty")]
    pub statics: Vec<Spanned<StaticEntry>>,
    /// `[[body]]`: bodies, numbered from 0 in file order.
    #[serde(default, rename = "body", skip_serializing_if = "Vec::is_empty")]
    pub bodies: Vec<Spanned<BodyEntry>>,
    /// `[[generate]]`: generated spheres, numbered after the `[[body]]` entries.
    #[serde(default, rename = "generate", skip_serializing_if = "Vec::is_empty")]
    pub generators: Vec<Spanned<GenerateEntry>>,
    /// `[[joint]]`: joints, numbered from 0 in file order.
    #[serde(default, rename = "joint", skip_serializing_if = "Vec::is_empty")]
    pub joints: Vec<Spanned<JointEntry>>,
    /// `[[joint_stop]]`: stops on joint coordinates.
    #[serde(default, rename = "joint_stop", skip_serializing_if = "Vec::is_empty")]
    pub joint_stops: Vec<Spanned<JointStopEntry>>,
    /// `[[no_contact]]`: pairs of bodies that never form contacts.
    #[serde(default, rename = "no_contact", skip_serializing_if = "Vec::is_empty")]
    pub no_contacts: Vec<Spanned<NoContactEntry>>,
    /// Where the file came from (for error messages) and its text (for line numbers).
    #[serde(skip)]
    origin: Origin,
}

/// The file name and text of a parsed scene file.
#[derive(Clone, Debug, Default)]
struct Origin {
    path: Option<PathBuf>,
    text: String,
}

/// `[simulation]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SimulationSection {
    /// Time step `h` in s (default 1e-3).
    #[serde(default = "default_h")]
    pub h: f64,
    /// Final time `T` in s (default 1).
    #[serde(default = "default_t_end")]
    pub t_end: f64,
    /// θ of the Moreau–Jean scheme (default 0.5).
    #[serde(default = "default_theta")]
    pub theta: f64,
    /// Gravity in m/s² (default `[0, 0, -9.81]`).
    #[serde(default = "default_gravity")]
    pub gravity: Vec3,
    /// Detection margin in m (default: a tenth of the smallest body's half extent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub margin: Option<f64>,
}

fn default_h() -> f64 {
    1e-3
}
fn default_t_end() -> f64 {
    1.0
}
fn default_theta() -> f64 {
    0.5
}
fn default_gravity() -> Vec3 {
    [0.0, 0.0, -9.81]
}

impl Default for SimulationSection {
    fn default() -> Self {
        Self {
            h: default_h(),
            t_end: default_t_end(),
            theta: default_theta(),
            gravity: default_gravity(),
            margin: None,
        }
    }
}

/// `[solver]`: the FC3D (or, with joints, mixed) one-step solver, its options and the policy of
/// a step that does not converge. Unset NSGS options keep [`SceneOptions::default_nsgs`].
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SolverSection {
    /// `nsgs` (default), `nsgs-projection`, `nsgs-quartic`, `nsn-ac` or `prox`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    /// Tolerance on Siconos' FC3D error (default 1e-4).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tolerance: Option<f64>,
    /// Iteration cap (NSGS sweeps; default 20 000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_iterations: Option<usize>,
    /// NSGS relaxation `ω ∈ (0, 2)` (default 1.5).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relaxation: Option<f64>,
    /// NSGS Anderson memory (default 3; 0: off).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub anderson_memory: Option<usize>,
    /// NSGS sweeps per Anderson extrapolation (default 2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub anderson_period: Option<usize>,
    /// NSGS plain-sweep fallback period (default 250; 0: never).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plain_fallback_period: Option<usize>,
    /// NSGS: start once more from zero reactions when the plain sweeps stagnate too (default
    /// true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cold_restart: Option<bool>,
    /// NSGS: evaluate the full error of over-relaxed sweeps after one plain sweep (default
    /// true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plain_check_sweep: Option<bool>,
    /// NSGS error evaluation: `full` or `light_with_full_final` (default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_evaluation: Option<String>,
    /// NSGS threads: 0 sequential (default), `n ≥ 1` a pool of `n` threads.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threads: Option<usize>,
    /// Solve NSGS on the factored Delassus operator (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub factored_delassus: Option<bool>,
    /// Sweep the contacts from the top of the scene down (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order_by_height: Option<bool>,
    /// Newton tolerance of the Moreau–Jean loop (default 1e-8).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub newton_tolerance: Option<f64>,
    /// Newton iteration cap (default 20).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub newton_max_iterations: Option<usize>,
    /// `fail_above` (default), `fail` or `continue`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_nonconvergence: Option<String>,
    /// The factor of `fail_above` (default 100).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nonconvergence_factor: Option<f64>,
}

/// `[output]`: the settings of the run command (the scene itself does not read them).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutputSection {
    /// Write every this many steps (default 1).
    #[serde(default = "default_every")]
    pub every: usize,
    /// Quantities the run record holds: any of `q` (positions and orientations), `v` (velocities),
    /// `contacts`, `solver` (default: all four).
    #[serde(default = "default_quantities")]
    pub quantities: Vec<String>,
    /// Directory of VTK (ParaView) files, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vtk: Option<String>,
    /// CSV file of the body states, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub csv: Option<String>,
    /// Run record (HDF5) file, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub record: Option<String>,
}

/// The quantities `[output] quantities` accepts.
pub const OUTPUT_QUANTITIES: [&str; 4] = ["q", "v", "contacts", "solver"];

fn default_every() -> usize {
    1
}
fn default_quantities() -> Vec<String> {
    OUTPUT_QUANTITIES.iter().map(|q| (*q).to_owned()).collect()
}

impl OutputSection {
    /// The record's contents named by [`OutputSection::quantities`].
    pub fn record_quantities(&self) -> crate::output::record::RecordQuantities {
        let has = |name: &str| self.quantities.iter().any(|q| q == name);
        crate::output::record::RecordQuantities {
            positions: has("q"),
            velocities: has("v"),
            contacts: has("contacts"),
            solver: has("solver"),
        }
    }
}

impl Default for OutputSection {
    fn default() -> Self {
        Self { every: default_every(), quantities: default_quantities(), vtk: None, csv: None, record: None }
    }
}

/// `[materials.NAME]`: Coulomb friction `μ ≥ 0` and normal restitution `e ∈ [0, 1]`. A contact
/// between two materials takes the means of their coefficients.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MaterialEntry {
    /// `μ` (default 0.3).
    #[serde(default = "default_friction")]
    pub friction: f64,
    /// `e` (default 0).
    #[serde(default)]
    pub restitution: f64,
}

/// `[[material_pair]]`: the contact law between materials `a` and `b` (either order), in place
/// of the mean of their coefficients ([`SceneBuilder::set_pair_law`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MaterialPairEntry {
    /// Name of the first material.
    pub a: String,
    /// Name of the second material.
    pub b: String,
    /// `μ ≥ 0`.
    pub friction: f64,
    /// `e ∈ [0, 1]` (default 0).
    #[serde(default)]
    pub restitution: f64,
}

fn default_friction() -> f64 {
    0.3
}

/// The shape keys shared by `[[body]]` and `[[static]]`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShapeKeys {
    /// `sphere`, `box`, `capsule`, `cylinder`, `convex_hull`; statics also `half_space`,
    /// `mesh` and `open_box`.
    pub shape: String,
    /// Radius in m (sphere, capsule, cylinder).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub radius: Option<f64>,
    /// Half extents in m (box).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub half_extents: Option<Vec3>,
    /// Half length of the axis segment in m (capsule).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub half_length: Option<f64>,
    /// Half height in m (cylinder).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub half_height: Option<f64>,
    /// Points (convex hull) or vertices (mesh) in m.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub points: Option<Vec<Vec3>>,
    /// Triangles (mesh): vertex indices, counter-clockwise seen from the bodies' side.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub triangles: Option<Vec<[u32; 3]>>,
    /// Side of an open box `[0, side]²` in m (`open_box`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub side: Option<f64>,
}

/// `[[body]]`: a rigid body.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BodyEntry {
    /// Shape name.
    pub shape: String,
    /// Radius in m.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub radius: Option<f64>,
    /// Half extents in m.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub half_extents: Option<Vec3>,
    /// Half length in m.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub half_length: Option<f64>,
    /// Half height in m.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub half_height: Option<f64>,
    /// Points of a convex hull in m.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub points: Option<Vec<Vec3>>,
    /// Density in kg/m³ (or `mass` and `inertia`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub density: Option<f64>,
    /// Mass in kg (with `inertia`, instead of `density`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mass: Option<f64>,
    /// Principal inertia in kg m² about the body axes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inertia: Option<Vec3>,
    /// Position of the centre in m (default origin).
    #[serde(default)]
    pub position: Vec3,
    /// Orientation quaternion `[w, x, y, z]` (normalized when built).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub orientation: Option<[f64; 4]>,
    /// Orientation as `[axis_x, axis_y, axis_z, angle]` (angle in rad).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub axis_angle: Option<[f64; 4]>,
    /// Velocity of the centre in m/s (default zero).
    #[serde(default)]
    pub velocity: Vec3,
    /// Angular velocity in rad/s, body frame (default zero).
    #[serde(default)]
    pub angular_velocity: Vec3,
    /// Material name (default: `default` if defined, else μ = 0.3, e = 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub material: Option<String>,
}

/// `[[static]]`: a fixed shape.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StaticEntry {
    /// Shape name (`half_space`, `open_box`, `mesh` or a body shape).
    pub shape: String,
    /// Radius in m.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub radius: Option<f64>,
    /// Half extents in m.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub half_extents: Option<Vec3>,
    /// Half length in m.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub half_length: Option<f64>,
    /// Half height in m.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub half_height: Option<f64>,
    /// Points of a convex hull or vertices of a mesh in m.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub points: Option<Vec<Vec3>>,
    /// Triangles of a mesh.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub triangles: Option<Vec<[u32; 3]>>,
    /// Side of an open box in m.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub side: Option<f64>,
    /// Position in m (a half-space: a point of its plane).
    #[serde(default)]
    pub position: Vec3,
    /// Outward normal of a half-space (default `[0, 0, 1]`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub normal: Option<Vec3>,
    /// Orientation quaternion `[w, x, y, z]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub orientation: Option<[f64; 4]>,
    /// Orientation as `[axis_x, axis_y, axis_z, angle]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub axis_angle: Option<[f64; 4]>,
    /// Rotation matrix body → world, row by row.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rotation: Option<[[f64; 3]; 3]>,
    /// Material name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub material: Option<String>,
}

/// `[[generate]]`: `count` spheres in the box `[box_min, box_max]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GenerateEntry {
    /// `lattice` (a jittered cubic lattice of spacing `2.2 r_max`, filled along x, then y, then
    /// z) or `random` (uniform centres, no overlap, by rejection).
    pub kind: String,
    /// Number of spheres.
    pub count: usize,
    /// Radius range `[r_min, r_max]` in m (uniform draw; equal bounds for equal spheres).
    pub radius: [f64; 2],
    /// Lower corner of the box holding the spheres, in m.
    pub box_min: Vec3,
    /// Upper corner of the box, in m.
    pub box_max: Vec3,
    /// Seed of the SplitMix64 stream (default 0).
    #[serde(default)]
    pub seed: u64,
    /// Density in kg/m³ (default 1000).
    #[serde(default = "default_density")]
    pub density: f64,
    /// Initial velocity in m/s (default zero).
    #[serde(default)]
    pub velocity: Vec3,
    /// Material name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub material: Option<String>,
}

fn default_density() -> f64 {
    1000.0
}

/// `[[joint]]`: a joint between `body` and `other` (omitted: the ground).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JointEntry {
    /// `ball`, `pivot` or `prismatic`.
    pub kind: String,
    /// Index of the first body.
    pub body: usize,
    /// Index of the second body (omitted: the ground).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub other: Option<usize>,
    /// The joint's point in m, inertial frame at the initial positions (ball, pivot).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub point: Option<Vec3>,
    /// The joint's axis (pivot, prismatic).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub axis: Option<Vec3>,
    /// Whether the two bodies form contacts (default true; `false` excludes the pair,
    /// [`SceneBuilder::disable_collisions`]; a joint with the ground has no pair to exclude).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub collide: Option<bool>,
}

/// `[[no_contact]]`: a pair of bodies that never form contacts
/// ([`SceneBuilder::disable_collisions`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NoContactEntry {
    /// The indices of the two bodies.
    pub bodies: [usize; 2],
}

/// `[[joint_stop]]`: a stop on the coordinate of joint `joint`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JointStopEntry {
    /// Index of the joint (pivot or prismatic).
    pub joint: usize,
    /// `lower` (`d ≥ stop`) or `upper` (`d ≤ stop`).
    pub side: String,
    /// The stop (rad for a pivot, m for a prismatic joint).
    pub stop: f64,
    /// Newton restitution of the stop (default 0).
    #[serde(default)]
    pub restitution: f64,
}

/// A spanned value with an empty span (written files).
fn unspanned<T>(value: T) -> Spanned<T> {
    Spanned::new(0..0, value)
}

impl SceneFile {
    /// Reads and parses the scene file at `path`.
    ///
    /// # Errors
    /// [`MechanicsError::Io`] when the file cannot be read; the errors of
    /// [`SceneFile::from_str`](std::str::FromStr::from_str), naming `path`.
    pub fn from_path(path: impl AsRef<Path>) -> Result<Self, MechanicsError> {
        let path = path.as_ref();
        let text =
            std::fs::read_to_string(path).map_err(|source| MechanicsError::Io { path: path.to_path_buf(), source })?;
        Self::parse(&text, Some(path.to_path_buf()))
    }

    fn parse(text: &str, path: Option<PathBuf>) -> Result<Self, MechanicsError> {
        let origin = Origin { path, text: text.to_owned() };
        match toml::from_str::<SceneFile>(text) {
            Ok(mut file) => {
                file.origin = origin;
                Ok(file)
            }
            Err(e) => {
                let span = e.span();
                let key = span.clone().map(|s| key_at(text, s)).unwrap_or_default();
                let reason = e.message().trim().to_owned();
                Err(origin.error(span.map_or(0, |s| line_of(text, s.start)), key, reason))
            }
        }
    }

    /// The file as TOML text (floats in shortest round-trip form: read back, every value is the
    /// same `f64`).
    ///
    /// # Errors
    /// [`MechanicsError::SceneFile`] when a value cannot be written (the TOML serializer's
    /// error).
    pub fn to_string(&self) -> Result<String, MechanicsError> {
        toml::to_string(self).map_err(|e| self.origin.error(0, String::new(), e.to_string()))
    }

    /// Writes the file at `path`.
    ///
    /// # Errors
    /// [`MechanicsError::Io`] when the file cannot be written; the errors of
    /// [`SceneFile::to_string`].
    pub fn to_path(&self, path: impl AsRef<Path>) -> Result<(), MechanicsError> {
        let path = path.as_ref();
        let text = self.to_string()?;
        std::fs::write(path, text).map_err(|source| MechanicsError::Io { path: path.to_path_buf(), source })
    }

    /// The file of the scene `builder` would build: every body with its mass and inertia, its
    /// pose and velocities as given, its material (named `m0`, `m1`, ... in order of first
    /// use), every static shape with its pose's rotation matrix, the joints and stops, the
    /// options. Built again ([`SceneFile::build`]) it gives the same scene, stepping bit for bit
    /// as `builder`'s. The output section is the default.
    ///
    /// # Errors
    /// [`MechanicsError::SceneFile`] naming `solver` when the scene's solver options are not
    /// expressible in a file (an FC3D method other than NSGS, or NSGS options outside the keys
    /// of `[solver]`, such as shuffling).
    pub fn from_builder(builder: &SceneBuilder) -> Result<Self, MechanicsError> {
        let o = builder.options();
        let solver = solver_section(o).ok_or_else(|| {
            Origin::default().error(0, "solver".into(), "the solver options are not expressible in a scene file".into())
        })?;
        let mut file = SceneFile {
            simulation: SimulationSection {
                h: o.h,
                t_end: o.t_end,
                theta: o.theta,
                gravity: o.gravity,
                margin: o.margin,
            },
            solver,
            ..SceneFile::default()
        };
        let mut materials: Vec<Material> = Vec::new();
        let mut name_of = |m: Material| -> String {
            let k = materials.iter().position(|x| *x == m).unwrap_or_else(|| {
                materials.push(m);
                materials.len() - 1
            });
            format!("m{k}")
        };
        for s in builder.statics() {
            let mut e = StaticEntry {
                shape: String::new(),
                radius: None,
                half_extents: None,
                half_length: None,
                half_height: None,
                points: None,
                triangles: None,
                side: None,
                position: s.pose.position,
                normal: None,
                orientation: None,
                axis_angle: None,
                rotation: Some(s.pose.rotation),
                material: Some(name_of(s.material)),
            };
            let keys = shape_keys(&s.shape);
            e.shape = keys.shape;
            e.radius = keys.radius;
            e.half_extents = keys.half_extents;
            e.half_length = keys.half_length;
            e.half_height = keys.half_height;
            e.points = keys.points;
            e.triangles = keys.triangles;
            file.statics.push(unspanned(e));
        }
        for b in builder.bodies() {
            let keys = shape_keys(b.shape());
            let p = b.orientation();
            file.bodies.push(unspanned(BodyEntry {
                shape: keys.shape,
                radius: keys.radius,
                half_extents: keys.half_extents,
                half_length: keys.half_length,
                half_height: keys.half_height,
                points: keys.points,
                density: None,
                mass: Some(b.mass()),
                inertia: Some(b.inertia()),
                position: b.position(),
                orientation: Some([p.w, p.x, p.y, p.z]),
                axis_angle: None,
                velocity: b.velocity(),
                angular_velocity: b.angular_velocity(),
                material: Some(name_of(b.material())),
            }));
        }
        // Excluded pairs: on the first joint between the two bodies, else as `[[no_contact]]`.
        let mut exclusions: Vec<(usize, usize)> = builder.collision_exclusions().to_vec();
        for (kind, body, other) in builder.joints() {
            let (name, point, axis) = match kind {
                SceneJoint::Ball { point } => ("ball", Some(point), None),
                SceneJoint::Pivot { point, axis } => ("pivot", Some(point), Some(axis)),
                SceneJoint::Prismatic { axis } => ("prismatic", None, Some(axis)),
            };
            let excluded = other.and_then(|o| exclusions.iter().position(|&p| p == (body.min(o), body.max(o))));
            let collide = excluded.map(|k| {
                exclusions.remove(k);
                false
            });
            file.joints.push(unspanned(JointEntry { kind: name.into(), body, other, point, axis, collide }));
        }
        for (a, b) in exclusions {
            file.no_contacts.push(unspanned(NoContactEntry { bodies: [a, b] }));
        }
        for (joint, side, stop, restitution) in builder.joint_stops() {
            let side = match side {
                StopSide::Lower => "lower",
                StopSide::Upper => "upper",
            };
            file.joint_stops.push(unspanned(JointStopEntry { joint, side: side.into(), stop, restitution }));
        }
        for &(a, b, law) in builder.pair_laws() {
            let (a, b) = (name_of(a), name_of(b));
            file.material_pairs.push(unspanned(MaterialPairEntry {
                a,
                b,
                friction: law.friction(),
                restitution: law.restitution(),
            }));
        }
        for (k, m) in materials.iter().enumerate() {
            file.materials.insert(
                format!("m{k}"),
                unspanned(MaterialEntry { friction: m.friction(), restitution: m.restitution() }),
            );
        }
        Ok(file)
    }

    /// The error of the table spanning `span` (empty: the section named by `key`'s first
    /// component), naming `key`: at the line of the key's last component in that table if the
    /// key is written there, else at the table's first line (0 when the file has no text there).
    fn error(&self, span: &Range<usize>, key: String, reason: impl std::fmt::Display) -> MechanicsError {
        let text = &self.origin.text;
        // The table runs from its start to the next table header.
        let to_next_header = |start: usize| {
            let end = text.get(start + 1..).and_then(|t| t.find("\n[")).map_or(text.len(), |k| start + 1 + k);
            start..end
        };
        let table = if span.is_empty() {
            let section = key.split('.').next().unwrap_or("");
            let header = format!("[{section}]");
            text.lines()
                .scan(0usize, |offset, l| {
                    let start = *offset;
                    *offset += l.len() + 1;
                    Some((start, l))
                })
                .find(|(_, l)| l.trim_start().starts_with(&header))
                .map(|(start, _)| to_next_header(start))
        } else {
            Some(to_next_header(span.start.min(text.len())))
        };
        let line = match table {
            None => 0,
            Some(table) => {
                let field = key.rsplit('.').next().unwrap_or("");
                let at = text.get(table.clone()).and_then(|t| {
                    let mut offset = 0usize;
                    for l in t.split('\n') {
                        if let Some(rest) = l.trim_start().strip_prefix(field)
                            && !field.is_empty()
                            && rest.trim_start().starts_with('=')
                        {
                            return Some(table.start + offset);
                        }
                        offset += l.len() + 1;
                    }
                    None
                });
                line_of(text, at.unwrap_or(table.start))
            }
        };
        self.origin.error(line, key, reason.to_string())
    }

    /// The scene options of `[simulation]` and `[solver]`.
    ///
    /// # Errors
    /// [`MechanicsError::SceneFile`] naming the key of an unknown method, error evaluation or
    /// policy, or of an option out of range ([`SceneOptions::validate`]).
    pub fn options(&self) -> Result<SceneOptions, MechanicsError> {
        let s = &self.simulation;
        let v = &self.solver;
        let none = 0..0;
        let mut o = SceneOptions::default()
            .with_time_step(s.h)
            .with_final_time(s.t_end)
            .with_theta(s.theta)
            .with_gravity(s.gravity);
        o.margin = s.margin;
        let method_name = v.method.as_deref().unwrap_or("nsgs");
        let mut nsgs = SceneOptions::default_nsgs();
        let method = match method_name {
            "nsgs" | "nsgs-projection" | "nsgs-quartic" => {
                nsgs.local_solver = match method_name {
                    "nsgs" => NsgsLocalSolver::AlartCurnier,
                    "nsgs-projection" => NsgsLocalSolver::Projection,
                    _ => NsgsLocalSolver::Quartic,
                };
                if let Some(t) = v.tolerance {
                    nsgs.tolerance = t;
                }
                if let Some(k) = v.max_iterations {
                    nsgs.max_iterations = k;
                }
                if let Some(w) = v.relaxation {
                    nsgs.relaxation = w;
                }
                if let Some(m) = v.anderson_memory {
                    nsgs.anderson_memory = m;
                }
                if let Some(p) = v.anderson_period {
                    nsgs.anderson_period = p;
                }
                if let Some(p) = v.plain_fallback_period {
                    nsgs.plain_fallback_period = p;
                }
                if let Some(c) = v.cold_restart {
                    nsgs.cold_restart = c;
                }
                if let Some(c) = v.plain_check_sweep {
                    nsgs.plain_check_sweep = c;
                }
                if let Some(e) = &v.error_evaluation {
                    nsgs.error_evaluation = match e.as_str() {
                        "full" => NsgsErrorEvaluation::Full,
                        "light_with_full_final" => NsgsErrorEvaluation::LightWithFullFinal,
                        _ => {
                            return Err(self.error(
                                &none,
                                "solver.error_evaluation".into(),
                                format!("unknown error evaluation `{e}` (full, light_with_full_final)"),
                            ));
                        }
                    };
                }
                if let Some(t) = v.threads {
                    nsgs.parallelism = if t == 0 { Parallelism::Sequential } else { Parallelism::Rayon { threads: t } };
                }
                nsgs_check(&nsgs).map_err(|(k, r)| self.error(&none, format!("solver.{k}"), r))?;
                Fc3dMethod::Nsgs(nsgs)
            }
            "nsn-ac" | "prox" => {
                let nsgs_only = [
                    ("relaxation", v.relaxation.is_some()),
                    ("anderson_memory", v.anderson_memory.is_some()),
                    ("anderson_period", v.anderson_period.is_some()),
                    ("plain_fallback_period", v.plain_fallback_period.is_some()),
                    ("cold_restart", v.cold_restart.is_some()),
                    ("plain_check_sweep", v.plain_check_sweep.is_some()),
                    ("error_evaluation", v.error_evaluation.is_some()),
                    ("threads", v.threads.is_some()),
                ];
                if let Some((k, _)) = nsgs_only.iter().find(|(_, set)| *set) {
                    return Err(self.error(&none, format!("solver.{k}"), format!("not an option of `{method_name}`")));
                }
                if let Some(t) = v.tolerance
                    && !(t.is_finite() && t > 0.0)
                {
                    return Err(self.error(&none, "solver.tolerance".into(), "must be positive and finite"));
                }
                if v.max_iterations == Some(0) {
                    return Err(self.error(&none, "solver.max_iterations".into(), "must be at least 1"));
                }
                Fc3dMethod::from_name(method_name, v.tolerance, v.max_iterations)
                    .ok_or_else(|| self.error(&none, "solver.method".into(), "unknown method"))?
            }
            other => {
                return Err(self.error(
                    &none,
                    "solver.method".into(),
                    format!("unknown method `{other}` ({})", Fc3dMethod::NAMES.join(", ")),
                ));
            }
        };
        o = o.with_method(method);
        if let Some(f) = v.factored_delassus {
            o = o.with_factored_delassus(f);
        }
        if let Some(b) = v.order_by_height {
            o = o.with_order_by_height(b);
        }
        if let Some(t) = v.newton_tolerance {
            o.newton_tolerance = t;
        }
        if let Some(k) = v.newton_max_iterations {
            if k == 0 {
                return Err(self.error(&none, "solver.newton_max_iterations".into(), "must be at least 1"));
            }
            o.newton_max_iterations = k;
        }
        let factor = v.nonconvergence_factor.unwrap_or(SceneNonConvergence::DEFAULT_FACTOR);
        let policy = match v.on_nonconvergence.as_deref().unwrap_or("fail_above") {
            "fail_above" => SceneNonConvergence::FailAbove { factor },
            "fail" => SceneNonConvergence::Fail,
            "continue" => SceneNonConvergence::Continue,
            p => {
                return Err(self.error(
                    &none,
                    "solver.on_nonconvergence".into(),
                    format!("unknown policy `{p}` (fail_above, fail, continue)"),
                ));
            }
        };
        o = o.with_policy(policy);
        o.validate().map_err(|e| self.error(&none, option_key(&e), e))?;
        Ok(o)
    }

    /// The scene builder of the file: options, materials, statics, bodies (the `[[body]]`
    /// entries, then the generated spheres), joints and stops.
    ///
    /// # Errors
    /// [`MechanicsError::SceneFile`] naming the file, the line of the offending table and its
    /// key: unknown shape, method, policy, side or material; a missing or extra shape key; a
    /// density, mass or inertia that is not positive and finite; a material out of range; a
    /// joint on a missing body; a generator that cannot place its spheres.
    pub fn builder(&self) -> Result<SceneBuilder, MechanicsError> {
        let options = self.options()?;
        if self.output.every == 0 {
            return Err(self.error(&(0..0), "output.every".into(), "must be at least 1"));
        }
        if let Some(q) = self.output.quantities.iter().find(|q| !OUTPUT_QUANTITIES.contains(&q.as_str())) {
            return Err(self.error(
                &(0..0),
                "output.quantities".into(),
                format!("unknown quantity `{q}` ({})", OUTPUT_QUANTITIES.join(", ")),
            ));
        }
        let mut materials: HashMap<&str, Material> = HashMap::new();
        for (name, m) in &self.materials {
            let material = Material::new(m.get_ref().friction, m.get_ref().restitution).map_err(|e| {
                let field = match &e {
                    MechanicsError::Kernel(nonsmooth_kernel::KernelError::InvalidParameter {
                        name: "restitution",
                        ..
                    }) => "restitution",
                    _ => "friction",
                };
                self.error(&m.span(), format!("materials.{name}.{field}"), e)
            })?;
            materials.insert(name.as_str(), material);
        }
        let material = |name: &Option<String>, span: &Range<usize>, key: &str| -> Result<Material, MechanicsError> {
            match name {
                None => Ok(materials.get("default").copied().unwrap_or_default()),
                Some(n) => materials
                    .get(n.as_str())
                    .copied()
                    .ok_or_else(|| self.error(span, format!("{key}.material"), format!("no material `{n}`"))),
            }
        };
        let mut b = SceneBuilder::new().with_options(options);
        for (i, p) in self.material_pairs.iter().enumerate() {
            let (span, e) = (p.span(), p.get_ref());
            let key = format!("material_pair[{i}]");
            let mut pair = [Material::default(); 2];
            for (slot, (k, name)) in pair.iter_mut().zip([(".a", &e.a), (".b", &e.b)]) {
                *slot = *materials
                    .get(name.as_str())
                    .ok_or_else(|| self.error(&span, format!("{key}{k}"), format!("no material `{name}`")))?;
            }
            let law = Material::new(e.friction, e.restitution).map_err(|x| {
                let field = if x.to_string().contains("restitution") { "restitution" } else { "friction" };
                self.error(&span, format!("{key}.{field}"), x)
            })?;
            b.set_pair_law(pair[0], pair[1], law);
        }
        for (i, s) in self.statics.iter().enumerate() {
            let (span, e) = (s.span(), s.get_ref());
            let key = format!("static[{i}]");
            let m = material(&e.material, &span, &key)?;
            let err = |k: &str, r: String| self.error(&span, format!("{key}{k}"), r);
            match e.shape.as_str() {
                "half_space" => {
                    if e.orientation.is_some() || e.axis_angle.is_some() || e.rotation.is_some() {
                        let pose =
                            pose(e.position, e.orientation, e.axis_angle, e.rotation).map_err(|(k, r)| err(k, r))?;
                        if e.normal.is_some() {
                            return Err(err(".normal", "give a normal or an orientation, not both".into()));
                        }
                        b.add_static(Shape::HalfSpace, pose, m).map_err(|x| err("", x.to_string()))?;
                    } else {
                        b.add_wall(e.position, e.normal.unwrap_or([0.0, 0.0, 1.0]), m)
                            .map_err(|x| err(".normal", x.to_string()))?;
                    }
                }
                "open_box" => {
                    let side = e.side.ok_or_else(|| err(".side", "an open box needs `side`".into()))?;
                    b.add_open_box(side, m).map_err(|x| err(".side", x.to_string()))?;
                }
                _ => {
                    let keys = ShapeKeys {
                        shape: e.shape.clone(),
                        radius: e.radius,
                        half_extents: e.half_extents,
                        half_length: e.half_length,
                        half_height: e.half_height,
                        points: e.points.clone(),
                        triangles: e.triangles.clone(),
                        side: e.side,
                    };
                    let shape = make_shape(&keys, true).map_err(|(k, r)| err(k, r))?;
                    if e.normal.is_some() {
                        return Err(err(".normal", "only a half-space has a normal".into()));
                    }
                    let pose = pose(e.position, e.orientation, e.axis_angle, e.rotation).map_err(|(k, r)| err(k, r))?;
                    b.add_static(shape, pose, m).map_err(|x| err("", x.to_string()))?;
                }
            }
        }
        for (i, s) in self.bodies.iter().enumerate() {
            let (span, e) = (s.span(), s.get_ref());
            let key = format!("body[{i}]");
            let err = |k: &str, r: String| self.error(&span, format!("{key}{k}"), r);
            let keys = ShapeKeys {
                shape: e.shape.clone(),
                radius: e.radius,
                half_extents: e.half_extents,
                half_length: e.half_length,
                half_height: e.half_height,
                points: e.points.clone(),
                triangles: None,
                side: None,
            };
            let shape = make_shape(&keys, false).map_err(|(k, r)| err(k, r))?;
            let spec = match (e.density, e.mass, e.inertia) {
                (Some(rho), None, None) => BodySpec::new(shape, rho).map_err(|x| err(".density", x.to_string()))?,
                (None, Some(mass), Some(inertia)) => {
                    if !(mass.is_finite() && mass > 0.0) {
                        return Err(err(".mass", format!("{mass} must be positive and finite")));
                    }
                    BodySpec::with_mass_properties(shape, mass, inertia).map_err(|x| err(".inertia", x.to_string()))?
                }
                (None, Some(_), None) => return Err(err(".inertia", "a mass needs an inertia".into())),
                (None, None, Some(_)) => return Err(err(".mass", "an inertia needs a mass".into())),
                (None, None, None) => return Err(err(".density", "give a density, or a mass and an inertia".into())),
                _ => return Err(err(".density", "give a density or a mass and an inertia, not both".into())),
            };
            let orientation = match (e.orientation, e.axis_angle) {
                (Some(_), Some(_)) => {
                    return Err(err(".axis_angle", "give an orientation or an axis-angle, not both".into()));
                }
                (Some([w, x, y, z]), None) => Quaternion::new(w, x, y, z),
                (None, Some([x, y, z, a])) => {
                    Quaternion::from_axis_angle([x, y, z], a).map_err(|x| err(".axis_angle", x.to_string()))?
                }
                (None, None) => Quaternion::identity(),
            };
            let m = material(&e.material, &span, &key)?;
            b.add_body(
                spec.with_position(e.position)
                    .with_orientation(orientation)
                    .with_velocity(e.velocity)
                    .with_angular_velocity(e.angular_velocity)
                    .with_material(m),
            );
        }
        let mut generated = 0usize;
        for (i, g) in self.generators.iter().enumerate() {
            let (span, e) = (g.span(), g.get_ref());
            let key = format!("generate[{i}]");
            generated = generated.saturating_add(e.count);
            if generated > MAX_GENERATED {
                return Err(self.error(
                    &span,
                    format!("{key}.count"),
                    format!("more than {MAX_GENERATED} generated bodies"),
                ));
            }
            let m = material(&e.material, &span, &key)?;
            let spheres = generate(e).map_err(|(k, r)| self.error(&span, format!("{key}{k}"), r))?;
            for (p, r) in spheres {
                let shape = Shape::sphere(r).map_err(|x| self.error(&span, format!("{key}.radius"), x))?;
                let spec =
                    BodySpec::new(shape, e.density).map_err(|x| self.error(&span, format!("{key}.density"), x))?;
                b.add_body(spec.with_position(p).with_velocity(e.velocity).with_material(m));
            }
        }
        for (i, j) in self.joints.iter().enumerate() {
            let (span, e) = (j.span(), j.get_ref());
            let key = format!("joint[{i}]");
            let err = |k: &str, r: String| self.error(&span, format!("{key}{k}"), r);
            let need =
                |v: Option<Vec3>, k: &str| v.ok_or_else(|| err(k, format!("a {} joint needs `{}`", e.kind, &k[1..])));
            let kind = match e.kind.as_str() {
                "ball" => {
                    if e.axis.is_some() {
                        return Err(err(".axis", "a ball joint has no axis".into()));
                    }
                    SceneJoint::Ball { point: need(e.point, ".point")? }
                }
                "pivot" => SceneJoint::Pivot { point: need(e.point, ".point")?, axis: need(e.axis, ".axis")? },
                "prismatic" => {
                    if e.point.is_some() {
                        return Err(err(".point", "a prismatic joint has no point".into()));
                    }
                    SceneJoint::Prismatic { axis: need(e.axis, ".axis")? }
                }
                k => return Err(err(".kind", format!("unknown joint kind `{k}` (ball, pivot, prismatic)"))),
            };
            let n = b.bodies().len();
            for (k, body) in [(".body", Some(e.body)), (".other", e.other)] {
                if let Some(body) = body
                    && body >= n
                {
                    return Err(err(k, format!("no body {body} (the scene has {n} bodies)")));
                }
            }
            b.add_joint(kind, e.body, e.other).map_err(|x| err("", x.to_string()))?;
            if e.collide == Some(false) {
                let Some(other) = e.other else {
                    return Err(err(".collide", "a joint with the ground has no pair of bodies to exclude".into()));
                };
                b.disable_collisions(e.body, other).map_err(|x| err(".collide", x.to_string()))?;
            }
        }
        for (i, p) in self.no_contacts.iter().enumerate() {
            let (span, e) = (p.span(), p.get_ref());
            let key = format!("no_contact[{i}].bodies");
            let n = b.bodies().len();
            if let Some(&missing) = e.bodies.iter().find(|&&k| k >= n) {
                return Err(self.error(&span, key, format!("no body {missing} (the scene has {n} bodies)")));
            }
            b.disable_collisions(e.bodies[0], e.bodies[1]).map_err(|x| self.error(&span, key, x))?;
        }
        for (i, s) in self.joint_stops.iter().enumerate() {
            let (span, e) = (s.span(), s.get_ref());
            let key = format!("joint_stop[{i}]");
            let side = match e.side.as_str() {
                "lower" => StopSide::Lower,
                "upper" => StopSide::Upper,
                k => {
                    return Err(self.error(&span, format!("{key}.side"), format!("unknown side `{k}` (lower, upper)")));
                }
            };
            b.add_joint_stop(e.joint, side, e.stop, e.restitution).map_err(|x| self.error(&span, key.clone(), x))?;
        }
        Ok(b)
    }

    /// Builds the scene at `t = 0` ([`SceneFile::builder`], then [`SceneBuilder::build`]).
    ///
    /// # Errors
    /// The errors of [`SceneFile::builder`]; the errors of [`SceneBuilder::build`] as
    /// [`MechanicsError::SceneFile`] (key `scene`).
    pub fn build(&self) -> Result<Scene, MechanicsError> {
        self.builder()?.build().map_err(|e| self.error(&(0..0), "scene".into(), e))
    }

    /// The file this was read from, if any.
    pub fn path(&self) -> Option<&Path> {
        self.origin.path.as_deref()
    }
}

impl std::str::FromStr for SceneFile {
    type Err = MechanicsError;

    /// Parses a scene file from TOML text; errors name `<string>` as the file.
    ///
    /// # Errors
    /// [`MechanicsError::SceneFile`] for a syntax error, an unknown key or a value of the wrong
    /// type, with the line and the key.
    fn from_str(text: &str) -> Result<Self, MechanicsError> {
        Self::parse(text, None)
    }
}

impl Origin {
    fn error(&self, line: usize, key: String, reason: String) -> MechanicsError {
        MechanicsError::SceneFile {
            path: self.path.clone().unwrap_or_else(|| PathBuf::from("<string>")),
            line,
            key,
            reason,
        }
    }
}

/// The 1-based line of byte offset `offset` in `text`.
fn line_of(text: &str, offset: usize) -> usize {
    let end = offset.min(text.len());
    1 + text.as_bytes()[..end].iter().filter(|&&c| c == b'\n').count()
}

/// The text at `span` as a key: its first line, trimmed, at most 60 bytes.
fn key_at(text: &str, span: Range<usize>) -> String {
    let (start, end) = (span.start.min(text.len()), span.end.min(text.len()));
    let s = text.get(start..end).unwrap_or("");
    let s = s.lines().next().unwrap_or("").trim();
    let mut cut = s.len().min(60);
    while !s.is_char_boundary(cut) {
        cut -= 1;
    }
    s[..cut].to_owned()
}

/// The `[simulation]`/`[solver]` key of an option error of [`SceneOptions::validate`].
fn option_key(e: &MechanicsError) -> String {
    let name = match e {
        MechanicsError::Kernel(nonsmooth_kernel::KernelError::InvalidParameter { name, .. }) => *name,
        _ => "",
    };
    match name {
        "time step" => "simulation.h",
        "final time" => "simulation.t_end",
        "theta" => "simulation.theta",
        "gravity" => "simulation.gravity",
        "margin" => "simulation.margin",
        "newton tolerance" => "solver.newton_tolerance",
        "non-convergence factor" => "solver.nonconvergence_factor",
        _ => "simulation",
    }
    .to_owned()
}

/// Checks the NSGS options a file can set; the error names the key.
fn nsgs_check(o: &nonsmooth_numerics::fc::nsgs::NsgsOptions) -> Result<(), (&'static str, String)> {
    if !(o.tolerance.is_finite() && o.tolerance > 0.0) {
        return Err(("tolerance", format!("{} must be positive and finite", o.tolerance)));
    }
    if o.max_iterations == 0 {
        return Err(("max_iterations", "must be at least 1".into()));
    }
    if !(o.relaxation > 0.0 && o.relaxation < 2.0) {
        return Err(("relaxation", format!("{} must lie in (0, 2)", o.relaxation)));
    }
    if o.anderson_memory > 8 {
        return Err(("anderson_memory", format!("{} is above 8", o.anderson_memory)));
    }
    if o.anderson_period == 0 {
        return Err(("anderson_period", "must be at least 1".into()));
    }
    Ok(())
}

/// The `[solver]` section of `o`, `None` when a file cannot express it.
fn solver_section(o: &SceneOptions) -> Option<SolverSection> {
    let Fc3dMethod::Nsgs(n) = &o.method else { return None };
    let method = match n.local_solver {
        NsgsLocalSolver::AlartCurnier => "nsgs",
        NsgsLocalSolver::Projection => "nsgs-projection",
        NsgsLocalSolver::Quartic => "nsgs-quartic",
        _ => return None,
    };
    let (policy, factor) = match o.on_nonconvergence {
        SceneNonConvergence::FailAbove { factor } => ("fail_above", Some(factor)),
        SceneNonConvergence::Fail => ("fail", None),
        SceneNonConvergence::Continue => ("continue", None),
    };
    let threads = match n.parallelism {
        Parallelism::Sequential => 0,
        Parallelism::Rayon { threads } if threads > 0 => threads,
        _ => return None,
    };
    let section = SolverSection {
        method: Some(method.into()),
        tolerance: Some(n.tolerance),
        max_iterations: Some(n.max_iterations),
        relaxation: Some(n.relaxation),
        anderson_memory: Some(n.anderson_memory),
        anderson_period: Some(n.anderson_period),
        plain_fallback_period: Some(n.plain_fallback_period),
        cold_restart: Some(n.cold_restart),
        plain_check_sweep: Some(n.plain_check_sweep),
        error_evaluation: Some(
            match n.error_evaluation {
                NsgsErrorEvaluation::Full => "full",
                NsgsErrorEvaluation::LightWithFullFinal => "light_with_full_final",
                _ => return None,
            }
            .into(),
        ),
        threads: Some(threads),
        factored_delassus: Some(o.factored_delassus),
        order_by_height: Some(o.order_by_height),
        newton_tolerance: Some(o.newton_tolerance),
        newton_max_iterations: Some(o.newton_max_iterations),
        on_nonconvergence: Some(policy.into()),
        nonconvergence_factor: factor,
    };
    // The section must give back exactly these options (no shuffling, default schedule, ...).
    let file = SceneFile { solver: section.clone(), ..SceneFile::default() };
    let back = file.options().ok()?;
    match &back.method {
        Fc3dMethod::Nsgs(m) if m == n => Some(section),
        _ => None,
    }
}

/// The shape keys of `shape`.
fn shape_keys(shape: &Shape) -> ShapeKeys {
    let mut k = ShapeKeys::default();
    match shape {
        Shape::Sphere { radius } => {
            k.shape = "sphere".into();
            k.radius = Some(*radius);
        }
        Shape::HalfSpace => k.shape = "half_space".into(),
        Shape::Box { half_extents } => {
            k.shape = "box".into();
            k.half_extents = Some(*half_extents);
        }
        Shape::Capsule { radius, half_length } => {
            k.shape = "capsule".into();
            k.radius = Some(*radius);
            k.half_length = Some(*half_length);
        }
        Shape::Cylinder { radius, half_height } => {
            k.shape = "cylinder".into();
            k.radius = Some(*radius);
            k.half_height = Some(*half_height);
        }
        Shape::ConvexHull(h) => {
            k.shape = "convex_hull".into();
            k.points = Some(h.vertices());
        }
        Shape::TriangleMesh(m) => {
            k.shape = "mesh".into();
            k.points = Some(m.vertices());
            k.triangles = Some(m.indices().to_vec());
        }
    }
    k
}

/// The shape of `keys` (`statics`: half-spaces and meshes allowed); the error names the key.
fn make_shape(keys: &ShapeKeys, statics: bool) -> Result<Shape, (&'static str, String)> {
    let need_f = |v: Option<f64>, k: &'static str| v.ok_or((k, format!("a {} needs `{}`", keys.shape, &k[1..])));
    let used: [(&'static str, bool); 7] = [
        (".radius", keys.radius.is_some()),
        (".half_extents", keys.half_extents.is_some()),
        (".half_length", keys.half_length.is_some()),
        (".half_height", keys.half_height.is_some()),
        (".points", keys.points.is_some()),
        (".triangles", keys.triangles.is_some()),
        (".side", keys.side.is_some()),
    ];
    let allowed: &[&str] = match keys.shape.as_str() {
        "sphere" => &[".radius"],
        "box" => &[".half_extents"],
        "capsule" => &[".radius", ".half_length"],
        "cylinder" => &[".radius", ".half_height"],
        "convex_hull" => &[".points"],
        "mesh" if statics => &[".points", ".triangles"],
        "half_space" if statics => &[],
        "mesh" | "half_space" | "open_box" => {
            return Err((".shape", format!("a {} can only be static", keys.shape)));
        }
        other => {
            let list = if statics {
                "sphere, box, capsule, cylinder, convex_hull, half_space, mesh, open_box"
            } else {
                "sphere, box, capsule, cylinder, convex_hull"
            };
            return Err((".shape", format!("unknown shape `{other}` ({list})")));
        }
    };
    if let Some((k, _)) = used.iter().find(|(k, set)| *set && !allowed.contains(k)) {
        return Err((k, format!("not a key of a {}", keys.shape)));
    }
    let e = |k: &'static str| move |x: MechanicsError| (k, x.to_string());
    match keys.shape.as_str() {
        "sphere" => Shape::sphere(need_f(keys.radius, ".radius")?).map_err(e(".radius")),
        "box" => Shape::cuboid(keys.half_extents.ok_or((".half_extents", "a box needs `half_extents`".into()))?)
            .map_err(e(".half_extents")),
        "capsule" => Shape::capsule(need_f(keys.radius, ".radius")?, need_f(keys.half_length, ".half_length")?)
            .map_err(e(".radius")),
        "cylinder" => Shape::cylinder(need_f(keys.radius, ".radius")?, need_f(keys.half_height, ".half_height")?)
            .map_err(e(".radius")),
        "convex_hull" => {
            Shape::convex_hull(keys.points.as_deref().ok_or((".points", "a convex hull needs `points`".into()))?)
                .map_err(e(".points"))
        }
        "mesh" => Shape::triangle_mesh(
            keys.points.as_deref().ok_or((".points", "a mesh needs `points`".into()))?,
            keys.triangles.as_deref().ok_or((".triangles", "a mesh needs `triangles`".into()))?,
        )
        .map_err(e(".triangles")),
        _ => Ok(Shape::HalfSpace),
    }
}

/// A static pose from a position and at most one of a quaternion, an axis-angle and a rotation
/// matrix (a rotation matrix is used as given, after a check that it is a rotation).
fn pose(
    position: Vec3,
    orientation: Option<[f64; 4]>,
    axis_angle: Option<[f64; 4]>,
    rotation: Option<[[f64; 3]; 3]>,
) -> Result<Pose, (&'static str, String)> {
    let given = [orientation.is_some(), axis_angle.is_some(), rotation.is_some()].iter().filter(|x| **x).count();
    if given > 1 {
        return Err((".rotation", "give one of orientation, axis_angle, rotation".into()));
    }
    let rotation = if let Some([w, x, y, z]) = orientation {
        Quaternion::new(w, x, y, z).normalized().map_err(|e| (".orientation", e.to_string()))?.to_rotation_matrix()
    } else if let Some([x, y, z, a]) = axis_angle {
        Quaternion::from_axis_angle([x, y, z], a).map_err(|e| (".axis_angle", e.to_string()))?.to_rotation_matrix()
    } else if let Some(r) = rotation {
        if !crate::geometry::shapes::is_rotation(&r, 1e-9) {
            return Err((".rotation", "not a rotation matrix".into()));
        }
        r
    } else {
        crate::lie::identity3()
    };
    Ok(Pose { position, rotation })
}

/// The spheres of a generator: centres and radii, in order.
fn generate(g: &GenerateEntry) -> Result<Vec<(Vec3, f64)>, (&'static str, String)> {
    let [r_min, r_max] = g.radius;
    if !(r_min.is_finite() && r_max.is_finite() && r_min > 0.0 && r_min <= r_max) {
        return Err((".radius", format!("[{r_min}, {r_max}] must satisfy 0 < r_min ≤ r_max < ∞")));
    }
    let (lo, hi) = (g.box_min, g.box_max);
    if lo.iter().chain(&hi).any(|x| !x.is_finite()) {
        return Err((".box_min", "the box corners must be finite".into()));
    }
    if (0..3).any(|i| hi[i] - lo[i] < 2.0 * r_max) {
        return Err((".box_max", format!("the box is narrower than a sphere of radius {r_max}")));
    }
    if g.count > MAX_GENERATED {
        return Err((".count", format!("{} is above {MAX_GENERATED}", g.count)));
    }
    let mut state = g.seed;
    let radius = |state: &mut u64| if r_max - r_min <= 0.0 { r_min } else { r_min + (r_max - r_min) * uniform(state) };
    match g.kind.as_str() {
        "lattice" => {
            let d = 2.2 * r_max;
            let cells = |i: usize| (((hi[i] - lo[i]) / d).floor() as usize).max(1);
            let (nx, ny, nz) = (cells(0), cells(1), cells(2));
            let capacity = nx.saturating_mul(ny).saturating_mul(nz);
            if g.count > capacity {
                return Err((".count", format!("{} spheres do not fit on the box's {nx}×{ny}×{nz} lattice", g.count)));
            }
            Ok((0..g.count)
                .map(|k| {
                    let (ix, iy, iz) = (k % nx, (k / nx) % ny, k / (nx * ny));
                    let jx = (uniform(&mut state) - 0.5) * 0.1 * r_max;
                    let jy = (uniform(&mut state) - 0.5) * 0.1 * r_max;
                    let r = radius(&mut state);
                    let p = [
                        lo[0] + (ix as f64 + 0.5) * d + jx,
                        lo[1] + (iy as f64 + 0.5) * d + jy,
                        lo[2] + (iz as f64 + 0.5) * d,
                    ];
                    (p, r)
                })
                .collect())
        }
        "random" => {
            // Rejection sampling on a grid of cells of side 2 r_max: a new sphere is checked
            // against the spheres of the 27 cells around its centre.
            let cell = 2.0 * r_max;
            let key = |p: &Vec3| -> [i64; 3] { std::array::from_fn(|i| ((p[i] - lo[i]) / cell).floor() as i64) };
            let mut grid: HashMap<[i64; 3], Vec<usize>> = HashMap::new();
            let mut out: Vec<(Vec3, f64)> = Vec::with_capacity(g.count);
            let budget = 100usize.saturating_mul(g.count).max(1000);
            let mut tries = 0usize;
            while out.len() < g.count {
                tries += 1;
                if tries > budget {
                    return Err((
                        ".count",
                        format!("placed {} of {} spheres in {budget} tries: the box is too full", out.len(), g.count),
                    ));
                }
                let r = radius(&mut state);
                let p: Vec3 = std::array::from_fn(|i| lo[i] + r + (hi[i] - lo[i] - 2.0 * r) * uniform(&mut state));
                let k = key(&p);
                let mut free = true;
                'search: for dx in -1..=1 {
                    for dy in -1..=1 {
                        for dz in -1..=1 {
                            if let Some(list) = grid.get(&[k[0] + dx, k[1] + dy, k[2] + dz]) {
                                for &j in list {
                                    let (q, s) = out[j];
                                    let d2: f64 = (0..3).map(|i| (p[i] - q[i]) * (p[i] - q[i])).sum();
                                    if d2 < (r + s) * (r + s) {
                                        free = false;
                                        break 'search;
                                    }
                                }
                            }
                        }
                    }
                }
                if free {
                    grid.entry(k).or_default().push(out.len());
                    out.push((p, r));
                }
            }
            Ok(out)
        }
        k => Err((".kind", format!("unknown generator `{k}` (lattice, random)"))),
    }
}

impl SceneBuilder {
    /// Writes the scene file of this builder at `path` ([`SceneFile::from_builder`], then
    /// [`SceneFile::to_path`]); [`Scene::from_file`] reads it back.
    ///
    /// # Errors
    /// The errors of [`SceneFile::from_builder`] and [`SceneFile::to_path`].
    pub fn to_file(&self, path: impl AsRef<Path>) -> Result<(), MechanicsError> {
        SceneFile::from_builder(self)?.to_path(path)
    }
}

impl Scene {
    /// Reads the scene file at `path` and builds its scene ([`SceneFile::from_path`], then
    /// [`SceneFile::build`]); the file's run and output settings are returned with it.
    ///
    /// # Errors
    /// The errors of [`SceneFile::from_path`] and [`SceneFile::build`].
    pub fn from_file(path: impl AsRef<Path>) -> Result<(Scene, SceneFile), MechanicsError> {
        let file = SceneFile::from_path(path)?;
        Ok((file.build()?, file))
    }
}
