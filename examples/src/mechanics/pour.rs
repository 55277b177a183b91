//! Spheres poured into a box: the main example of the platform.
//!
//! `n` equal spheres start at rest in a tall, narrow column (a jittered lattice above the middle
//! of a square box), fall under gravity, hit the floor, spread, and come to rest as a heap held
//! by the four walls. Each step is Moreau–Jean's θ-scheme on Newton–Euler bodies with
//! frictional contact (Jean, "The non-smooth contact dynamics method", Comput. Methods Appl.
//! Mech. Engrg. 177, 1999; Acary & Brogliato, "Numerical Methods for Nonsmooth Dynamical
//! Systems", Springer 2008, ch. 10): contacts detected at the start of the step, the 3D Coulomb
//! one-step problem solved by nonsmooth Gauss–Seidel at tolerance 1e-4.
//!
//! [`Pour::sample`] records, per step, the quantities that tell the story of the run: the kinetic
//! energy, the mean and top heights of the centres, the number of contacts, the solver's sweeps
//! and whether it converged, and the largest penetration.

use nonsmooth::mechanics::MechanicsError;
use nonsmooth::mechanics::geometry::Shape;
use nonsmooth::mechanics::pile::uniform;
use nonsmooth::mechanics::scene::{
    BodySpec, Material, Scene, SceneBuilder, SceneNonConvergence, SceneOptions, SceneStepReport,
};

/// Parameters of the pour.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pour {
    /// Number of spheres.
    pub n: usize,
    /// Sphere radius (m).
    pub radius: f64,
    /// Density (kg/m³).
    pub density: f64,
    /// Coulomb friction coefficient of every surface.
    pub friction: f64,
    /// Newton restitution coefficient of every surface.
    pub restitution: f64,
    /// Time step (s).
    pub h: f64,
    /// Final time (s).
    pub t_end: f64,
    /// Seed of the lattice jitter.
    pub seed: u64,
    /// What a step above the NSGS tolerance does (default: [`Pour::DEFAULT_POLICY`], stop
    /// beyond 100 times it).
    pub on_nonconvergence: SceneNonConvergence,
}

impl Default for Pour {
    fn default() -> Self {
        Self {
            n: 400,
            radius: 0.02,
            density: 2500.0,
            friction: 0.4,
            restitution: 0.2,
            h: 1e-3,
            t_end: 1.0,
            seed: 7,
            on_nonconvergence: Self::DEFAULT_POLICY,
        }
    }
}

/// What one step of the pour did, for the plot and the CSV file.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PourSample {
    /// Time at the end of the step (s).
    pub t: f64,
    /// Kinetic energy `Σ ½ m |v|² + ½ I |ω|²` (J).
    pub kinetic_energy: f64,
    /// Mean height of the centres (m).
    pub mean_height: f64,
    /// Highest centre (m).
    pub top: f64,
    /// Contacts of the step.
    pub contacts: usize,
    /// Solver sweeps of the step.
    pub sweeps: usize,
    /// Whether the one-step problem reached its tolerance.
    pub converged: bool,
    /// The one-step problem's residual (Siconos' FC3D error; 0 without contacts).
    pub residual: f64,
    /// Largest penetration of a sphere into the floor, a wall or another sphere (m, ≥ 0).
    pub penetration: f64,
}

impl Pour {
    /// The pour's policy: the scenes' default, stop when a step ends 100 times above the NSGS
    /// tolerance ([`SceneNonConvergence::DEFAULT_FACTOR`]); every step of the default pour
    /// reaches the tolerance, and the run summary says so.
    pub const DEFAULT_POLICY: SceneNonConvergence =
        SceneNonConvergence::FailAbove { factor: SceneNonConvergence::DEFAULT_FACTOR };

    /// The pour of `n` spheres with the default parameters.
    pub fn with_spheres(n: usize) -> Self {
        Self { n, ..Self::default() }
    }

    /// Spheres per row of the column's square cross-section.
    fn column_width(&self) -> usize {
        ((self.n as f64 / 12.0).sqrt().ceil() as usize).max(1)
    }

