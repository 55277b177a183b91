//! Siconos' text problem files (`.dat`): reading and writing matrices and the LCP, MLCP, relay,
//! FC2D, FC3D, global FC2D/FC3D and mixed mechanical problems they hold.
//!
//! # The format (facts from Siconos' readers, `numerics/src/tools/NumericsMatrix.c` and the
//! problems' `*_newFromFile`)
//!
//! Whitespace-separated numbers. A **matrix** is its storage type (`0` dense, `1` sparse-block,
//! `2` sparse), `size0` (rows), `size1` (columns), then:
//! - dense: `size0 size1` again and the `size0·size1` entries in column-major order;
//! - sparse-block (`SBM_new_from_file`): the number of blocks (`0`: nothing else, the matrix is
//!   zero), the numbers of block rows and columns, the cumulated row and column block sizes, the
//!   lengths of the two index arrays, the block-row pointer, the block-column indices, then each
//!   block's number and its entries (column-major);
//! - sparse (`NSM_new_from_file`): the origin (`1` triplet, `2` CSC), one banner line, then
//!   CSparse's `cs_print` text (`m-by-n, nzmax: z nnz: k, 1-norm: x`, then `col j : locations a
//!   to b` and `i : value` lines; or `triplet: m-by-n, ...` and `i j : value` lines).
//!
//! **Problems** wrap matrices (vectors have as many entries as the preceding matrix has columns):
//! - LCP: `n`, `M`, `q`;
//! - relay: `n`, `M`, `q`, `lb`, `ub`;
//! - local FC (2D or 3D): dimension `d`, number of contacts `nc`, `W`, `q`, `μ` (`nc` values);
//! - global FC: `d`, `nc`, `M`, `H`, `q`, `b`, `μ`;
//! - MLCP: `isStorageType1`, `isStorageType2`, `n`, `m`; for storage 1 the row-block starts (up
//!   to the first value `≥ n + m`), one 0/1 type per block, `M`, `q`; for storage 2 the blocks
//!   `A`, `B`, `C`, `D` written row after row, then `a`, `b`;
//! - mixed mechanical problem (Siconos' `genericMechanical_newFromFile` /
//!   `genericMechanicalProblem_printInFile`): a square sparse-block `M` (storage 1), `q`, then
//!   for each block row of `M` its law's type number (0 LCP, 2 equality, 3 FC2D, 4 FC3D),
//!   followed by `μ` for a contact block. Siconos writes and reads `μ` only for FC3D blocks
//!   (its FC2D blocks get none, and it has no bounds for relay blocks); we also write and read
//!   it for FC2D blocks, so that the file holds the whole problem. Other type numbers give
//!   [`NumericsError::UnsupportedBlock`].
//!
//! Text after the data (comments, solutions) is ignored, as Siconos ignores it.
//!
//! # Detection
//!
//! The files do not name their kind. With `kind = None` the reader tries the layouts in the order
//! MLCP, global FC, local FC, relay, LCP (a frictional contact file's first number says 2D or
//! 3D). A layout is accepted when it parses and the problem validates (sizes agree: an LCP's
//! `n` equals both matrix sizes, an FC's `W` is `d·nc` square with `d ∈ {2, 3}`, ...). Among the
//! accepted layouts the kind hinted by the file's path ([`read_problem`]: the parent folder when
//! it is a kind's name such as `fc3d`, else the file name containing `mlcp`, `relay`, `gfc2d`,
//! `gfc3d`, `fc2d`, `fc3d` or `lcp`) wins; otherwise the one leaving the fewest unread tokens,
//! then the first in the order above. (A relay file also reads as an LCP followed by `lb` and
//! `ub`; an MLCP file can read as a tiny LCP with most of the file left over: both lose on the
//! unread tokens.) When no layout is accepted, the error of the layout that read furthest is
//! returned (at equal distance, a validation error such as [`NumericsError::NonFinite`] rather
//! than a parse error), unless a layout was stopped by the read limit: then that
//! [`NumericsError::ReadLimitExceeded`] (see *Memory*). The mixed mechanical layout is tried
//! only when none of the others is accepted (its files start with a sparse-block matrix, which
//! no other layout does), or when the kind is given or hinted (a folder named `gmp` or
//! `genericmechanical`, a file name starting with `gmp`).
//!
//! # Writing
//!
//! [`format_problem`] and [`format_matrix`] write Siconos' layout (Siconos 4.4 reads the files:
//! dense and sparse-block as `NM_write_in_file` writes them, sparse as a CSC in `cs_print` form),
//! with every float in Rust's shortest round-trip form (`{:e}`), so write-then-read gives back
//! the same bits. Dense entries are written one matrix column per line.
//!
//! # FCLIB files
//!
//! [`read_problem`] and [`write_problem`] hand a path ending in `.hdf5` or `.h5` (any case) to
//! the FCLIB reader and writer ([`fclib::read_fclib`], [`fclib::write_fclib`]; HDF5, local and
//! global frictional contact problems); [`read_problem`] also does so for a file of another
//! name that starts with the HDF5 signature. They need the `fclib` cargo feature (on by
//! default); without it such a path gives [`NumericsError::InvalidInput`].
//!
//! # Robustness
//!
//! Every read is checked and a malformed input gives a [`NumericsError::Parse`] naming the token
//! and line (or the problem's own validation error, e.g. [`NumericsError::NonFinite`]), never a
//! panic. Sizes are C `int`s (at most `2³¹ − 1`) and integers must be written as integers
//! (`3.5` is refused where a count is expected).
//!
//! # Memory
//!
//! A file cannot make a reader allocate more than its size warrants, nor more than a settable
//! limit, [`ReadOptions::max_bytes`] (default [`DEFAULT_MAX_READ_BYTES`], 4 GiB; the `*_with`
//! functions take it: [`read_problem_with`], [`parse_problem_with`], [`fclib::read_fclib_with`],
//! [`fclib::read_fclib_bytes`]). Both checks come before the allocation they guard:
//! - **against the input**: every declared count (sizes, nonzeros, blocks, entries) is checked
//!   against the tokens that remain, each value needing its own token (so at least two bytes of
//!   text: a digit and a separator); a count beyond them is a [`NumericsError::Parse`] naming
//!   the count and what remains. An FCLIB dataset may declare at most the file's length, or
//!   [`fclib::MAX_EXPANSION`] times it when compressed (also a [`NumericsError::Parse`]);
//! - **against the limit**: the read keeps a running total of what it allocates, computed from
//!   the declared sizes: the file's bytes (a file longer than the limit is not read at all, and
//!   reading stops at the limit for a file whose length is unknown), the token index of a text
//!   file (24 bytes per number), each vector, each dense matrix as faer stores it (columns padded
//!   to 8 rows), the blocks of a sparse-block matrix, the entries of a sparse one with their
//!   sorting scratch, each FCLIB dataset and the conversions of its matrices. When a declared
//!   size would bring the total above the limit the read stops with
//!   [`NumericsError::ReadLimitExceeded`], naming the file, what was declared, its size in bytes
//!   and the limit. The total is conservative (temporaries are not given back), so a read's peak
//!   memory stays below the limit plus small bookkeeping.
//!
//! When a text file's layout is detected, each layout tried is charged on top of the file, its
//! token index and the best problem found so far (which is kept while the others are tried).

