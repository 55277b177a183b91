//! A ParaView time series of a scene: the bodies, their centres, the contacts and the static
//! shapes of every output frame, as VTK XML PolyData files (`.vtp`) strung in time by ParaView
//! collections (`.pvd`).
//!
//! The format is the one of the VTK file formats documentation ("VTK XML Formats", `PolyData`
//! and the `Collection` of the ParaView data reader): `version="1.0"`, little endian,
//! `header_type="UInt64"`, every data array inline in the `binary` format (the base64 encoding
//! of one stream holding the byte count of the data as a `UInt64`, then the data).
//!
//! # Files
//!
//! [`VtkSeries::create`]`(dir, name)` writes into `dir` (which must exist):
//!
//! | file | content |
//! |---|---|
//! | `name.pvd` | every dataset of every frame, `part` 0 bodies, 1 centres, 2 contacts, 3 statics |
//! | `name_bodies.pvd`, `name_centres.pvd`, `name_contacts.pvd` | one dataset kind each |
//! | `name_bodies_NNNNNN.vtp` | frame `NNNNNN` (from 0): the surfaces of the bodies |
//! | `name_centres_NNNNNN.vtp` | one point per body, glyph-ready |
//! | `name_contacts_NNNNNN.vtp` | one point per contact, glyph-ready |
//! | `name_statics.vtp` | the static shapes, written with the first frame and listed at every time |
//!
//! Every collection is rewritten (to a temporary file, then renamed over the old one) after each
//! frame, so an interrupted run leaves a valid series of the frames written so far. Open
//! `name.pvd` for everything at once (one block per dataset), or a per-kind collection to apply
//! a filter (e.g. `Glyph`) to one kind.
//!
//! # Bodies as surfaces
//!
//! The bodies are written as tessellated surfaces in their current pose (spheres: an
//! icosahedron subdivided [`VtkSeriesOptions::sphere_subdivisions`] times and projected on the
//! sphere; boxes: six quadrilaterals; capsules: two hemispheres joined by a cylinder), so that
//! they show as they are with no filter. Points are a better fit for glyphs only for spheres:
//! ParaView's `Glyph` filter orients a glyph by one vector, not by a rotation, so a box or a
//! capsule drawn from a point could not show its orientation. The surfaces are in single
//! precision (they are for the eye); the exact state is in the centres file, in double
//! precision. Point data of the surfaces (each vertex carries its body's values): `body` (index),
//! `shape` (0 sphere, 1 box, 2 capsule), `velocity` (of the centre) and `angular_velocity`
//! (world frame, `ω = R Ω`).
//!
//! # Centres
//!
//! Points: the centres of mass. Point data (double precision): `body`, `shape`, `orientation`
//! (unit quaternion `(p0, p1, p2, p3)`, scalar first), `velocity`, `angular_velocity` (world
//! frame), `angular_velocity_body` (body frame `Ω`, the state's), `radius` (sphere and capsule
//! radius, box half diagonal), `extents` (box half extents, `(0, 0, half length)` of a capsule).
//! A `Glyph` of spheres scaled by `radius` draws a sphere pile.
//!
//! # Contacts
//!
//! Points: the midpoints `(P₁ + P₂) / 2` of the contacts of the last step
//! ([`Scene::contacts`], [`ContactView`]). Point data (double precision): `normal` (unit, from
//! the partner to body 1), `gap`, `normal_force` `λ_N n / h` and `tangential_force`
//! `(λ_T1 t₁ + λ_T2 t₂) / h` (the mean forces on body 1 over the step, world vectors, N),
//! `impulse` (`λ = (λ_N, λ_T1, λ_T2)`, the step's impulse in the local frame, N·s),
//! `relative_velocity` (`u = (u_N, u_T1, u_T2)`, local frame), `body`, `partner_body` (−1 for a
//! static shape), `partner_static` (−1 for a body), `active` (1 when the step's one-step problem
//! included the contact). Glyphs of arrows oriented by `normal_force` and scaled by its
//! magnitude draw the force network.
//!
//! # Static shapes
//!
//! Polygons, in the order of [`Scene::statics`]; a half-space is drawn as the square of its
//! plane centred at the projection of the centre of the scene's bounding box at the first frame,
//! of half side [`VtkSeriesOptions::half_space_extent`] (default: 1.25 times the half diagonal
//! of that box). Cell data: `static` (index), `shape` (0 sphere, 1 box, 2 capsule, 3 half-space).
//!
//! # Example
//!
//! ```no_run
//! use nonsmooth_mechanics::output::vtk::VtkSeries;
//! use nonsmooth_mechanics::pile::SpherePile;
//! use nonsmooth_mechanics::scene::SceneOptions;
//! # fn main() -> Result<(), nonsmooth_mechanics::MechanicsError> {
//! let mut scene = SpherePile::with_spheres(100).build(SceneOptions::default())?;
//! let mut series = VtkSeries::create("out", "pile")?;
//! series.write_frame(&scene)?;
//! while scene.has_next_step() {
//!     scene.step()?;
//!     if scene.steps_done() % 20 == 0 {
//!         series.write_frame(&scene)?;
//!     }
//! }
//! # Ok(())
//! # }
//! ```

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use nonsmooth_kernel::KernelError;

