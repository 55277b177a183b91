//! # nonsmooth-kernel
//!
//! Modelling (dynamical systems, relations, nonsmooth laws, interactions, topology) and
//! simulation (one-step integrators, one-step nonsmooth problems, time-stepping) of nonsmooth
//! dynamical systems, in Siconos' vocabulary (Siconos documentation, "Simulation component").
//!
//! A bouncing ball (Siconos' `BouncingBallTS`):
//!
//! ```
//! use nonsmooth_kernel::model::{LagrangianLinearTids, LagrangianLinearTir, NonsmoothLaw, Nsds};
//! use nonsmooth_kernel::simulation::{
//!     MoreauJeanOsi, OneStepNsProblem, TimeDiscretisation, TimeStepping, TimeSteppingOptions,
//! };
//! # fn main() -> Result<(), nonsmooth_kernel::KernelError> {
//! let (m, r) = (1.0, 0.1);
//! let ball = LagrangianLinearTids::new(vec![1.0, 0.0, 0.0], vec![0.0; 3],
//!     faer::mat![[m, 0.0, 0.0], [0.0, m, 0.0], [0.0, 0.0, 0.4 * m * r * r]])?
//!     .with_external_force(vec![-m * 9.81, 0.0, 0.0])?;
//! let mut nsds = Nsds::new();
//! let ball = nsds.add_ds(ball);
//! nsds.link(LagrangianLinearTir::new(faer::mat![[1.0, 0.0, 0.0]])?, NonsmoothLaw::newton_impact(0.9)?, &[ball])?;
//! let mut sim = TimeStepping::new(nsds, MoreauJeanOsi::with_theta(0.5)?, OneStepNsProblem::lcp_default()?,
//!     TimeDiscretisation::new(0.0, 0.005, 3.0)?, TimeSteppingOptions::default())?;
//! let mut lowest = f64::INFINITY;
//! while sim.has_next_step() {
//!     sim.step()?;
//!     lowest = lowest.min(sim.nsds().ds(ball)?.state().q()[0]);
//! }
//! assert!(lowest > -1e-2); // the ground is at 0: penetration stays O(h)
//! # Ok(()) }
//! ```

mod cache;
mod error;
pub mod io;
mod linalg;
pub mod model;
pub mod simulation;

pub use error::{KernelError, NonFiniteValue, StateQuantity};
pub use nonsmooth_numerics as numerics;
