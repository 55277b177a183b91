//! The error type of the numerics crate.

use thiserror::Error;

/// Errors raised by `nonsmooth-numerics`: bad input (shapes, non-finite data, invalid options,
/// unreadable files). Non-convergence is never an error: it is a [`crate::SolverStatus`].
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum NumericsError {
    /// Two sizes that must agree do not.
    #[error("dimension mismatch in {what}: expected {expected}, found {found}")]
    DimensionMismatch {
        /// What was being checked.
        what: &'static str,
        /// The size required.
        expected: usize,
        /// The size given.
        found: usize,
    },
    /// An entry of the data is NaN or infinite.
    #[error("non-finite value in {what}")]
    NonFinite {
        /// The offending vector or matrix.
        what: &'static str,
    },
    /// A problem with no unknowns.
    #[error("empty problem: {what}")]
    EmptyProblem {
        /// Which problem.
        what: &'static str,
    },
    /// An option is out of its admissible range.
    #[error("invalid option {name}: {reason}")]
    InvalidOption {
        /// The option's field name.
        name: &'static str,
        /// Why it is rejected.
        reason: &'static str,
    },
    /// A solver's thread pool ([`crate::Parallelism::Rayon`]) could not be built.
    #[error("cannot build a thread pool of {threads} threads: {reason}")]
    ThreadPool {
        /// The threads asked for.
        threads: usize,
        /// What rayon reported.
        reason: String,
    },
    /// The input is structurally invalid (e.g. a sparse-block matrix whose indices are inconsistent).
    #[error("invalid input in {what}: {reason}")]
    InvalidInput {
        /// What was being built.
        what: &'static str,
        /// Why it is rejected.
        reason: String,
    },
    /// A problem file holds a Siconos problem type this crate does not read (recognised by its
    /// layout, e.g. a `GenericMechanicalProblem`).
    #[error(
        "unsupported problem type: {problem} ({siconos}) in {path}; the supported types are lcp, mlcp, relay, \
         fc2d, fc3d, gfc2d, gfc3d and gmp"
    )]
    UnsupportedProblem {
        /// The file's path (or `<memory>`).
        path: String,
        /// The problem type, in words (e.g. `generic mechanical`).
        problem: &'static str,
        /// Siconos' name of the type (e.g. `GenericMechanicalProblem`).
        siconos: &'static str,
    },
    /// A block of a mixed problem ([`crate::gmp::MixedProblem`]) has a nonsmooth law that a
    /// mixed problem here cannot hold (Siconos' problem-type number `code`).
    #[error(
        "unsupported law of block {block} of a mixed problem: Siconos type {code} ({name}); the supported types \
         are 0 (LCP), 2 (EQUALITY), 3 (FC2D) and 4 (FC3D)"
    )]
    UnsupportedBlock {
        /// The block row.
        block: usize,
        /// Siconos' problem-type number.
        code: i64,
        /// Siconos' name of the type (`RELAY`, `MLCP`, ...), `unknown` for a number it does
        /// not define.
        name: &'static str,
    },
    /// The solver does not handle this matrix storage.
    #[error("solver {solver} does not support {storage} storage")]
    UnsupportedStorage {
        /// The solver's name.
        solver: &'static str,
        /// The storage given.
        storage: &'static str,
    },
    /// A solver would store a matrix densely (`rows × cols` entries of 8 bytes) above the limit
    /// set by its `max_dense_bytes` option; `alternative` names what works on the sparse data
    /// instead (a sparse solver, a sparse storage).
    #[error(
        "{what} needs a dense {rows} x {cols} matrix ({bytes} bytes), above max_dense_bytes = {limit}; \
         use {alternative} instead (or raise max_dense_bytes)"
    )]
    DenseTooLarge {
        /// What would be densified (e.g. `the LCP reformulation of FC2D`).
        what: &'static str,
        /// Rows of the dense matrix.
        rows: usize,
        /// Columns of the dense matrix.
        cols: usize,
        /// Its size in bytes, `8 · rows · cols`.
        bytes: u64,
        /// The limit in bytes.
        limit: u64,
        /// What to use on the sparse data instead, as the command-line tool spells it (e.g.
        /// `the solver nsgs`).
        alternative: &'static str,
    },
    /// A matrix that must be nonsingular (a diagonal entry, a pivot) is singular.
    #[error("singular matrix in {what}")]
    Singular {
        /// Which matrix.
        what: &'static str,
    },
    /// A problem file could not be read or written.
    #[error("i/o error on {path}: {source}")]
    Io {
        /// The file's path.
        path: String,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// A problem file could not be parsed.
    #[error("parse error in {path}: {reason}")]
    Parse {
        /// The file's path (or `<memory>`).
        path: String,
        /// What went wrong, with the token position.
        reason: String,
    },
    /// Reading a problem file would allocate more than the reader's limit
    /// ([`crate::io::ReadOptions::max_bytes`]): the file itself is larger, or it declares a
    /// matrix or vector whose storage, with what the read has already allocated, exceeds it.
    #[error(
        "{path}: {what} needs {declared} bytes, with {used} bytes already allocated by the read; \
         above the read limit of {limit} bytes (raise ReadOptions::max_bytes to read it)"
    )]
    ReadLimitExceeded {
        /// The file's path (or `<memory>`).
        path: String,
        /// What would be allocated (e.g. `the fc matrix W (dense 9 × 9)`).
        what: String,
        /// The bytes it needs, computed from the sizes the file declares.
        declared: u64,
        /// The bytes the read had already allocated.
        used: u64,
        /// The limit in bytes.
        limit: u64,
    },
}
