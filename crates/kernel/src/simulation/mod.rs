//! Simulation: one-step integrators, one-step nonsmooth problems and time-stepping (Siconos'
//! `kernel/src/simulationTools`).

pub mod moreau_jean;
pub mod osns;
pub mod recorder;
pub mod time_stepping;

pub use moreau_jean::{MoreauJeanOptions, MoreauJeanOsi, kinetic_energy};
pub use osns::{MatrixStorage, OneStepNsProblem, OsnsKind};
pub use recorder::Trajectory;
pub use time_stepping::{NonConvergencePolicy, StepReport, TimeDiscretisation, TimeStepping, TimeSteppingOptions};
