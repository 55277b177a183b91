//! Mixed linear complementarity problems (Siconos `numerics/src/MLCP`): `n` equalities and `m`
//! complementarity conditions on `z = (u, v)`.
//!
//! Only the problem type lives here for now; solvers come with a later issue.

mod problem;

pub use problem::{MlcpBlockForm, MlcpMatrixForm, MlcpProblem};