    /// Side of the square box, 2.2 times the column's: the column spreads into a heap a few
    /// layers deep.
    pub fn box_side(&self) -> f64 {
        2.2 * self.radius * (2.2 * self.column_width() as f64).ceil()
    }

    /// Mass of one sphere, `ρ 4/3 π r³`.
    pub fn mass(&self) -> f64 {
        self.density * 4.0 / 3.0 * std::f64::consts::PI * self.radius.powi(3)
    }

    /// The initial centres: a column of `w × w` spheres per layer above the middle of the box,
    /// spacing `2.2 r`, the lowest layer `2 r` above the floor, each centre jittered horizontally
    /// by up to `±0.1 r`.
    pub fn initial_positions(&self) -> Vec<[f64; 3]> {
        let w = self.column_width();
        let (r, d) = (self.radius, 2.2 * self.radius);
        let offset = 0.5 * self.box_side() - 0.5 * d * w as f64;
        let mut state = self.seed;
        (0..self.n)
            .map(|k| {
                let (ix, iy, iz) = (k % w, (k / w) % w, k / (w * w));
                let jx = (uniform(&mut state) - 0.5) * 0.2 * r;
                let jy = (uniform(&mut state) - 0.5) * 0.2 * r;
                [offset + (ix as f64 + 0.5) * d + jx, offset + (iy as f64 + 0.5) * d + jy, 2.0 * r + iz as f64 * d]
            })
            .collect()
    }

    /// The scene: the spheres, a floor at `z = 0` and four walls, NSGS at tolerance 1e-4
    /// ([`SceneOptions::default_nsgs`]), under the policy [`Pour::on_nonconvergence`] (by
    /// default a step stops the run if it ends more than 100 times above the tolerance).
    ///
    /// # Errors
    /// [`MechanicsError`] for an empty pour or non-physical parameters.
    pub fn build(&self) -> Result<Scene, MechanicsError> {
        if self.n == 0 {
            return Err(
                nonsmooth::kernel::KernelError::InvalidOption { name: "n", reason: "must be at least 1" }.into()
            );
        }
        let material = Material::new(self.friction, self.restitution)?;
        let options = SceneOptions::default()
            .with_time_step(self.h)
            .with_final_time(self.t_end)
            .with_policy(self.on_nonconvergence);
        let mut builder = SceneBuilder::new().with_options(options);
        let side = self.box_side();
        builder.add_open_box(side, material)?;
        let sphere = BodySpec::new(Shape::sphere(self.radius)?, self.density)?.with_material(material);
        for p in self.initial_positions() {
            builder.add_body(sphere.clone().with_position(p));
        }
        builder.build()
    }

    /// The quantities of [`PourSample`] after a step of `scene` that reported `report`.
    ///
    /// # Errors
    /// [`MechanicsError`] if the scene does not hold this pour's spheres.
    pub fn sample(&self, scene: &Scene, report: &SceneStepReport) -> Result<PourSample, MechanicsError> {
        let (m, r, side) = (self.mass(), self.radius, self.box_side());
        let inertia = 0.4 * m * r * r;
        let (mut energy, mut sum_z, mut top, mut penetration) = (0.0, 0.0, f64::NEG_INFINITY, 0.0_f64);
        for i in 0..scene.number_of_bodies() {
            let (q, v) = scene.body_state(i)?;
            energy += 0.5 * m * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2])
                + 0.5 * inertia * (v[3] * v[3] + v[4] * v[4] + v[5] * v[5]);
            sum_z += q[2];
            top = top.max(q[2]);
            let walls = [q[2] - r, q[0] - r, side - q[0] - r, q[1] - r, side - q[1] - r];
            for gap in walls {
                penetration = penetration.max(-gap);
            }
        }
        for contact in scene.contacts() {
            penetration = penetration.max(-contact.gap);
        }
        let osns = report.step.osns;
        Ok(PourSample {
            t: scene.time(),
            kinetic_energy: energy,
            mean_height: sum_z / scene.number_of_bodies().max(1) as f64,
            top,
            contacts: report.contacts,
            sweeps: osns.map_or(0, |o| o.iterations),
            converged: osns.is_none_or(|o| o.is_converged()),
            residual: osns.map_or(0.0, |o| o.residual),
            penetration,
        })
    }
}