use crate::MechanicsError;
use crate::geometry::{Pose, Shape};
use crate::lie::{Mat3, Quaternion, Vec3};
use crate::scene::{ContactPartner, ContactView, Scene};

use super::io_error;

/// Options of a [`VtkSeries`].
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct VtkSeriesOptions {
    /// Subdivisions of the icosahedron of a sphere: `20 · 4ᵏ` triangles (default: 1, at most 4).
    pub sphere_subdivisions: u32,
    /// Whether to write the body surfaces (default: true); the centres are always written.
    pub surfaces: bool,
    /// Half side of the square drawn for a half-space (default: `None`, 1.25 times the half
    /// diagonal of the scene's bounding box at the first frame).
    pub half_space_extent: Option<f64>,
}

impl Default for VtkSeriesOptions {
    fn default() -> Self {
        Self { sphere_subdivisions: 1, surfaces: true, half_space_extent: None }
    }
}

impl VtkSeriesOptions {
    /// Sets [`VtkSeriesOptions::sphere_subdivisions`].
    pub fn with_sphere_subdivisions(mut self, subdivisions: u32) -> Self {
        self.sphere_subdivisions = subdivisions;
        self
    }

    /// Sets [`VtkSeriesOptions::surfaces`].
    pub fn with_surfaces(mut self, surfaces: bool) -> Self {
        self.surfaces = surfaces;
        self
    }

    /// Sets [`VtkSeriesOptions::half_space_extent`].
    pub fn with_half_space_extent(mut self, extent: f64) -> Self {
        self.half_space_extent = Some(extent);
        self
    }

    fn validate(&self) -> Result<(), MechanicsError> {
        if self.sphere_subdivisions > 4 {
            return Err(KernelError::InvalidOption { name: "sphere_subdivisions", reason: "must be at most 4" }.into());
        }
        if let Some(e) = self.half_space_extent
            && (e.is_nan() || e <= 0.0 || e.is_infinite())
        {
            return Err(KernelError::InvalidOption {
                name: "half_space_extent",
                reason: "must be positive and finite",
            }
            .into());
        }
        Ok(())
    }
}

/// The datasets of a frame, in the order of their `part` numbers in `name.pvd`.
const KINDS: [&str; 4] = ["bodies", "centres", "contacts", "statics"];

/// A ParaView time series of a scene being written (module documentation).
#[derive(Debug)]
pub struct VtkSeries {
    dir: PathBuf,
    name: String,
    options: VtkSeriesOptions,
    /// Times of the frames written.
    times: Vec<f64>,
    /// The unit sphere: vertices and triangles.
    sphere: Mesh,
    /// The file being built.
    text: String,
    /// Raw bytes of the data array being encoded.
    bytes: Vec<u8>,
    mesh: Mesh,
}

/// A surface: vertices, polygon connectivity and offsets (the end of each polygon).
#[derive(Clone, Debug, Default)]
struct Mesh {
    points: Vec<Vec3>,
    connectivity: Vec<i32>,
    offsets: Vec<i32>,
}

impl Mesh {
    fn clear(&mut self) {
        self.points.clear();
        self.connectivity.clear();
        self.offsets.clear();
    }

    /// Appends a polygon of the vertices `base + local` (counter-clockwise seen from outside).
    fn polygon(&mut self, base: usize, local: &[usize]) {
        self.connectivity.extend(local.iter().map(|&k| (base + k) as i32));
        self.offsets.push(self.connectivity.len() as i32);
    }
}