#[cfg(feature = "fclib")]
pub mod fclib;
mod lexer;
mod matrix;
mod problems;

use std::path::Path;

use crate::NumericsError;
use crate::fc::{Fc2dProblem, Fc3dProblem};
use crate::gfc::{GlobalFc2dProblem, GlobalFc3dProblem};
use crate::gmp::MixedProblem;
use crate::lcp::LcpProblem;
use crate::matrix::NumericsMatrix;
use crate::mlcp::MlcpProblem;
use crate::relay::RelayProblem;

use lexer::{Budget, Cursor, count_tokens, token_index_bytes, tokenize_counted};
use problems::{Layout, read_layout};

/// Default of [`ReadOptions::max_bytes`]: 4 GiB.
pub const DEFAULT_MAX_READ_BYTES: u64 = 4 << 30;

/// Options of the problem-file readers ([`read_problem_with`], [`parse_problem_with`],
/// [`fclib::read_fclib_with`], [`fclib::read_fclib_bytes`]); see the module documentation,
/// section *Memory*.
///
/// ```
/// use nonsmooth_numerics::io::{ReadOptions, parse_problem_with};
/// // A 10⁹ × 10⁹ LCP declared in a few bytes: refused before anything is allocated.
/// let options = ReadOptions::default().with_max_bytes(1 << 20);
/// assert!(parse_problem_with("1000000000 0 1000000000 1000000000 1000000000 1000000000 1", None, &options).is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ReadOptions {
    /// Most bytes one read may allocate, counted from the sizes the file declares before each
    /// allocation: the file's bytes, the token index of a text file, every vector and matrix
    /// (default: [`DEFAULT_MAX_READ_BYTES`], 4 GiB). Above it the read fails with
    /// [`NumericsError::ReadLimitExceeded`].
    pub max_bytes: u64,
}

