//! The run record: one HDF5 file holding, per recorded step, the time, the state of every body,
//! the contacts with their reactions, the solver's report and the wall time by phase
//! ([`RunRecord`]).
//!
//! HDF5 keeps a whole run in one file of typed, shaped arrays that `h5py` (`f["bodies/position"]
//! [:]`), pandas, ParaView and the HDF5 tools read directly, without a parser of ours; the file is
//! written in pure Rust by the `hdf5-pure` crate, the one the FCLIB reader and writer of
//! `nonsmooth-numerics` already use, so no system library is linked.
//!
//! # Layout
//!
//! `n` is the number of recorded steps, `b` the number of bodies, `m` the number of contact rows
//! over all recorded steps. SI units (m, s, kg, N·s); floats are `f64`, indices `u64`.
//!
//! | path | shape | content |
//! |---|---|---|
//! | `/time` | `(n)` | time at the end of the step (s) |
//! | `/step` | `(n)` | index of the step (1 for the first) |
//! | `/bodies/position` | `(n, b, 3)` | centre of mass, world frame (m) |
//! | `/bodies/orientation` | `(n, b, 4)` | unit quaternion `(p0, p1, p2, p3)`, scalar first |
//! | `/bodies/velocity` | `(n, b, 3)` | velocity of the centre, world frame (m/s) |
//! | `/bodies/angular_velocity` | `(n, b, 3)` | angular velocity, body frame (rad/s) |
//! | `/contacts/offset` | `(n + 1)` | the contacts of record `k` are rows `offset[k] .. offset[k+1]` |
//! | `/contacts/body` | `(m)` | body 1, the body the normal points to |
//! | `/contacts/partner` | `(m)` | `i64`: body 2 as its index `≥ 0`, or static shape `s` as `−1 − s` |
//! | `/contacts/point` | `(m, 3)` | contact point `P₁` on body 1, world frame (m) |
//! | `/contacts/partner_point` | `(m, 3)` | contact point `P₂` on the partner (m) |
//! | `/contacts/normal` | `(m, 3)` | unit normal `n`, from the partner to body 1 |
//! | `/contacts/gap` | `(m)` | gap `(P₁ − P₂)·n` (m, negative: penetration) |
//! | `/contacts/impulse` | `(m, 3)` | reaction impulse `(λ_N, λ_T1, λ_T2)` over the step, local frame (N·s) |
//! | `/contacts/active` | `(m)` | `u8`: 1 when the step's one-step problem held the contact |
//! | `/solver/status` | `(n)` | `u8`: 0 no one-step problem (no active contact), 1 converged, 2 not converged |
//! | `/solver/iterations` | `(n)` | solver iterations (NSGS sweeps) of the step |
//! | `/solver/error` | `(n)` | the solver's residual (Siconos' `fc3d_compute_error`), NaN without a problem |
//! | `/timings/detection` … | `(n)` | wall time (s) since the previous record, by phase: `detection`, `assembly`, `solve`, `update`, `output` |
//!
//! `/time`, `/step` and `/timings` are always there; the other groups as [`RecordQuantities`]
//! asks (all by default; a scene file's `[output] quantities`: `q` positions and orientations,
//! `v` velocities, `contacts`, `solver`). The root carries the attributes `time_step` (s),
//! `bodies` and `every` (steps between records). The reaction is the impulse of the Moreau–Jean step (Acary & Brogliato, *Numerical
//! Methods for Nonsmooth Dynamical Systems*, Springer 2008, ch. 10): the mean force over the step
//! is `λ / h`.
//!
//! The writer keeps the record in memory and writes the whole file with
//! [`RunRecord::write`] (HDF5 files are written whole by `hdf5-pure`); [`RunRecord::create`]
//! writes an empty record at once, so an unwritable path fails before the run.

use std::path::{Path, PathBuf};
use std::time::Duration;

use hdf5_pure::{AttrValue, FileBuilder};

use crate::MechanicsError;
use crate::scene::{ContactPartner, Scene, SceneStepReport};

/// The wall time of a span of steps, by phase.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PhaseTimes {
    /// Contact detection and contact bookkeeping.
    pub detection: Duration,
    /// One-step problem assembly.
    pub assembly: Duration,
    /// One-step problem solve.
    pub solve: Duration,
    /// The rest of the steps (iteration matrices, free velocities, state updates).
    pub update: Duration,
    /// Writing the outputs (VTK frames, the record).
    pub output: Duration,
}

impl PhaseTimes {
    /// Adds the phases of one scene step (`output` is added by the caller).
    pub fn add_step(&mut self, r: &SceneStepReport) {
        self.detection += r.detection;
        self.assembly += r.step.timings.assembly;
        self.solve += r.step.timings.solve;
        self.update += r.update();
    }

