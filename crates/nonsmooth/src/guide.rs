//! # A guide in three programs
//!
//! Each program below is complete and is compiled and run by `cargo test --doc`. They use
//! [`crate::prelude`] and go from the lowest-level use to the highest: a dynamical system and
//! its contact written by hand, a scene of rigid bodies whose contacts are detected, and a
//! one-step problem read from a file and solved alone.
//!
//! ## 1. A bouncing ball with Moreau–Jean time-stepping
//!
//! The ball of Siconos' `BouncingBallTS` example: a ball of mass `m` and radius `r`, with
//! coordinates `q = (x, y, θ)` (`x` vertical), falls from `x = 1` onto the ground `x = 0`.
//! Siconos' vocabulary carries over:
//!
//! - the dynamical system is a [`LagrangianLinearTids`] (`M q̈ = F_ext`, linear and time
//!   invariant) with gravity as external force;
//! - the contact is an interaction: the relation [`LagrangianLinearTir`] gives the gap
//!   `y = H q = x`, and the law [`NonsmoothLaw::newton_impact`] says `0 ≤ y ⊥ λ ≥ 0` with
//!   Newton's impact law `ẏ⁺ = −e ẏ⁻` at impacts;
//! - [`TimeStepping`] advances the [`Nsds`] by the [`MoreauJeanOsi`] scheme (θ = ½), solving at
//!   each step the one-step problem [`OneStepNsProblem::lcp_default`] (an LCP in the impulse,
//!   Lemke's method).
//!
//! The scheme is Moreau's sweeping process discretized at the velocity level (J. J. Moreau,
//! "Unilateral contact and dry friction in finite freedom dynamics", 1988; M. Jean, "The
//! non-smooth contact dynamics method", *Comput. Methods Appl. Mech. Engrg.* 177, 1999;
//! Acary & Brogliato 2008, chapter 10): impacts are captured inside a step, and the position
//! constraint holds up to `O(h)`. The program checks that the ball does not sink below the
//! ground by more than that, that it bounces, and that it bounces to about `e² = 0.81` of its
//! starting height.
//!
//! ```
//! use nonsmooth::prelude::*;
//!
//! # fn main() -> Result<(), KernelError> {
//! let (m, r, g, e) = (1.0, 0.1, 9.81, 0.9);
//! let mass = nonsmooth::numerics::faer::mat![[m, 0.0, 0.0], [0.0, m, 0.0], [0.0, 0.0, 0.4 * m * r * r]];
//! let ball = LagrangianLinearTids::new(vec![1.0, 0.0, 0.0], vec![0.0; 3], mass)?
//!     .with_external_force(vec![-m * g, 0.0, 0.0])?;
//! let mut nsds = Nsds::new();
//! let ball = nsds.add_ds(ball);
//! let ground = LagrangianLinearTir::new(nonsmooth::numerics::faer::mat![[1.0, 0.0, 0.0]])?;
//! nsds.link(ground, NonsmoothLaw::newton_impact(e)?, &[ball])?;
//!
//! let h = 0.005;
//! let mut sim = TimeStepping::new(
//!     nsds,
//!     MoreauJeanOsi::with_theta(0.5)?,
//!     OneStepNsProblem::lcp_default()?,
//!     TimeDiscretisation::new(0.0, h, 3.0)?,
//!     TimeSteppingOptions::default(),
//! )?;
//!
//! let (mut lowest, mut bounces, mut apex) = (f64::INFINITY, 0, 0.0_f64);
//! let mut falling = true;
//! while sim.has_next_step() {
//!     sim.step()?;
//!     let state = sim.nsds().ds(ball)?.state();
//!     let (x, v) = (state.q()[0], state.v()[0]);
//!     lowest = lowest.min(x);
//!     if falling && v > 0.0 {
//!         bounces += 1; // the velocity turned upwards: an impact
//!     }
//!     falling = v <= 0.0;
//!     if bounces == 1 {
//!         apex = apex.max(x); // height reached after the first impact
//!     }
//! }
//! assert!(lowest > -2.0 * h, "the ball stays above the ground up to O(h): {lowest}");
//! assert!(bounces >= 3, "the ball bounces: {bounces} impacts in 3 s");
//! assert!((apex - e * e).abs() < 0.05, "it rebounds to about e² of its height: {apex}");
//! # Ok(()) }
//! ```
//!
//! ## 2. A sphere pile with a `Scene`
//!
//! [`SceneBuilder`] assembles rigid bodies ([`BodySpec`]: a [`Shape`], a density, a pose, a
//! [`Material`] with Coulomb friction `μ` and restitution `e`) and static surfaces (the ground,
//! walls). [`Scene::step`] detects the contacts, then takes one Moreau–Jean step of the
//! Newton–Euler bodies with a 3D frictional contact (FC3D) one-step problem solved by nonsmooth
//! Gauss–Seidel (NSGS; Jean 1999; Acary & Brogliato 2008, chapter 13), as Siconos' `mechanics`
//! component does.
//!
//! Five spheres of radius 5 cm are dropped into a square box: four form the bottom layer, the
//! fifth falls on them. After half a second (500 steps of 1 ms) every sphere rests on the
//! ground or on the others: the bottom layer sits at `z ≈ r`, the top sphere on its hollow,
//! and all velocities have died out.
//!
//! ```
//! use nonsmooth::prelude::*;
//!
//! # fn main() -> Result<(), MechanicsError> {
//! let r = 0.05;
//! let material = Material::new(0.5, 0.0)?; // μ = 0.5, e = 0: inelastic impacts
//! let mut builder = SceneBuilder::new().with_time_step(1e-3).with_final_time(0.5);
//! builder.add_ground(0.0, material)?;
//! // The box's walls, 2.1 r from its axis: normals point inwards, towards the spheres.
//! for (point, normal) in [
//!     ([2.1 * r, 0.0, 0.0], [-1.0, 0.0, 0.0]),
//!     ([-2.1 * r, 0.0, 0.0], [1.0, 0.0, 0.0]),
//!     ([0.0, 2.1 * r, 0.0], [0.0, -1.0, 0.0]),
//!     ([0.0, -2.1 * r, 0.0], [0.0, 1.0, 0.0]),
//! ] {
//!     builder.add_wall(point, normal, material)?;
//! }
//! for (x, y) in [(-1.05, -1.05), (1.05, -1.05), (-1.05, 1.05), (1.05, 1.05)] {
//!     builder.add_body(BodySpec::new(Shape::sphere(r)?, 1000.0)?.with_position([x * r, y * r, 2.0 * r]));
//! }
//! let top = builder.add_body(BodySpec::new(Shape::sphere(r)?, 1000.0)?.with_position([0.01 * r, 0.0, 5.0 * r]));
//!
//! let mut scene = builder.build()?;
//! while scene.has_next_step() {
//!     scene.step()?;
//! }
//!
//! for i in 0..scene.number_of_bodies() {
//!     let (q, v) = scene.body_state(i)?;
//!     assert!(q[2] > r - 1e-3, "sphere {i} rests above the ground: z = {}", q[2]);
//!     let speed = v[..3].iter().map(|c| c * c).sum::<f64>().sqrt();
//!     assert!(speed < 1e-3, "sphere {i} has come to rest: |v| = {speed}");
//! }
//! let (q, _) = scene.body_state(top)?;
//! // The walls keep the bottom centres within 1.1 r of the axis in x and y: the top one rests at ≈ 2.25 r.
//! assert!(q[2] > 2.2 * r, "the top sphere rests on the bottom layer: z = {}", q[2]);
//! # Ok(()) }
//! ```
//!
//! ## 3. An FC3D problem file solved by NSGS
//!
//! [`read_problem`] reads the problem files of Siconos' numerics collection (and, with the
//! `fclib` feature, the HDF5 files of FCLIB: V. Acary, M. Brémond, O. Huber, "On solving
//! contact problems with Coulomb friction: formulations and numerical comparisons", in
//! *Advanced Topics in Nonsmooth Dynamics*, Springer, 2018). The file below is the one-step
//! problem of a pile of 14 spheres at rest in a box (36 contacts, `W = H M⁻¹ Hᵀ` in sparse-block
//! storage): for `nc` contacts, find the reactions `r` and the relative
//! velocities `u = W r + q` with, for each contact, `r` in the Coulomb cone `K_μ` and the
//! modified velocity `û = u + μ ‖u_T‖ e_N` in its dual, `K_μ ∋ r ⊥ û ∈ K_μ*`.
//!
//! [`NsgsSolver`] is Siconos' `NSGS` (`SICONOS_FRICTION_3D_NSGS`): Gauss–Seidel sweeps over
//! the contacts, each one-contact problem solved by a Newton method on the Alart–Curnier
//! function (P. Alart and A. Curnier, "A mixed formulation for frictional contact problems
//! prone to Newton like solution methods", *Comput. Methods Appl. Mech. Engrg.* 92, 1991). The
//! report's residual is Siconos' `fc3d_compute_error`.
//!
//! ```
//! use std::path::Path;
//!
//! use nonsmooth::prelude::*;
//!
//! # fn main() -> Result<(), NumericsError> {
//! let path = concat!(env!("CARGO_MANIFEST_DIR"), "/data/pile_fc3d.dat");
//! let Problem::Fc3d(problem) = nonsmooth::numerics::io::read_problem(Path::new(path), None)? else {
//!     panic!("{path} holds a 3D frictional contact problem");
//! };
//! let n = problem.size(); // 3 unknowns per contact
//!
//! let mut solver = NsgsSolver::new(NsgsOptions::default().with_tolerance(1e-8).with_max_iterations(10_000))?;
//! let (mut r, mut u) = (vec![0.0; n], vec![0.0; n]);
//! let report = solver.solve(&problem, &mut r, &mut u)?;
//! println!("{} contacts: {} after {} sweeps, residual {:e}",
//!     problem.number_of_contacts(), report.status, report.iterations, report.residual);
//! assert!(report.is_converged(), "{report:?}");
//! assert!(report.residual <= 1e-8);
//! // Each normal reaction pushes (r_N ≥ 0) and each contact opens or stays closed (u_N ≥ 0),
//! // up to the tolerance.
//! for c in 0..problem.number_of_contacts() {
//!     assert!(r[3 * c] >= -1e-8 && u[3 * c] >= -1e-6, "contact {c}: r_N = {}, u_N = {}", r[3 * c], u[3 * c]);
//! }
//! # Ok(()) }
//! ```
//!
//! [`LagrangianLinearTids`]: crate::prelude::LagrangianLinearTids
//! [`LagrangianLinearTir`]: crate::prelude::LagrangianLinearTir
//! [`NonsmoothLaw::newton_impact`]: crate::prelude::NonsmoothLaw::newton_impact
//! [`TimeStepping`]: crate::prelude::TimeStepping
//! [`Nsds`]: crate::prelude::Nsds
//! [`MoreauJeanOsi`]: crate::prelude::MoreauJeanOsi
//! [`OneStepNsProblem::lcp_default`]: crate::prelude::OneStepNsProblem::lcp_default
//! [`SceneBuilder`]: crate::prelude::SceneBuilder
//! [`BodySpec`]: crate::prelude::BodySpec
//! [`Shape`]: crate::prelude::Shape
//! [`Material`]: crate::prelude::Material
//! [`Scene::step`]: crate::prelude::Scene::step
//! [`read_problem`]: crate::prelude::read_problem
//! [`NsgsSolver`]: crate::prelude::NsgsSolver