impl VtkSeries {
    /// A series named `name` in the existing directory `dir`, with default options; writes the
    /// (empty) collections at once, so that a directory that cannot be written is reported
    /// before the run.
    ///
    /// # Errors
    /// [`MechanicsError::Io`] when `dir` does not exist, is not a directory or cannot be
    /// written; [`KernelError::InvalidOption`] for a name that is empty or holds a path
    /// separator.
    pub fn create(dir: impl AsRef<Path>, name: &str) -> Result<Self, MechanicsError> {
        Self::with_options(dir, name, VtkSeriesOptions::default())
    }

    /// [`VtkSeries::create`] with options.
    ///
    /// # Errors
    /// As [`VtkSeries::create`]; [`KernelError::InvalidOption`] for bad options.
    pub fn with_options(dir: impl AsRef<Path>, name: &str, options: VtkSeriesOptions) -> Result<Self, MechanicsError> {
        options.validate()?;
        let dir = dir.as_ref().to_path_buf();
        if name.is_empty() || name.contains(['/', '\\']) || name == "." || name == ".." {
            return Err(KernelError::InvalidOption {
                name: "series name",
                reason: "must be a non-empty file name without path separators",
            }
            .into());
        }
        let metadata = std::fs::metadata(&dir).map_err(|e| io_error(&dir, e))?;
        if !metadata.is_dir() {
            return Err(io_error(&dir, std::io::Error::new(std::io::ErrorKind::NotADirectory, "not a directory")));
        }
        let sphere = icosphere(options.sphere_subdivisions);
        let series = Self {
            dir,
            name: name.to_owned(),
            options,
            times: Vec::new(),
            sphere,
            text: String::new(),
            bytes: Vec::new(),
            mesh: Mesh::default(),
        };
        series.write_collections()?;
        Ok(series)
    }

    /// Number of frames written.
    pub fn frames(&self) -> usize {
        self.times.len()
    }

    /// The collection of all datasets, `dir/name.pvd`.
    pub fn collection_path(&self) -> PathBuf {
        self.dir.join(format!("{}.pvd", self.name))
    }

    /// The file of dataset `kind` (`"bodies"`, `"centres"`, `"contacts"`, `"statics"`) of
    /// frame `frame`, relative to the directory.
    pub fn file_name(&self, kind: &str, frame: usize) -> String {
        if kind == "statics" {
            format!("{}_statics.vtp", self.name)
        } else {
            format!("{}_{kind}_{frame:06}.vtp", self.name)
        }
    }

    /// Writes the scene's current state as the next frame, at time [`Scene::time`]: bodies,
    /// centres, the contacts of the last step and, with the first frame, the static shapes;
    /// then rewrites the collections. The caller chooses the interval between frames.
    ///
    /// # Errors
    /// [`KernelError::NonFinite`] when a body's state or a contact's impulse is not finite
    /// (nothing is written for this frame); [`MechanicsError::Io`] when a file cannot be
    /// written.
    pub fn write_frame(&mut self, scene: &Scene) -> Result<(), MechanicsError> {
        let bodies = body_states(scene)?;
        let contacts: Vec<ContactView> = scene.contacts().collect();
        if contacts.iter().any(|c| c.impulse.iter().chain(&c.point).chain(&c.partner_point).any(|x| !x.is_finite())) {
            return Err(KernelError::NonFinite { what: "contact impulse or point" }.into());
        }
        let frame = self.times.len();
        if frame == 0 {
            self.write_statics(scene, &bodies)?;
        }
        if self.options.surfaces {
            self.write_bodies(&bodies, frame)?;
        }
        self.write_centres(&bodies, frame)?;
        self.write_contacts(&contacts, frame)?;
        self.times.push(scene.time());
        self.write_collections()
    }

    /// Writes `text` to `file` in the directory.
    fn write_file(&self, file: &str) -> Result<(), MechanicsError> {
        let path = self.dir.join(file);
        std::fs::write(&path, &self.text).map_err(|e| io_error(&path, e))
    }

    /// Rewrites every collection (each to a temporary file renamed over the old one).
    fn write_collections(&self) -> Result<(), MechanicsError> {
        let mut per_kind: Vec<(String, Vec<usize>)> = vec![(format!("{}.pvd", self.name), vec![0, 1, 2, 3])];
        for (part, kind) in KINDS.iter().enumerate().take(3) {
            per_kind.push((format!("{}_{kind}.pvd", self.name), vec![part]));
        }
        for (file, parts) in per_kind {
            let mut s = String::from(
                "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"1.0\" byte_order=\"LittleEndian\">\n<Collection>\n",
            );
            for (frame, t) in self.times.iter().enumerate() {
                for &part in &parts {
                    if part == 0 && !self.options.surfaces {
                        continue;
                    }
                    let _ = writeln!(
                        s,
                        "<DataSet timestep=\"{t:?}\" group=\"\" part=\"{part}\" name=\"{}\" file=\"{}\"/>",
                        KINDS[part],
                        self.file_name(KINDS[part], frame)
                    );
                }
            }
            s.push_str("</Collection>\n</VTKFile>\n");
            let path = self.dir.join(&file);
            let temporary = self.dir.join(format!("{file}.tmp"));
            std::fs::write(&temporary, s).map_err(|e| io_error(&temporary, e))?;
            std::fs::rename(&temporary, &path).map_err(|e| io_error(&path, e))?;
        }
        Ok(())
    }

