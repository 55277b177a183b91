//! Simulation: one-step integrators, one-step nonsmooth problems and time-stepping (Siconos'
//! `kernel/src/simulationTools`).

pub mod euler_moreau;
pub mod event_driven;
pub mod events;
pub mod moreau_jean;
pub mod moreau_jean_global;
pub mod ode;
pub mod osi;
pub mod osns;
pub mod projection;
pub mod recorder;
pub mod schatzman_paoli;
pub mod summary;
pub mod time_stepping;

pub use euler_moreau::{EulerMoreauOptions, EulerMoreauOsi};
pub use event_driven::{
    EventDriven, EventDrivenOptions, EventReport, FrictionMode, IntegrationTotals, LsodarSmooth, RestartingOde,
    SmoothIntegrator, ZenoAccumulation, ZenoPolicy,
};
pub use events::{EVENT_TOLERANCE, Event, EventKind, EventsManager};
pub use moreau_jean::{MoreauJeanOptions, MoreauJeanOsi, kinetic_energy};
pub use moreau_jean_global::MoreauJeanGlobalOsi;
pub use ode::{
    LsodarIntegrator, LsodarMethod, LsodarStats, OdeFailureReason, OdeIntegrator, OdeMethod, OdeOptions, OdeStats,
    OdeStop,
};
pub use osi::{
    AfterNewton, Contribution, FirstOrderContribution, IndexSetRule, OneStepIntegrator, OsiContext, ProblemLevel,
    SecondOrderContribution, StepInterval, SystemSet,
};
pub use osns::{GlobalFrictionContact, GlobalSolver, MatrixStorage, OneStepNsProblem, OneStepProblem, OsnsKind};
pub use projection::{
    CombinedProjectionOptions, DirectProjectionOptions, MoreauJeanCombinedProjectionOsi, MoreauJeanDirectProjectionOsi,
    ProjectionReport,
};
pub use recorder::Trajectory;
pub use schatzman_paoli::{SchatzmanPaoliOptions, SchatzmanPaoliOsi, SchatzmanPaoliStartup};
pub use summary::{Miss, RunSummary};
pub use time_stepping::{
    NonConvergencePolicy, StepReport, StepTimings, TimeDiscretisation, TimeStepping, TimeSteppingBuilder,
    TimeSteppingOptions,
};
