//! # nonsmooth
//!
//! Simulation of nonsmooth dynamical systems (unilateral contact, impacts, Coulomb friction,
//! complementarity systems), after INRIA's Siconos. This facade re-exports the three crates and
//! a prelude; it holds no logic. The command-line tool `nonsmooth` is the separate package
//! `nonsmooth-cli`.
//!
//! | module | what it holds | Siconos counterpart |
//! |---|---|---|
//! | [`numerics`] | finite-dimensional problems (LCP, MLCP, relay, frictional contact in 2D and 3D, local and global, mixed mechanical), their solvers, matrices and problem files; no notion of time | `numerics` |
//! | [`kernel`] | modelling (dynamical systems, relations, nonsmooth laws, interactions) and simulation (Moreau–Jean and other one-step integrators, one-step nonsmooth problems, time-stepping, event-driven) | `kernel` |
//! | [`mechanics`] | Newton–Euler rigid bodies with quaternions, shapes, contact detection, scenes | `mechanics` |
//! | [`prelude`] | the names most programs need, from all three | |
//! | [`guide`] | three complete programs: a bouncing ball, a sphere pile, an FC3D problem file | |
//!
//! A linear complementarity problem solved by Lemke's method:
//!
//! ```
//! use nonsmooth::prelude::*;
//!
//! # fn main() -> Result<(), NumericsError> {
//! // w = M z + q, 0 ≤ z ⊥ w ≥ 0
//! let m = nonsmooth::numerics::faer::mat![[2.0, 1.0], [1.0, 2.0]];
//! let problem = LcpProblem::new(NumericsMatrix::Dense(m), vec![-5.0, -6.0])?;
//! let mut solver = LcpMethod::from_name("lemke", Some(1e-12), None).expect("a known name").build()?;
//! let (mut z, mut w) = (vec![0.0; 2], vec![0.0; 2]);
//! let report = solver.solve(&problem, &mut z, &mut w)?;
//! println!("{} after {} pivots, residual {:e}: z = {z:?}", report.status, report.iterations, report.residual);
//! assert!(report.is_converged());
//! # Ok(())
//! # }
//! ```
//!
//! The formulations and algorithms follow V. Acary and B. Brogliato, *Numerical Methods for
//! Nonsmooth Dynamical Systems*, Lecture Notes in Applied and Computational Mechanics 35,
//! Springer, 2008, and the Siconos documentation
//! (<https://nonsmooth.gricad-pages.univ-grenoble-alpes.fr/siconos/>); each module names its
//! own references.

pub mod guide;

// The crates' modules are re-exported one by one, so that their documentation is inlined here
// while the linear algebra crates they re-export (faer, sprs) stay links: inlining a whole crate
// would copy faer's documentation into this one twice.

pub mod numerics {
    //! Finite-dimensional nonsmooth problems and their solvers (crate `nonsmooth-numerics`):
    //! linear complementarity ([`lcp`]), mixed LCP ([`mlcp`]), relay ([`relay`]), frictional
    //! contact in 2D and 3D ([`fc`]) and its global form ([`gfc`]); the matrices they are built on
    //! ([`matrix`]); Siconos `.dat` and FCLIB problem files ([`io`]); polynomial roots
    //! ([`roots`]). Nothing here knows of time, dynamical systems or bodies: it is usable alone,
    //! as Siconos/Numerics is.

    #[doc(inline)]
    pub use nonsmooth_numerics::{NumericsError, Parallelism, SolverReport, SolverStatus};
    #[doc(no_inline)]
    pub use nonsmooth_numerics::{faer, sprs};
    #[doc(inline)]
    pub use nonsmooth_numerics::{fc, gfc, gmp, io, lcp, matrix, mlcp, relay, roots};
}

pub mod kernel {
    //! Modelling and simulation of nonsmooth dynamical systems (crate `nonsmooth-kernel`), in
    //! Siconos' vocabulary: dynamical systems, relations, nonsmooth laws and the graph of
    //! interactions that links them ([`model`]); one-step integrators, one-step nonsmooth
    //! problems, time-stepping and event-driven simulations ([`simulation`]); trajectory files
    //! ([`io`]).