    /// The body surfaces of one frame.
    fn write_bodies(&mut self, bodies: &[BodyState], frame: usize) -> Result<(), MechanicsError> {
        let mut mesh = std::mem::take(&mut self.mesh);
        mesh.clear();
        let mut vertex_body = Vec::new();
        for (i, b) in bodies.iter().enumerate() {
            let before = mesh.points.len();
            self.tessellate(&b.shape, &b.pose, &mut mesh);
            vertex_body.extend(std::iter::repeat_n(i, mesh.points.len() - before));
        }
        let mut w = Writer::new(&mut self.text, &mut self.bytes);
        w.begin(mesh.points.len(), 0, mesh.offsets.len());
        w.points(mesh.points.iter().flat_map(|p| p.map(|x| x as f32)));
        w.begin_point_data();
        let of = |k: usize| &bodies[vertex_body[k]];
        let n = mesh.points.len();
        w.array("body", 1, (0..n).map(|k| vertex_body[k] as i32));
        w.array("shape", 1, (0..n).map(|k| shape_code(&of(k).shape)));
        w.array("velocity", 3, (0..n).flat_map(|k| of(k).velocity.map(|x| x as f32)));
        w.array("angular_velocity", 3, (0..n).flat_map(|k| of(k).angular_velocity.map(|x| x as f32)));
        w.end_point_data();
        w.polys(&mesh.connectivity, &mesh.offsets);
        w.end();
        self.mesh = mesh;
        self.write_file(&self.file_name("bodies", frame))
    }

    /// The centres of one frame.
    fn write_centres(&mut self, bodies: &[BodyState], frame: usize) -> Result<(), MechanicsError> {
        let n = bodies.len();
        let mut w = Writer::new(&mut self.text, &mut self.bytes);
        w.begin(n, n, 0);
        w.points(bodies.iter().flat_map(|b| b.pose.position));
        w.begin_point_data();
        w.array("body", 1, (0..n).map(|i| i as i32));
        w.array("shape", 1, bodies.iter().map(|b| shape_code(&b.shape)));
        w.array("orientation", 4, bodies.iter().flat_map(|b| b.orientation));
        w.array("velocity", 3, bodies.iter().flat_map(|b| b.velocity));
        w.array("angular_velocity", 3, bodies.iter().flat_map(|b| b.angular_velocity));
        w.array("angular_velocity_body", 3, bodies.iter().flat_map(|b| b.angular_velocity_body));
        w.array("radius", 1, bodies.iter().map(|b| bounding_radius(&b.shape)));
        w.array("extents", 3, bodies.iter().flat_map(|b| extents(&b.shape)));
        w.end_point_data();
        w.verts(n);
        w.end();
        self.write_file(&self.file_name("centres", frame))
    }

    /// The contacts of one frame.
    fn write_contacts(&mut self, contacts: &[ContactView], frame: usize) -> Result<(), MechanicsError> {
        let n = contacts.len();
        let mut w = Writer::new(&mut self.text, &mut self.bytes);
        w.begin(n, n, 0);
        w.points(contacts.iter().flat_map(|c| c.midpoint()));
        w.begin_point_data();
        w.array("normal", 3, contacts.iter().flat_map(|c| c.normal()));
        w.array("gap", 1, contacts.iter().map(|c| c.gap));
        w.array("normal_force", 3, contacts.iter().flat_map(|c| c.normal_force()));
        w.array("tangential_force", 3, contacts.iter().flat_map(|c| c.tangential_force()));
        w.array("impulse", 3, contacts.iter().flat_map(|c| c.impulse));
        w.array("relative_velocity", 3, contacts.iter().flat_map(|c| c.relative_velocity));
        w.array("body", 1, contacts.iter().map(|c| c.body as i32));
        let (body, fixed) = (
            |c: &ContactView| match c.partner {
                ContactPartner::Body(b) => b as i32,
                ContactPartner::Static(_) => -1,
            },
            |c: &ContactView| match c.partner {
                ContactPartner::Static(s) => s as i32,
                ContactPartner::Body(_) => -1,
            },
        );
        w.array("partner_body", 1, contacts.iter().map(body));
        w.array("partner_static", 1, contacts.iter().map(fixed));
        w.array("active", 1, contacts.iter().map(|c| i32::from(c.active)));
        w.end_point_data();
        w.verts(n);
        w.end();
        self.write_file(&self.file_name("contacts", frame))
    }