impl Default for ReadOptions {
    fn default() -> Self {
        Self { max_bytes: DEFAULT_MAX_READ_BYTES }
    }
}

impl ReadOptions {
    /// These options with [`ReadOptions::max_bytes`] set to `max_bytes`.
    #[must_use]
    pub fn with_max_bytes(mut self, max_bytes: u64) -> Self {
        self.max_bytes = max_bytes;
        self
    }
}

/// The kinds of problem a Siconos text file can hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ProblemKind {
    /// Linear complementarity problem ([`LcpProblem`]).
    Lcp,
    /// Mixed linear complementarity problem ([`MlcpProblem`]).
    Mlcp,
    /// Relay problem ([`RelayProblem`]).
    Relay,
    /// Local 2D frictional contact ([`Fc2dProblem`]).
    Fc2d,
    /// Local 3D frictional contact ([`Fc3dProblem`]).
    Fc3d,
    /// Global 2D frictional contact ([`GlobalFc2dProblem`]).
    GlobalFc2d,
    /// Global 3D frictional contact ([`GlobalFc3dProblem`]).
    GlobalFc3d,
    /// Mixed mechanical problem ([`MixedProblem`], Siconos' `GenericMechanicalProblem`).
    Gmp,
}

impl ProblemKind {
    /// Every kind, in declaration order.
    pub const ALL: [ProblemKind; 8] = [
        ProblemKind::Lcp,
        ProblemKind::Mlcp,
        ProblemKind::Relay,
        ProblemKind::Fc2d,
        ProblemKind::Fc3d,
        ProblemKind::GlobalFc2d,
        ProblemKind::GlobalFc3d,
        ProblemKind::Gmp,
    ];

    /// Short lowercase name, as the collection's folders are named: `lcp`, `mlcp`, `relay`,
    /// `fc2d`, `fc3d`, `gfc2d`, `gfc3d`, `gmp`.
    pub fn as_str(&self) -> &'static str {
        match self {
            ProblemKind::Lcp => "lcp",
            ProblemKind::Mlcp => "mlcp",
            ProblemKind::Relay => "relay",
            ProblemKind::Fc2d => "fc2d",
            ProblemKind::Fc3d => "fc3d",
            ProblemKind::GlobalFc2d => "gfc2d",
            ProblemKind::GlobalFc3d => "gfc3d",
            ProblemKind::Gmp => "gmp",
        }
    }

    /// The kind named `name` (as [`ProblemKind::as_str`] spells it, any case).
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.as_str().eq_ignore_ascii_case(name))
    }
}

impl std::fmt::Display for ProblemKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A problem read from a file, of any kind.
#[derive(Clone, Debug)]
pub enum Problem {
    /// An LCP.
    Lcp(LcpProblem),
    /// An MLCP.
    Mlcp(MlcpProblem),
    /// A relay problem.
    Relay(RelayProblem),
    /// A local 2D frictional contact problem.
    Fc2d(Fc2dProblem),
    /// A local 3D frictional contact problem.
    Fc3d(Fc3dProblem),
    /// A global 2D frictional contact problem.
    GlobalFc2d(GlobalFc2dProblem),
    /// A global 3D frictional contact problem.
    GlobalFc3d(GlobalFc3dProblem),
    /// A mixed mechanical problem.
    Gmp(MixedProblem),
}