    /// Adds another span.
    pub fn add(&mut self, other: &PhaseTimes) {
        self.detection += other.detection;
        self.assembly += other.assembly;
        self.solve += other.solve;
        self.update += other.update;
        self.output += other.output;
    }

    /// The sum of the phases.
    pub fn total(&self) -> Duration {
        self.detection + self.assembly + self.solve + self.update + self.output
    }
}

/// Which groups a [`RunRecord`] holds beside `/time`, `/step` and `/timings` (default: all).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RecordQuantities {
    /// `/bodies/position` and `/bodies/orientation`.
    pub positions: bool,
    /// `/bodies/velocity` and `/bodies/angular_velocity`.
    pub velocities: bool,
    /// The `/contacts` group.
    pub contacts: bool,
    /// The `/solver` group.
    pub solver: bool,
}

impl Default for RecordQuantities {
    fn default() -> Self {
        Self { positions: true, velocities: true, contacts: true, solver: true }
    }
}

/// The HDF5 run record of a scene (layout in the module documentation).
#[derive(Debug)]
pub struct RunRecord {
    path: PathBuf,
    quantities: RecordQuantities,
    bodies: usize,
    time_step: f64,
    every: usize,
    time: Vec<f64>,
    step: Vec<u64>,
    position: Vec<f64>,
    orientation: Vec<f64>,
    velocity: Vec<f64>,
    angular_velocity: Vec<f64>,
    offset: Vec<u64>,
    body: Vec<u64>,
    partner: Vec<i64>,
    point: Vec<f64>,
    partner_point: Vec<f64>,
    normal: Vec<f64>,
    gap: Vec<f64>,
    impulse: Vec<f64>,
    active: Vec<u8>,
    status: Vec<u8>,
    iterations: Vec<u64>,
    error: Vec<f64>,
    times: [Vec<f64>; 5],
}

/// The names of the datasets of `/timings`, in the order of [`PhaseTimes`].
pub const PHASES: [&str; 5] = ["detection", "assembly", "solve", "update", "output"];

impl RunRecord {
    /// A record of `scene` at `path`, with `every` steps between records (stored as an
    /// attribute); writes the empty record at once.
    ///
    /// # Errors
    /// [`MechanicsError::Io`] when the file cannot be written.
    pub fn create(path: impl AsRef<Path>, scene: &Scene, every: usize) -> Result<Self, MechanicsError> {
        Self::create_with(path, scene, every, RecordQuantities::default())
    }