    /// The static shapes (with the first frame).
    fn write_statics(&mut self, scene: &Scene, bodies: &[BodyState]) -> Result<(), MechanicsError> {
        // The scene's bounding box: bodies and finite static shapes.
        let (mut lo, mut hi) = ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]);
        let boxes = bodies
            .iter()
            .filter_map(|b| b.shape.aabb(&b.pose))
            .chain(scene.statics().iter().filter_map(|s| s.shape.aabb(&s.pose)));
        for a in boxes {
            for k in 0..3 {
                lo[k] = lo[k].min(a.min[k]);
                hi[k] = hi[k].max(a.max[k]);
            }
        }
        let (centre, half_diagonal) = if lo[0] <= hi[0] {
            let c = [0.5 * (lo[0] + hi[0]), 0.5 * (lo[1] + hi[1]), 0.5 * (lo[2] + hi[2])];
            let d = [0.5 * (hi[0] - lo[0]), 0.5 * (hi[1] - lo[1]), 0.5 * (hi[2] - lo[2])];
            (c, (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt())
        } else {
            ([0.0; 3], 1.0)
        };
        let extent = self.options.half_space_extent.unwrap_or(1.25 * half_diagonal.max(f64::MIN_POSITIVE));
        let mut mesh = std::mem::take(&mut self.mesh);
        mesh.clear();
        let mut cell_static = Vec::new();
        for (k, s) in scene.statics().iter().enumerate() {
            let before = mesh.offsets.len();
            if let Shape::HalfSpace = s.shape {
                let r = &s.pose.rotation;
                let column = |j: usize| [r[0][j], r[1][j], r[2][j]];
                let (t1, t2, n) = (column(0), column(1), column(2));
                let p = s.pose.position;
                let along = (centre[0] - p[0]) * n[0] + (centre[1] - p[1]) * n[1] + (centre[2] - p[2]) * n[2];
                let c = [centre[0] - along * n[0], centre[1] - along * n[1], centre[2] - along * n[2]];
                let base = mesh.points.len();
                for (a, b) in [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)] {
                    mesh.points.push([
                        c[0] + extent * (a * t1[0] + b * t2[0]),
                        c[1] + extent * (a * t1[1] + b * t2[1]),
                        c[2] + extent * (a * t1[2] + b * t2[2]),
                    ]);
                }
                mesh.polygon(base, &[0, 1, 2, 3]);
            } else {
                self.tessellate(&s.shape, &s.pose, &mut mesh);
            }
            cell_static.extend(std::iter::repeat_n(k, mesh.offsets.len() - before));
        }
        let statics = scene.statics();
        let mut w = Writer::new(&mut self.text, &mut self.bytes);
        w.begin(mesh.points.len(), 0, mesh.offsets.len());
        w.points(mesh.points.iter().flatten().copied());
        w.begin_cell_data();
        w.array("static", 1, cell_static.iter().map(|&k| k as i32));
        w.array("shape", 1, cell_static.iter().map(|&k| shape_code(&statics[k].shape)));
        w.end_cell_data();
        w.polys(&mesh.connectivity, &mesh.offsets);
        w.end();
        self.mesh = mesh;
        self.write_file(&self.file_name("statics", 0))
    }

    /// Appends the surface of a finite shape at `pose` (nothing for a half-space).
    fn tessellate(&self, shape: &Shape, pose: &Pose, mesh: &mut Mesh) {
        let base = mesh.points.len();
        let place = |p: Vec3| -> Vec3 {
            let r = &pose.rotation;
            let x = pose.position;
            [
                r[0][0] * p[0] + r[0][1] * p[1] + r[0][2] * p[2] + x[0],
                r[1][0] * p[0] + r[1][1] * p[1] + r[1][2] * p[2] + x[1],
                r[2][0] * p[0] + r[2][1] * p[1] + r[2][2] * p[2] + x[2],
            ]
        };
        match *shape {
            Shape::Sphere { radius } => {
                mesh.points.extend(self.sphere.points.iter().map(|p| place(p.map(|x| radius * x))));
                mesh.connectivity.extend(self.sphere.connectivity.iter().map(|&k| k + base as i32));
                let end = mesh.connectivity.len() as i32 - self.sphere.connectivity.len() as i32;
                mesh.offsets.extend(self.sphere.offsets.iter().map(|&o| o + end));
            }
            Shape::Box { half_extents: h } => {
                for k in 0..8 {
                    let sign = |bit: usize| if k & bit == 0 { -1.0 } else { 1.0 };
                    mesh.points.push(place([sign(1) * h[0], sign(2) * h[1], sign(4) * h[2]]));
                }
                // Corner k has x = bit 0, y = bit 1, z = bit 2; each face counter-clockwise
                // seen from outside.
                for face in [[0, 2, 3, 1], [4, 5, 7, 6], [0, 1, 5, 4], [2, 6, 7, 3], [0, 4, 6, 2], [1, 3, 7, 5]] {
                    mesh.polygon(base, &face);
                }
            }
            Shape::Capsule { radius, half_length } => {
                let m = 2 + self.options.sphere_subdivisions as usize;
                let segments = 4 * m;
                mesh.points.push(place([0.0, 0.0, half_length + radius]));
                // Rings from the top: m on the upper hemisphere (the last at its equator), m on
                // the lower one (the first at its equator).
                for ring in 0..2 * m {
                    let (theta, z0) = if ring < m {
                        (std::f64::consts::FRAC_PI_2 * (ring + 1) as f64 / m as f64, half_length)
                    } else {
                        (std::f64::consts::FRAC_PI_2 * (1.0 + (ring - m) as f64 / m as f64), -half_length)
                    };
                    let (s, c) = theta.sin_cos();
                    for j in 0..segments {
                        let (sp, cp) = (std::f64::consts::TAU * j as f64 / segments as f64).sin_cos();
                        mesh.points.push(place([radius * s * cp, radius * s * sp, z0 + radius * c]));
                    }
                }
                let bottom = 1 + 2 * m * segments;
                mesh.points.push(place([0.0, 0.0, -half_length - radius]));
                let at = |ring: usize, j: usize| 1 + ring * segments + j % segments;
                for j in 0..segments {
                    mesh.polygon(base, &[0, at(0, j), at(0, j + 1)]);
                }
                for ring in 0..2 * m - 1 {
                    for j in 0..segments {
                        mesh.polygon(base, &[at(ring, j), at(ring + 1, j), at(ring + 1, j + 1), at(ring, j + 1)]);
                    }
                }
                for j in 0..segments {
                    mesh.polygon(base, &[bottom, at(2 * m - 1, j + 1), at(2 * m - 1, j)]);
                }
            }
            Shape::HalfSpace => {}
            Shape::Cylinder { .. } | Shape::ConvexHull(_) | Shape::TriangleMesh(_) => {
                let segments = 4 * (2 + self.options.sphere_subdivisions);
                if let Some((points, triangles)) = crate::geometry::polyhedra::surface(shape, segments) {
                    mesh.points.extend(points.into_iter().map(place));
                    for t in triangles {
                        mesh.polygon(base, &t.map(|k| k as usize));
                    }
                }
            }
        }
    }
}