impl Problem {
    /// The problem's kind.
    pub fn kind(&self) -> ProblemKind {
        match self {
            Problem::Lcp(_) => ProblemKind::Lcp,
            Problem::Mlcp(_) => ProblemKind::Mlcp,
            Problem::Relay(_) => ProblemKind::Relay,
            Problem::Fc2d(_) => ProblemKind::Fc2d,
            Problem::Fc3d(_) => ProblemKind::Fc3d,
            Problem::GlobalFc2d(_) => ProblemKind::GlobalFc2d,
            Problem::GlobalFc3d(_) => ProblemKind::GlobalFc3d,
            Problem::Gmp(_) => ProblemKind::Gmp,
        }
    }

    /// Number of unknowns: `n` (LCP, relay), `n + m` (MLCP), `d·nc` reactions (local and global
    /// frictional contact; a global problem also has [`GlobalFc3dProblem::velocity_size`]
    /// velocities), `M`'s size (mixed problem).
    pub fn size(&self) -> usize {
        match self {
            Problem::Lcp(p) => p.size(),
            Problem::Mlcp(p) => p.size(),
            Problem::Relay(p) => p.size(),
            Problem::Fc2d(p) => p.size(),
            Problem::Fc3d(p) => p.size(),
            Problem::GlobalFc2d(p) => p.size(),
            Problem::GlobalFc3d(p) => p.size(),
            Problem::Gmp(p) => p.size(),
        }
    }

    /// The problem's matrices with their names: `M` (LCP, relay, MLCP whole form, plus `A`, `B`,
    /// `C`, `D` for an MLCP block form), `W` (local FC), `M` and `H` (global FC), `M` (mixed).
    pub fn matrices(&self) -> Vec<(&'static str, &NumericsMatrix)> {
        match self {
            Problem::Lcp(p) => vec![("M", p.m())],
            Problem::Relay(p) => vec![("M", p.m())],
            Problem::Fc2d(p) => vec![("W", p.w())],
            Problem::Fc3d(p) => vec![("W", p.w())],
            Problem::GlobalFc2d(p) => vec![("M", p.m()), ("H", p.h())],
            Problem::GlobalFc3d(p) => vec![("M", p.m()), ("H", p.h())],
            Problem::Gmp(p) => vec![("M", p.matrix())],
            Problem::Mlcp(p) => {
                let mut v = Vec::new();
                if let Some(f) = p.matrix_form() {
                    v.push(("M", &f.matrix));
                }
                if let Some(f) = p.block_form() {
                    v.extend([("A", &f.mat_a), ("B", &f.mat_b), ("C", &f.mat_c), ("D", &f.mat_d)]);
                }
                v
            }
        }
    }

    /// Number of contacts of a frictional contact problem (`None` for the other kinds).
    pub fn number_of_contacts(&self) -> Option<usize> {
        match self {
            Problem::Fc2d(p) => Some(p.number_of_contacts()),
            Problem::Fc3d(p) => Some(p.number_of_contacts()),
            Problem::GlobalFc2d(p) => Some(p.number_of_contacts()),
            Problem::GlobalFc3d(p) => Some(p.number_of_contacts()),
            Problem::Lcp(_) | Problem::Mlcp(_) | Problem::Relay(_) | Problem::Gmp(_) => None,
        }
    }
}