    /// As [`RunRecord::create`], holding only `quantities`.
    ///
    /// # Errors
    /// [`MechanicsError::Io`] when the file cannot be written.
    pub fn create_with(
        path: impl AsRef<Path>,
        scene: &Scene,
        every: usize,
        quantities: RecordQuantities,
    ) -> Result<Self, MechanicsError> {
        let record = Self {
            path: path.as_ref().to_path_buf(),
            quantities,
            bodies: scene.number_of_bodies(),
            time_step: scene.time_step(),
            every,
            time: Vec::new(),
            step: Vec::new(),
            position: Vec::new(),
            orientation: Vec::new(),
            velocity: Vec::new(),
            angular_velocity: Vec::new(),
            offset: vec![0],
            body: Vec::new(),
            partner: Vec::new(),
            point: Vec::new(),
            partner_point: Vec::new(),
            normal: Vec::new(),
            gap: Vec::new(),
            impulse: Vec::new(),
            active: Vec::new(),
            status: Vec::new(),
            iterations: Vec::new(),
            error: Vec::new(),
            times: Default::default(),
        };
        record.write()?;
        Ok(record)
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Number of records (steps) held.
    pub fn len(&self) -> usize {
        self.time.len()
    }

    /// Whether no step is recorded.
    pub fn is_empty(&self) -> bool {
        self.time.is_empty()
    }

    /// Records the scene's current state after the step `report`; `times` is the wall time since
    /// the previous record.
    ///
    /// # Errors
    /// [`MechanicsError::Kernel`] (unknown system) when the scene changed its number of bodies
    /// since [`RunRecord::create`].
    pub fn push(&mut self, scene: &Scene, report: &SceneStepReport, times: &PhaseTimes) -> Result<(), MechanicsError> {
        if scene.number_of_bodies() != self.bodies {
            return Err(nonsmooth_kernel::KernelError::UnknownDs(scene.number_of_bodies()).into());
        }
        self.time.push(scene.time());
        self.step.push(report.step.step as u64);
        let q = self.quantities;
        if q.positions || q.velocities {
            for f in scene.frames() {
                if q.positions {
                    self.position.extend_from_slice(&f.position);
                    self.orientation.extend_from_slice(&f.orientation);
                }
                if q.velocities {
                    self.velocity.extend_from_slice(&f.velocity);
                    self.angular_velocity.extend_from_slice(&f.angular_velocity);
                }
            }
        }
        for c in scene.contacts().filter(|_| q.contacts) {
            self.body.push(c.body as u64);
            self.partner.push(match c.partner {
                ContactPartner::Body(j) => j as i64,
                ContactPartner::Static(s) => -1 - s as i64,
            });
            self.point.extend_from_slice(&c.point);
            self.partner_point.extend_from_slice(&c.partner_point);
            self.normal.extend_from_slice(&c.normal());
            self.gap.push(c.gap);
            self.impulse.extend_from_slice(&c.impulse);
            self.active.push(u8::from(c.active));
        }
        self.offset.push(self.gap.len() as u64);
        match report.solver() {
            Some(s) => {
                self.status.push(if s.is_converged() { 1 } else { 2 });
                self.iterations.push(s.iterations as u64);
                self.error.push(s.residual);
            }
            None => {
                self.status.push(0);
                self.iterations.push(0);
                self.error.push(f64::NAN);
            }
        }
        let t = [times.detection, times.assembly, times.solve, times.update, times.output];
        for (v, d) in self.times.iter_mut().zip(t) {
            v.push(d.as_secs_f64());
        }
        Ok(())
    }

    /// Writes the whole record to its file (replacing it).
    ///
    /// # Errors
    /// [`MechanicsError::Io`] when the file cannot be written.
    pub fn write(&self) -> Result<(), MechanicsError> {
        let (n, b, m) = (self.time.len() as u64, self.bodies as u64, self.gap.len() as u64);
        let mut file = FileBuilder::new();
        file.set_attr("time_step", AttrValue::F64(self.time_step));
        file.set_attr("bodies", AttrValue::U64(b));
        file.set_attr("every", AttrValue::U64(self.every as u64));
        file.create_dataset("time").with_f64_data(&self.time).with_shape(&[n]);
        file.create_dataset("step").with_u64_data(&self.step).with_shape(&[n]);
        let q = self.quantities;
        if q.positions || q.velocities {
            let mut g = file.create_group("bodies");
            let groups = [
                (q.positions, "position", &self.position, 3),
                (q.positions, "orientation", &self.orientation, 4),
                (q.velocities, "velocity", &self.velocity, 3),
                (q.velocities, "angular_velocity", &self.angular_velocity, 3),
            ];
            for (_, name, data, k) in groups.into_iter().filter(|g| g.0) {
                g.create_dataset(name).with_f64_data(data).with_shape(&[n, b, k]);
            }
            file.add_group(g.finish());
        }
        if q.contacts {
            self.write_contacts(&mut file, n, m);
        }
        if q.solver {
            let mut g = file.create_group("solver");
            g.create_dataset("status").with_u8_data(&self.status).with_shape(&[n]);
            g.create_dataset("iterations").with_u64_data(&self.iterations).with_shape(&[n]);
            g.create_dataset("error").with_f64_data(&self.error).with_shape(&[n]);
            file.add_group(g.finish());
        }
        let mut g = file.create_group("timings");
        for (name, data) in PHASES.iter().zip(&self.times) {
            g.create_dataset(name).with_f64_data(data).with_shape(&[n]);
        }
        file.add_group(g.finish());
        file.write(&self.path).map_err(|e| {
            let source = match e {
                hdf5_pure::Error::Io(source) => source,
                other => std::io::Error::other(other.to_string()),
            };
            MechanicsError::Io { path: self.path.clone(), source }
        })
    }

    /// The `/contacts` group (`n` records, `m` contact rows).
    fn write_contacts(&self, file: &mut FileBuilder, n: u64, m: u64) {
        let mut g = file.create_group("contacts");
        g.create_dataset("offset").with_u64_data(&self.offset).with_shape(&[n + 1]);
        g.create_dataset("body").with_u64_data(&self.body).with_shape(&[m]);
        g.create_dataset("partner").with_i64_data(&self.partner).with_shape(&[m]);
        for (name, data) in [
            ("point", &self.point),
            ("partner_point", &self.partner_point),
            ("normal", &self.normal),
            ("impulse", &self.impulse),
        ] {
            g.create_dataset(name).with_f64_data(data).with_shape(&[m, 3]);
        }
        g.create_dataset("gap").with_f64_data(&self.gap).with_shape(&[m]);
        g.create_dataset("active").with_u8_data(&self.active).with_shape(&[m]);
        file.add_group(g.finish());
    }
}
