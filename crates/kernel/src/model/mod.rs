//! Modelling: dynamical systems, relations, nonsmooth laws, interactions and the graphs that
//! hold them (Siconos' `kernel/src/modelingTools`).

mod checks;
pub mod ds;
pub mod first_order;
pub mod first_order_relation;
mod ids;
pub mod interaction;
pub mod law;
pub mod nsds;
pub mod relation;

pub use ds::{LagrangianDs, LagrangianLinearTids, LinearTidsParts, SecondOrderDs, SecondOrderState};
pub use first_order::{FirstOrderDs, FirstOrderLinearDs, FirstOrderLinearTids, FirstOrderNonLinearDs, FirstOrderState};
pub use first_order_relation::{
    FirstOrderLinearR, FirstOrderLinearTir, FirstOrderNonLinearR, FirstOrderRelation, FirstOrderRelationKind,
    FirstOrderType1R, FirstOrderType2R,
};
pub use interaction::{Interaction, Relation};
pub use law::{
    ComplementarityNsl, EqualityNsl, MixedComplementarityNsl, NewtonImpactFrictionNsl, NewtonImpactNsl, NonsmoothLaw,
    RelayNsl,
};
pub use nsds::{DsId, DynamicalSystem, InteractionId, Nsds};
pub use relation::{LagrangianLinearTir, LagrangianRelation, LagrangianRheonomousR, LagrangianScleronomousR};
