//! Modelling: dynamical systems, relations, nonsmooth laws, interactions and the graphs that
//! hold them (Siconos' `kernel/src/modelingTools`).

pub mod ds;
pub mod interaction;
pub mod law;
pub mod nsds;
pub mod relation;

pub use ds::{LagrangianDs, LagrangianLinearTids, LinearTidsParts, SecondOrderDs, SecondOrderState};
pub use interaction::Interaction;
pub use law::NonsmoothLaw;
pub use nsds::{DsId, InteractionId, Nsds};
pub use relation::{LagrangianLinearTir, LagrangianRelation, LagrangianRheonomousR, LagrangianScleronomousR};