/// A body's state as written.
struct BodyState {
    shape: Shape,
    pose: Pose,
    orientation: [f64; 4],
    velocity: Vec3,
    angular_velocity: Vec3,
    angular_velocity_body: Vec3,
}

/// The states of the scene's bodies.
fn body_states(scene: &Scene) -> Result<Vec<BodyState>, MechanicsError> {
    (0..scene.number_of_bodies())
        .map(|i| {
            let (q, v) = scene.body_state(i)?;
            if q.iter().chain(v).any(|x| !x.is_finite()) {
                return Err(KernelError::NonFinite { what: "body state" }.into());
            }
            let rotation: Mat3 = Quaternion::new(q[3], q[4], q[5], q[6]).to_rotation_matrix();
            let omega = [v[3], v[4], v[5]];
            let world =
                [0, 1, 2].map(|k| rotation[k][0] * omega[0] + rotation[k][1] * omega[1] + rotation[k][2] * omega[2]);
            Ok(BodyState {
                shape: scene.body_shape(i)?,
                pose: Pose { position: [q[0], q[1], q[2]], rotation },
                orientation: [q[3], q[4], q[5], q[6]],
                velocity: [v[0], v[1], v[2]],
                angular_velocity: world,
                angular_velocity_body: omega,
            })
        })
        .collect()
}