/// Reads the problem in the file at `path`: of kind `kind`, or detected (see the module
/// documentation; the path's folder or file name is the hint). A path ending in `.hdf5` or `.h5`,
/// or a file starting with the HDF5 signature, is read as FCLIB (see the module documentation).
/// What the read allocates is bounded by the file's size and by [`DEFAULT_MAX_READ_BYTES`]
/// ([`read_problem_with`] sets the limit).
///
/// # Errors
/// [`NumericsError::Io`] when the file cannot be read; [`NumericsError::Parse`] (with the path,
/// token and line) when it is malformed or holds another kind; the problem's validation error
/// ([`NumericsError::NonFinite`], [`NumericsError::DimensionMismatch`], ...) when the data are
/// inconsistent; [`NumericsError::InvalidInput`] for an FCLIB file without the `fclib` feature;
/// [`NumericsError::ReadLimitExceeded`] above the limit.
pub fn read_problem(path: &Path, kind: Option<ProblemKind>) -> Result<Problem, NumericsError> {
    read_problem_with(path, kind, &ReadOptions::default())
}

/// [`read_problem`] with a limit on what the read allocates, [`ReadOptions::max_bytes`] (see
/// the module documentation, section *Memory*).
///
/// # Errors
/// As [`read_problem`]; [`NumericsError::ReadLimitExceeded`] when the file is longer than the
/// limit or declares data that would take more.
pub fn read_problem_with(
    path: &Path,
    kind: Option<ProblemKind>,
    options: &ReadOptions,
) -> Result<Problem, NumericsError> {
    let origin = path.display().to_string();
    let bytes = read_bounded(path, options.max_bytes)?;
    if is_fclib_path(path) || bytes.starts_with(HDF5_SIGNATURE) {
        return read_fclib_checked(bytes, &origin, kind, options);
    }
    let mut budget = Budget::new(options.max_bytes);
    budget.charge(Some(bytes.len() as u64), &|| "the file".to_string(), &origin)?;
    if std::str::from_utf8(&bytes).is_err() {
        // Invalid bytes become U+FFFD (3 bytes each) in a new string.
        let len = bytes.len();
        budget.charge(
            (len as u64).checked_mul(3),
            &|| format!("the text of the file ({len} bytes, not UTF-8)"),
            &origin,
        )?;
    }
    let text = String::from_utf8_lossy(&bytes);
    parse_with(&text, kind, hint_from_path(path), &origin, budget)
}