    #[doc(inline)]
    pub use nonsmooth_kernel::KernelError;
    #[doc(no_inline)]
    pub use nonsmooth_kernel::numerics;
    #[doc(inline)]
    pub use nonsmooth_kernel::{io, model, simulation};
}

pub mod mechanics {
    //! Rigid-body mechanics (crate `nonsmooth-mechanics`): Newton–Euler bodies with unit
    //! quaternions ([`body`], [`lie`]), shapes and contact detection ([`geometry`]), contact
    //! relations with local frames ([`contact`]), user-defined relations on Newton–Euler bodies
    //! ([`relation`]) and the joints and joint stops built on them ([`joints`]), scenes that
    //! detect contacts before every step ([`scene`], [`pile`]), their output ([`output`]) and the
    //! runner that steps a scene with its outputs ([`run`]).

    #[doc(inline)]
    pub use nonsmooth_mechanics::MechanicsError;
    #[doc(inline)]
    pub use nonsmooth_mechanics::{
        body, contact, geometry, joints, lie, output, pile, relation, run, scene, scene_file,
    };
}

pub mod prelude {
    //! The names most programs need: `use nonsmooth::prelude::*;`.
    //!
    //! - numerics: the LCP and frictional contact (FC2D, FC3D) problems, the methods that choose a
    //!   solver at run time and the solver traits, NSGS and its options, the report, the matrices,
    //!   the error, and [`read_problem`] for Siconos and FCLIB problem files;
    //! - kernel: the dynamical systems, relations and nonsmooth laws, the [`Nsds`] that links them,
    //!   [`TimeStepping`] with [`MoreauJeanOsi`] (and [`EulerMoreauOsi`] for first-order systems),
    //!   [`OneStepNsProblem`], the time grid, options and reports, the error;
    //! - mechanics: [`Scene`], [`SceneBuilder`], [`BodySpec`], [`Shape`], [`Material`], [`Vec3`],
    //!   [`Quaternion`], [`NewtonEulerDs`], the error.
    //!
    //! The traits ([`LcpSolver`], [`Fc3dSolver`], [`SecondOrderDs`], [`OneStepIntegrator`], ...)
    //! are here so that their methods can be called.

    pub use nonsmooth_numerics::fc::nsgs::{NsgsLocalSolver, NsgsOptions, NsgsSolver};
    pub use nonsmooth_numerics::fc::nsgs2d::{Nsgs2dOptions, Nsgs2dSolver};
    pub use nonsmooth_numerics::fc::{Fc2dMethod, Fc2dProblem, Fc2dSolver, Fc3dMethod, Fc3dProblem, Fc3dSolver};
    pub use nonsmooth_numerics::io::{Problem, ProblemKind, read_problem};
    pub use nonsmooth_numerics::lcp::{LcpMethod, LcpProblem, LcpSolver, LemkeOptions};
    pub use nonsmooth_numerics::matrix::{NumericsMatrix, SparseBlockMatrix, Storage};
    pub use nonsmooth_numerics::{NumericsError, Parallelism, SolverReport, SolverStatus};

    pub use nonsmooth_kernel::KernelError;
    pub use nonsmooth_kernel::model::{
        DsId, FirstOrderDs, FirstOrderLinearDs, FirstOrderLinearTids, FirstOrderLinearTir, FirstOrderNonLinearDs,
        FirstOrderType1R, FirstOrderType2R, InteractionId, LagrangianDs, LagrangianLinearTids, LagrangianLinearTir,
        LagrangianRelation, LagrangianRheonomousR, LagrangianScleronomousR, NonsmoothLaw, Nsds, SecondOrderDs,
    };
    pub use nonsmooth_kernel::simulation::{
        EulerMoreauOsi, MoreauJeanOsi, NonConvergencePolicy, OneStepIntegrator, OneStepNsProblem, StepReport,
        TimeDiscretisation, TimeStepping, TimeSteppingOptions, Trajectory,
    };

    pub use nonsmooth_mechanics::MechanicsError;
    pub use nonsmooth_mechanics::body::NewtonEulerDs;
    pub use nonsmooth_mechanics::geometry::{Pose, Shape};
    pub use nonsmooth_mechanics::lie::{Quaternion, Vec3};
    pub use nonsmooth_mechanics::scene::{BodySpec, Material, Scene, SceneBuilder, SceneNonConvergence, SceneOptions};
}