/// 0 sphere, 1 box, 2 capsule, 3 half-space, 4 cylinder, 5 convex hull, 6 triangle mesh.
fn shape_code(shape: &Shape) -> i32 {
    match shape {
        Shape::Cylinder { .. } => 4,
        Shape::ConvexHull(_) => 5,
        Shape::TriangleMesh(_) => 6,
        Shape::Sphere { .. } => 0,
        Shape::Box { .. } => 1,
        Shape::Capsule { .. } => 2,
        Shape::HalfSpace => 3,
    }
}

/// Sphere and capsule radius, box half diagonal.
fn bounding_radius(shape: &Shape) -> f64 {
    match *shape {
        Shape::Sphere { radius } | Shape::Capsule { radius, .. } => radius,
        Shape::Box { half_extents: e } => (e[0] * e[0] + e[1] * e[1] + e[2] * e[2]).sqrt(),
        Shape::HalfSpace => 0.0,
        Shape::Cylinder { radius, half_height } => (radius * radius + half_height * half_height).sqrt(),
        Shape::ConvexHull(_) | Shape::TriangleMesh(_) => {
            shape.aabb(&Pose::identity()).map_or(0.0, |b| norm3(b.half_extents()))
        }
    }
}

fn norm3(e: Vec3) -> f64 {
    (e[0] * e[0] + e[1] * e[1] + e[2] * e[2]).sqrt()
}

/// Box half extents, `(0, 0, half length)` of a capsule, zero otherwise.
fn extents(shape: &Shape) -> Vec3 {
    match *shape {
        Shape::Box { half_extents } => half_extents,
        Shape::Capsule { half_length, .. } => [0.0, 0.0, half_length],
        Shape::Cylinder { half_height, .. } => [0.0, 0.0, half_height],
        _ => [0.0; 3],
    }
}

/// The unit icosahedron subdivided `k` times, its vertices projected on the unit sphere.
fn icosphere(k: u32) -> Mesh {
    let t = (1.0 + 5f64.sqrt()) / 2.0;
    let mut points: Vec<Vec3> = [
        [-1.0, t, 0.0],
        [1.0, t, 0.0],
        [-1.0, -t, 0.0],
        [1.0, -t, 0.0],
        [0.0, -1.0, t],
        [0.0, 1.0, t],
        [0.0, -1.0, -t],
        [0.0, 1.0, -t],
        [t, 0.0, -1.0],
        [t, 0.0, 1.0],
        [-t, 0.0, -1.0],
        [-t, 0.0, 1.0],
    ]
    .to_vec();
    let mut faces: Vec<[usize; 3]> = vec![
        [0, 11, 5],
        [0, 5, 1],
        [0, 1, 7],
        [0, 7, 10],
        [0, 10, 11],
        [1, 5, 9],
        [5, 11, 4],
        [11, 10, 2],
        [10, 7, 6],
        [7, 1, 8],
        [3, 9, 4],
        [3, 4, 2],
        [3, 2, 6],
        [3, 6, 8],
        [3, 8, 9],
        [4, 9, 5],
        [2, 4, 11],
        [6, 2, 10],
        [8, 6, 7],
        [9, 8, 1],
    ];
    for _ in 0..k {
        let mut midpoints = std::collections::HashMap::new();
        let mut midpoint = |a: usize, b: usize, points: &mut Vec<Vec3>| -> usize {
            *midpoints.entry((a.min(b), a.max(b))).or_insert_with(|| {
                let (p, q) = (points[a], points[b]);
                points.push([0.5 * (p[0] + q[0]), 0.5 * (p[1] + q[1]), 0.5 * (p[2] + q[2])]);
                points.len() - 1
            })
        };
        let mut next = Vec::with_capacity(4 * faces.len());
        for [a, b, c] in faces {
            let (ab, bc, ca) = (midpoint(a, b, &mut points), midpoint(b, c, &mut points), midpoint(c, a, &mut points));
            next.extend([[a, ab, ca], [b, bc, ab], [c, ca, bc], [ab, bc, ca]]);
        }
        faces = next;
    }
    for p in &mut points {
        let n = (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt();
        *p = p.map(|x| x / n);
    }
    let mut mesh = Mesh { points, ..Mesh::default() };
    for f in faces {
        mesh.polygon(0, &f);
    }
    mesh
}

/// A value of a VTK data array: its type name and its little-endian bytes.
trait Scalar: Copy {
    const TYPE: &'static str;
    fn push_le(self, out: &mut Vec<u8>);
}

impl Scalar for f64 {
    const TYPE: &'static str = "Float64";
    fn push_le(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }
}

impl Scalar for f32 {
    const TYPE: &'static str = "Float32";
    fn push_le(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }
}

impl Scalar for i32 {
    const TYPE: &'static str = "Int32";
    fn push_le(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }
}

/// Builds one PolyData file in memory.
struct Writer<'a> {
    text: &'a mut String,
    bytes: &'a mut Vec<u8>,
}