/// The bytes of the file at `path`, refused with [`NumericsError::ReadLimitExceeded`] when the
/// file is longer than `limit` (by its length, before reading; a file whose length is unknown,
/// such as a device, is read at most to `limit + 1` bytes).
pub(crate) fn read_bounded(path: &Path, limit: u64) -> Result<Vec<u8>, NumericsError> {
    use std::io::Read as _;
    let origin = || path.display().to_string();
    let io = |source| NumericsError::Io { path: origin(), source };
    let too_long = |declared: u64| NumericsError::ReadLimitExceeded {
        path: origin(),
        what: "the file".to_string(),
        declared,
        used: 0,
        limit,
    };
    let file = std::fs::File::open(path).map_err(io)?;
    let len = file.metadata().map_err(io)?.len();
    if len > limit {
        return Err(too_long(len));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
    file.take(limit.saturating_add(1)).read_to_end(&mut bytes).map_err(io)?;
    if bytes.len() as u64 > limit {
        return Err(too_long(bytes.len() as u64));
    }
    Ok(bytes)
}

/// Parses a problem from the text of a Siconos file: of kind `kind`, or detected without a hint
/// (see the module documentation).
///
/// # Errors
/// As [`read_problem`], with `<memory>` as the path.
pub fn parse_problem(text: &str, kind: Option<ProblemKind>) -> Result<Problem, NumericsError> {
    parse_problem_with(text, kind, &ReadOptions::default())
}

/// [`parse_problem`] with a limit on what the parse allocates, [`ReadOptions::max_bytes`] (the
/// text itself, owned by the caller, is not counted; see the module documentation, section
/// *Memory*).
///
/// # Errors
/// As [`parse_problem`]; [`NumericsError::ReadLimitExceeded`] when the text declares data that
/// would take more than the limit.
pub fn parse_problem_with(
    text: &str,
    kind: Option<ProblemKind>,
    options: &ReadOptions,
) -> Result<Problem, NumericsError> {
    parse_with(text, kind, None, "<memory>", Budget::new(options.max_bytes))
}

/// Writes `problem` to `path` in Siconos' layout (see [`format_problem`]), or as FCLIB when the
/// path ends in `.hdf5` or `.h5` (see [`fclib::write_fclib`]; frictional contact problems only).
///
/// # Errors
/// [`NumericsError::Io`] when the file cannot be written; for an FCLIB path,
/// [`NumericsError::InvalidInput`] when the problem is not a frictional contact problem or the
/// `fclib` feature is off.
pub fn write_problem(path: &Path, problem: &Problem) -> Result<(), NumericsError> {
    if is_fclib_path(path) {
        #[cfg(feature = "fclib")]
        return fclib::write_fclib(path, problem);
        #[cfg(not(feature = "fclib"))]
        return Err(fclib_disabled());
    }
    std::fs::write(path, format_problem(problem))
        .map_err(|source| NumericsError::Io { path: path.display().to_string(), source })
}

/// The text of `problem` in Siconos' layout, floats in shortest round-trip form: parsing it
/// gives back the same problem, bit for bit, and Siconos 4.4 reads it.
pub fn format_problem(problem: &Problem) -> String {
    let mut out = String::new();
    problems::write_problem(&mut out, problem);
    out
}

/// Reads an LCP file (`linearComplementarity_newFromFilename`'s layout).
///
/// # Errors
/// As [`read_problem`] with the kind fixed to LCP.
pub fn read_lcp(path: &Path) -> Result<LcpProblem, NumericsError> {
    match read_problem(path, Some(ProblemKind::Lcp))? {
        Problem::Lcp(p) => Ok(p),
        other => Err(NumericsError::Parse {
            path: path.display().to_string(),
            reason: format!("expected an lcp, found a {} problem", other.kind()),
        }),
    }
}

/// Writes an LCP in Siconos' layout (`linearComplementarity_printInFile`), readable by Siconos'
/// `linearComplementarity_newFromFilename`.
///
/// # Errors
/// [`NumericsError::Io`] when the file cannot be written.
pub fn write_lcp(path: &Path, problem: &LcpProblem) -> Result<(), NumericsError> {
    let mut out = String::new();
    problems::write_lcp(&mut out, problem);
    std::fs::write(path, out).map_err(|source| NumericsError::Io { path: path.display().to_string(), source })
}

/// Parses one matrix in Siconos' layout (`NM_new_from_file`); text after it is ignored.
///
/// # Errors
/// [`NumericsError::Parse`] when the text is malformed; [`NumericsError::InvalidInput`] or
/// [`NumericsError::NonFinite`] for an inconsistent sparse-block structure.
///
/// What the parse allocates is bounded by the text's size and by [`DEFAULT_MAX_READ_BYTES`]
/// (then [`NumericsError::ReadLimitExceeded`]).
pub fn parse_matrix(text: &str) -> Result<NumericsMatrix, NumericsError> {
    let mut budget = Budget::new(DEFAULT_MAX_READ_BYTES);
    let tokens = tokens_charged(text, &mut budget, "<memory>")?;
    let mut c = Cursor::new(&tokens, "<memory>", budget);
    matrix::read_matrix(&mut c, "the matrix")
}

/// The tokens of `text`, their index charged to `budget` before it is allocated.
fn tokens_charged<'a>(
    text: &'a str,
    budget: &mut Budget,
    origin: &str,
) -> Result<Vec<lexer::Token<'a>>, NumericsError> {
    let count = count_tokens(text);
    budget.charge(
        Some(token_index_bytes(count)),
        &|| format!("the token index of the text ({count} numbers)"),
        origin,
    )?;
    Ok(tokenize_counted(text, count))
}

/// The text of `m` in Siconos' layout (`NM_write_in_file`; a sparse matrix is written as a CSC in
/// `cs_print` form), floats in shortest round-trip form.
pub fn format_matrix(m: &NumericsMatrix) -> String {
    let mut out = String::new();
    matrix::write_matrix(&mut out, m);
    out
}