impl<'a> Writer<'a> {
    fn new(text: &'a mut String, bytes: &'a mut Vec<u8>) -> Self {
        text.clear();
        Self { text, bytes }
    }

    fn begin(&mut self, points: usize, verts: usize, polys: usize) {
        self.text.push_str(
            "<?xml version=\"1.0\"?>\n<VTKFile type=\"PolyData\" version=\"1.0\" byte_order=\"LittleEndian\" header_type=\"UInt64\">\n<PolyData>\n",
        );
        let _ = writeln!(
            self.text,
            "<Piece NumberOfPoints=\"{points}\" NumberOfVerts=\"{verts}\" NumberOfLines=\"0\" NumberOfStrips=\"0\" NumberOfPolys=\"{polys}\">"
        );
    }

    fn points<T: Scalar>(&mut self, values: impl Iterator<Item = T>) {
        self.text.push_str("<Points>\n");
        self.array("Points", 3, values);
        self.text.push_str("</Points>\n");
    }

    fn begin_point_data(&mut self) {
        self.text.push_str("<PointData>\n");
    }

    fn end_point_data(&mut self) {
        self.text.push_str("</PointData>\n");
    }

    fn begin_cell_data(&mut self) {
        self.text.push_str("<CellData>\n");
    }

    fn end_cell_data(&mut self) {
        self.text.push_str("</CellData>\n");
    }

    /// One vertex cell per point.
    fn verts(&mut self, n: usize) {
        self.text.push_str("<Verts>\n");
        self.array("connectivity", 1, (0..n).map(|k| k as i32));
        self.array("offsets", 1, (1..=n).map(|k| k as i32));
        self.text.push_str("</Verts>\n");
    }

    fn polys(&mut self, connectivity: &[i32], offsets: &[i32]) {
        self.text.push_str("<Polys>\n");
        self.array("connectivity", 1, connectivity.iter().copied());
        self.array("offsets", 1, offsets.iter().copied());
        self.text.push_str("</Polys>\n");
    }

    fn end(&mut self) {
        self.text.push_str("</Piece>\n</PolyData>\n</VTKFile>\n");
    }

    /// A data array in the inline binary format: base64 of the byte count (`UInt64`) followed
    /// by the values.
    fn array<T: Scalar>(&mut self, name: &str, components: usize, values: impl Iterator<Item = T>) {
        self.bytes.clear();
        self.bytes.extend_from_slice(&[0; 8]);
        for v in values {
            v.push_le(self.bytes);
        }
        let count = (self.bytes.len() - 8) as u64;
        self.bytes[..8].copy_from_slice(&count.to_le_bytes());
        let _ = writeln!(
            self.text,
            "<DataArray type=\"{}\" Name=\"{name}\" NumberOfComponents=\"{components}\" format=\"binary\">",
            T::TYPE
        );
        base64(self.bytes, self.text);
        self.text.push_str("\n</DataArray>\n");
    }
}

/// Appends the standard base64 encoding (RFC 4648, with padding) of `bytes` to `out`.
fn base64(bytes: &[u8], out: &mut String) {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    out.reserve(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for k in 0..4 {
            if k <= chunk.len() {
                out.push(char::from(ALPHABET[((n >> (18 - 6 * k)) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_the_rfc_vectors() {
        for (input, expected) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            let mut s = String::new();
            base64(input.as_bytes(), &mut s);
            assert_eq!(s, expected);
        }
    }

    #[test]
    fn the_icosphere_is_closed_and_on_the_unit_sphere() {
        for k in 0..3 {
            let mesh = icosphere(k);
            let faces = 20 * 4usize.pow(k);
            assert_eq!(mesh.offsets.len(), faces);
            // Euler: V − E + F = 2 with E = 3F/2.
            assert_eq!(mesh.points.len() + faces - 3 * faces / 2, 2);
            assert!(mesh.points.iter().all(|p| ((p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt() - 1.0).abs() < 1e-12));
        }
    }
}