/// The first bytes of every HDF5 file (the format's signature).
const HDF5_SIGNATURE: &[u8] = b"\x89HDF\r\n\x1a\n";

/// `true` when `path` ends in `.hdf5` or `.h5` (any case): an FCLIB file.
pub fn is_fclib_path(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("hdf5") || e.eq_ignore_ascii_case("h5"))
}

/// Reads the bytes of an FCLIB file and checks its kind against `kind` when given.
#[cfg(feature = "fclib")]
fn read_fclib_checked(
    bytes: Vec<u8>,
    origin: &str,
    kind: Option<ProblemKind>,
    options: &ReadOptions,
) -> Result<Problem, NumericsError> {
    let p = fclib::read_fclib_from(bytes, origin, options)?;
    match kind {
        Some(k) if k != p.kind() => Err(NumericsError::Parse {
            path: origin.to_string(),
            reason: format!("expected a {k} problem, the FCLIB file holds a {} problem", p.kind()),
        }),
        _ => Ok(p),
    }
}

/// Without the `fclib` feature, FCLIB files are refused.
#[cfg(not(feature = "fclib"))]
fn read_fclib_checked(
    _bytes: Vec<u8>,
    _origin: &str,
    _kind: Option<ProblemKind>,
    _options: &ReadOptions,
) -> Result<Problem, NumericsError> {
    Err(fclib_disabled())
}

/// The error for an FCLIB file when the `fclib` feature is off.
#[cfg(not(feature = "fclib"))]
fn fclib_disabled() -> NumericsError {
    NumericsError::InvalidInput {
        what: "problem file",
        reason: "FCLIB (HDF5) files need nonsmooth-numerics' `fclib` feature".into(),
    }
}

/// The hinted kind of a file: its parent folder when that is a kind's name (or
/// `genericmechanical`: a mixed problem), else a mixed problem for a file name starting with
/// `gmp`, else the first of `mlcp`, `relay`, `gfc2d`, `gfc3d`, `fc2d`, `fc3d`, `lcp` that its
/// file name contains.
fn hint_from_path(path: &Path) -> Option<ProblemKind> {
    let folder = path.parent().and_then(|p| p.file_name()).and_then(|f| f.to_str());
    if let Some(k) = folder.and_then(ProblemKind::from_name) {
        return Some(k);
    }
    if folder.is_some_and(|f| f.eq_ignore_ascii_case("genericmechanical")) {
        return Some(ProblemKind::Gmp);
    }
    let name = path.file_name()?.to_str()?.to_ascii_lowercase();
    if name.starts_with("gmp") {
        return Some(ProblemKind::Gmp);
    }
    [
        ProblemKind::Mlcp,
        ProblemKind::Relay,
        ProblemKind::GlobalFc2d,
        ProblemKind::GlobalFc3d,
        ProblemKind::Fc2d,
        ProblemKind::Fc3d,
        ProblemKind::Lcp,
    ]
    .into_iter()
    .find(|k| name.contains(k.as_str()))
}

/// Parses with a fixed kind, or detects the layout (hinted kind first).
fn parse_with(
    text: &str,
    kind: Option<ProblemKind>,
    hint: Option<ProblemKind>,
    origin: &str,
    mut budget: Budget,
) -> Result<Problem, NumericsError> {
    let tokens = tokens_charged(text, &mut budget, origin)?;
    if let Some(k) = kind {
        let mut c = Cursor::new(&tokens, origin, budget);
        return read_layout(&mut c, Layout::of(k), Some(k));
    }
    let mut order: Vec<Layout> = hint.map(Layout::of).into_iter().collect();
    order.extend(Layout::DETECTION_ORDER.into_iter().filter(|l| Some(*l) != hint.map(Layout::of)));
    let mut best: Option<(usize, usize, Problem)> = None;
    let mut furthest: Option<((bool, usize, bool), NumericsError)> = None;
    // Each layout tried starts from the budget left after the best problem found so far, which
    // is kept while the others are tried.
    let mut start = budget;
    for layout in order {
        let mut c = Cursor::new(&tokens, origin, start);
        match read_layout(&mut c, layout, None) {
            Ok(p) => {
                if Some(p.kind()) == hint {
                    return Ok(p);
                }
                let rank = Layout::DETECTION_ORDER.iter().position(|l| *l == layout).unwrap_or(0);
                let trailing = c.remaining();
                if best.as_ref().is_none_or(|(t, r, _)| (trailing, rank) < (*t, *r)) {
                    best = Some((trailing, rank, p));
                    start = c.budget();
                }
            }
            Err(e) => {
                // A layout stopped by the read limit comes first (the file may be valid, only
                // larger than the limit); then the furthest; at the same position, a validation
                // error (the layout matched, the data did not) says more than a parse error.
                let limited = matches!(e, NumericsError::ReadLimitExceeded { .. });
                let key = (limited, c.pos(), !matches!(e, NumericsError::Parse { .. }));
                if furthest.as_ref().is_none_or(|(k, _)| key > *k) {
                    furthest = Some((key, e));
                }
            }
        }
    }
    // The mixed layout last, and only when no other fits (unless hinted, then it came first).
    if best.is_none() && hint != Some(ProblemKind::Gmp) {
        let mut c = Cursor::new(&tokens, origin, budget);
        match read_layout(&mut c, Layout::Gmp, None) {
            Ok(p) => return Ok(p),
            Err(e) => {
                let limited = matches!(e, NumericsError::ReadLimitExceeded { .. });
                let key = (limited, c.pos(), !matches!(e, NumericsError::Parse { .. }));
                if furthest.as_ref().is_none_or(|(k, _)| key > *k) {
                    furthest = Some((key, e));
                }
            }
        }
    }
    match (best, furthest) {
        (Some((_, _, p)), _) => Ok(p),
        (None, Some((_, e))) => Err(e),
        (None, None) => Err(NumericsError::Parse { path: origin.to_string(), reason: "no layout to try".into() }),
    }
}

#[cfg(test)]
mod gmp_tests {
    use super::*;

    /// One FC3D block of a mixed mechanical problem, in Siconos' layout: `M` (3 × 3, one
    /// sparse block), `q`, then the block's type and friction coefficient.
    const GENERIC_MECHANICAL: &str = "1 3 3 1 1 1 3 3 2 1 0 1 0 0 1.87 -0.33 -0.54 -0.33 1.56 -0.38 -0.54 -0.38 1.46 \
                                      -1.3e-4 -0.14 -3.9e-3 4 0.1";

    #[test]
    fn a_generic_mechanical_file_is_detected_and_round_trips() {
        let p = parse_problem(GENERIC_MECHANICAL, None).expect("a mixed problem");
        let Problem::Gmp(gmp) = &p else { panic!("read as {}", p.kind()) };
        assert_eq!(gmp.blocks(), &[crate::gmp::BlockKind::Fc3d { mu: 0.1 }]);
        assert_eq!(gmp.q(), &[-1.3e-4, -0.14, -3.9e-3]);
        let again = parse_problem(&format_problem(&p), Some(ProblemKind::Gmp)).expect("round trip");
        let Problem::Gmp(again) = again else { panic!("kind changed") };
        assert_eq!(&again, gmp);
        // Without the laws it is only a matrix and a vector: a parse error.
        let bare = GENERIC_MECHANICAL.rsplitn(3, ' ').nth(2).expect("three tokens or more");
        assert!(matches!(parse_problem(bare, None), Err(NumericsError::Parse { .. })));
        // A relay law (Siconos type 9) is named.
        let relay = GENERIC_MECHANICAL.replace(" 4 0.1", " 9");
        let err = parse_problem(&relay, None).expect_err("relay blocks are not read");
        assert!(matches!(err, NumericsError::UnsupportedBlock { block: 0, code: 9, name: "RELAY" }), "{err}");
        // A forced kind reads the kind's layout.
        assert!(matches!(parse_problem(GENERIC_MECHANICAL, Some(ProblemKind::Lcp)), Err(NumericsError::Parse { .. })));
    }
}

#[cfg(test)]
mod tests;
