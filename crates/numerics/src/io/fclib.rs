//! FCLIB HDF5 files: reading and writing local and global frictional contact problems.
//!
//! FCLIB (the Frictional Contact Library, `src/fclib.c` and `src/fclib.h` of
//! FrictionalContactLibrary/fclib, <https://fclib.github.io>) stores one problem per HDF5 file.
//! This module reads and writes that layout in pure Rust (crate `hdf5-pure`: no C library, no
//! build script), enabled by the `fclib` cargo feature (on by default). It reads what the HDF5 C
//! library writes (superblocks 0 to 3, old- and new-style groups, contiguous, compact and chunked
//! datasets, deflate-compressed or not).
//!
//! # The layout (facts from `fclib.c` and the collection's files)
//!
//! - `/fclib_local` (local problem `u = W r + q`): `spacedim` (2 or 3), the matrix group `W`
//!   (`n·d × n·d`), the group `vectors` with `q` (`m` values) and `mu` (`m / spacedim`), optional
//!   `V`, `R` and `vectors/s` (not used here), and an optional `info` group.
//! - `/fclib_global` (global problem `M v = H r + f`, `u = Hᵀ v + w`): `spacedim`, the matrix
//!   groups `M` and `H`, optional `G` and `vectors/b` (not used here), `vectors` with `f` (`M.m`
//!   values), `w` (`H.n`) and `mu` (`H.n / spacedim`), and an optional `info` group.
//! - A matrix group holds four one-element integer datasets `nzmax`, `m`, `n`, `nz` and three
//!   arrays: with `nz ≥ 0` a triplet form (`p` column indices and `i` row indices, `nz` each, as
//!   CSparse's triplets); with `nz = −1` compressed columns (`p`: `n + 1` column pointers, `i`:
//!   `nzmax` row indices); with `nz = −2` compressed rows (`p`: `m + 1` row pointers, `i`: `nzmax`
//!   column indices); `x` holds `nzmax` values. Integers are 32-bit (`H5T_NATIVE_INT`), values
//!   64-bit floats. Files with `nzmax` larger than the entries used may store shorter `i` and `x`
//!   (the collection's `spheres-in-a-box` file: `nzmax` 12288, `nz` 7046, arrays of 7046): the
//!   arrays are read at their own length and must cover the entries used. An optional matrix `info` (`comment`, `conditioning`, ...) is ignored.
//! - `info` holds the strings `title`, `description` and `math_info` (fixed-length ASCII, scalar
//!   dataspace, as `H5LTmake_dataset_string` writes them).
//! - `/solution` and `/guesses` (`v`, `u`, `r`, `l`) are not read.
//!
//! # Mapping to our problems (as Siconos' `numerics/src/FrictionContact/fclib_interface.c`)
//!
//! - local: `W` becomes a [`SparseBlockMatrix`] with `spacedim × spacedim` blocks (Siconos'
//!   `from_fclib_local` calls `SBM_from_csparse_2` with the dimension as block size); `q`, `mu`
//!   as they are; `spacedim` 3 gives [`Problem::Fc3d`], 2 gives [`Problem::Fc2d`].
//! - global: FCLIB's `f` is our (Siconos') `q` and FCLIB's `w` our `b`
//!   (`from_fclib_global`: `problem->q = f`, `problem->b = w`); `M` and `H` become general sparse
//!   matrices (compressed columns; Siconos keeps them `NM_SPARSE`).
//!
//! Every stored entry of the file is kept, explicit zeros included (a block holding only stored
//! zeros is a stored block). Triplet entries given twice at one position are added in file
//! order; entries within a column are sorted by row (the collection's CSR file lists its column
//! indices unsorted).
//!
//! # Writing
//!
//! [`write_fclib`] writes compressed columns (`nz = −1`, `nzmax` = the number of stored
//! entries), which FCLIB and Siconos read for `W`, `M` and `H` alike: every entry of a dense
//! matrix, every entry of every stored block of a sparse-block matrix (zeros included), every
//! stored entry of a sparse matrix. The `info` group says the file was written by nonsmooth.
//! The file is in the HDF5 1.8 format (version 2 superblock), which HDF5 1.8 and later read.
//! Reading the file back gives the same entries, bit for bit.
//!
//! # Robustness
//!
//! A malformed file gives a typed error, never a panic: [`NumericsError::Io`] when the file
//! cannot be read or created, [`NumericsError::Parse`] (with the path and the dataset) for a
//! file that is not HDF5, a missing group or dataset, a dataset of the wrong type or length, a
//! pointer array that is not monotone or an index out of range,
//! [`NumericsError::DimensionMismatch`] when the declared sizes disagree, and the problem
//! constructors' errors ([`NumericsError::NonFinite`] for NaN or infinite data,
//! [`NumericsError::InvalidInput`] for a negative μ). Sizes are checked against each other and
//! against the vectors' datasets before any matrix is built, and no dataset is read whose
//! declared size exceeds the file's length (uncompressed) or [`MAX_EXPANSION`] times it
//! (compressed: deflate's ratio is at most about 1032:1), so a corrupt header cannot cause an
//! allocation far beyond the file's size. On top of that, [`ReadOptions::max_bytes`] (default
//! 4 GiB, [`read_fclib_with`] sets it) bounds the whole read: the file's bytes, each dataset by
//! its declared size, the matrices built from them, each counted before it is allocated; above
//! it the read fails with [`NumericsError::ReadLimitExceeded`].

use std::cell::Cell;
use std::path::Path;

use hdf5_pure::{CharacterSet, Datatype, FileBuilder, GroupBuilder, LibVer, StringPadding};
use sprs::CsMat;

use super::lexer::{Budget, array_bytes};
use super::{Problem, ReadOptions};
use crate::NumericsError;
use crate::fc::{Fc2dProblem, Fc3dProblem};
use crate::gfc::{GlobalFc2dProblem, GlobalFc3dProblem};
use crate::matrix::{NumericsMatrix, SparseBlockMatrix, uniform_block_ends};

/// A compressed (filtered) dataset may declare at most this many bytes per byte of the file
/// (plus one MiB): deflate compresses at most about 1032:1, so a real file never exceeds it, and
/// a crafted header declaring a huge dataset is refused before anything is allocated. An
/// uncompressed dataset may declare at most the file's length.
pub const MAX_EXPANSION: u64 = 1100;

/// The `info/title` string [`write_fclib`] writes.
const INFO_TITLE: &str = "written by nonsmooth";
/// The `info/description` string [`write_fclib`] writes.
const INFO_DESCRIPTION: &str = "frictional contact problem written by nonsmooth (Rust)";
/// The `info/math_info` string [`write_fclib`] writes.
const INFO_MATH: &str = "local: u = W r + q; global: M v = H r + f, u = H^T v + w; Coulomb cones with mu";

/// Reads the frictional contact problem of the FCLIB file at `path`: a local problem
/// (`/fclib_local`, giving [`Problem::Fc3d`] or [`Problem::Fc2d`] by `spacedim`) or a global one
/// (`/fclib_global`, giving [`Problem::GlobalFc3d`] or [`Problem::GlobalFc2d`]). See the module
/// documentation for the layout and the mapping (Siconos' `frictionContact_fclib_read` and
/// `globalFrictionContact_fclib_read`).
///
/// # Errors
/// [`NumericsError::Io`] when the file cannot be read; [`NumericsError::Parse`] when it is not
/// HDF5 or not FCLIB (missing or malformed group or dataset, a dataset declaring more data than
/// the file can hold); [`NumericsError::DimensionMismatch`] when the sizes disagree; the problem
/// constructors' errors for invalid data.
///
/// # References
/// V. Acary, M. Brémond, O. Huber, "On solving contact problems with Coulomb friction:
/// formulations and numerical comparisons", in *Advanced Topics in Nonsmooth Dynamics*,
/// Springer, 2018 (the FCLIB collection and its format); <https://fclib.github.io>.
#[doc(alias = "frictionContact_fclib_read")]
#[doc(alias = "globalFrictionContact_fclib_read")]
pub fn read_fclib(path: &Path) -> Result<Problem, NumericsError> {
    read_fclib_with(path, &ReadOptions::default())
}

/// [`read_fclib`] with a limit on what the read allocates, [`ReadOptions::max_bytes`]: the file
/// (refused unread when longer), every dataset by its declared size and the matrices built from
/// them, counted before each allocation (see the `io` module documentation, section *Memory*).
///
/// # Errors
/// As [`read_fclib`]; [`NumericsError::ReadLimitExceeded`] when the file or what it declares
/// would take more than the limit.
///
/// # References
/// V. Acary, M. Brémond, O. Huber, "On solving contact problems with Coulomb friction:
/// formulations and numerical comparisons", in *Advanced Topics in Nonsmooth Dynamics*,
/// Springer, 2018 (the FCLIB collection and its format); <https://fclib.github.io>.
pub fn read_fclib_with(path: &Path, options: &ReadOptions) -> Result<Problem, NumericsError> {
    let bytes = super::read_bounded(path, options.max_bytes)?;
    read_fclib_from(bytes, &path.display().to_string(), options)
}

/// [`read_fclib_with`] on the bytes of an FCLIB file held in memory (errors name `<memory>`).
///
/// # Errors
/// As [`read_fclib_with`], without [`NumericsError::Io`].
///
/// # References
/// V. Acary, M. Brémond, O. Huber, "On solving contact problems with Coulomb friction:
/// formulations and numerical comparisons", in *Advanced Topics in Nonsmooth Dynamics*,
/// Springer, 2018 (the FCLIB collection and its format); <https://fclib.github.io>.
pub fn read_fclib_bytes(bytes: Vec<u8>, options: &ReadOptions) -> Result<Problem, NumericsError> {
    read_fclib_from(bytes, "<memory>", options)
}

/// Reads the FCLIB file whose bytes are `bytes`; `origin` names it in errors.
pub(crate) fn read_fclib_from(bytes: Vec<u8>, origin: &str, options: &ReadOptions) -> Result<Problem, NumericsError> {
    // The whole file is held in memory: its length bounds every dataset, and the HDF5 parser
    // works on the bytes.
    let len = bytes.len() as u64;
    let mut budget = Budget::new(options.max_bytes);
    budget.charge(Some(len), &|| "the file".to_string(), origin)?;
    let file =
        hdf5_pure::File::from_bytes(bytes).map_err(|e| parse(origin, format!("not a readable HDF5 file ({e})")))?;
    // The end-of-file address the superblock records must lie within the file, as the HDF5 C
    // library checks ("truncated file"): a file cut short is refused even where the parts read
    // below happen to survive.
    let stored = file.superblock().eof_address;
    if len < stored {
        return Err(parse(origin, format!("truncated file: {len} bytes, the superblock records {stored}")));
    }
    let r = Reader {
        origin,
        len,
        cap: len.saturating_mul(MAX_EXPANSION).saturating_add(1 << 20),
        budget: Cell::new(budget),
    };
    if let Some(g) = r.optional_group(&file.root(), "fclib_local", "/fclib_local")? {
        r.read_local(&g)
    } else if let Some(g) = r.optional_group(&file.root(), "fclib_global", "/fclib_global")? {
        r.read_global(&g)
    } else {
        Err(parse(origin, "neither /fclib_local nor /fclib_global is present: not an FCLIB problem".into()))
    }
}

/// Writes `problem` to `path` as an FCLIB file (created, or truncated if it exists): a local
/// problem under `/fclib_local`, a global one under `/fclib_global` (`f` = our `q`, `w` = our
/// `b`), every matrix in compressed columns with all its stored entries, and an `info` group
/// saying "written by nonsmooth" (Siconos' `frictionContact_fclib_write` and
/// `globalFrictionContact_fclib_write`). [`read_fclib`] gives back the same problem, bit for bit.
///
/// # Errors
/// [`NumericsError::InvalidInput`] for a problem FCLIB cannot hold (LCP, MLCP, relay) or sizes
/// beyond 32-bit indices; [`NumericsError::Io`] when the file cannot be created or written.
///
/// # References
/// V. Acary, M. Brémond, O. Huber, "On solving contact problems with Coulomb friction:
/// formulations and numerical comparisons", in *Advanced Topics in Nonsmooth Dynamics*,
/// Springer, 2018 (the FCLIB collection and its format); <https://fclib.github.io>.
#[doc(alias = "frictionContact_fclib_write")]
#[doc(alias = "globalFrictionContact_fclib_write")]
pub fn write_fclib(path: &Path, problem: &Problem) -> Result<(), NumericsError> {
    // Check the problem first, so that nothing is created for a problem FCLIB cannot hold.
    let (root, dim, vectors): (&str, i32, Vec<(&str, &[f64])>) = match problem {
        Problem::Fc2d(p) => ("fclib_local", 2, vec![("q", p.q()), ("mu", p.mu())]),
        Problem::Fc3d(p) => ("fclib_local", 3, vec![("q", p.q()), ("mu", p.mu())]),
        Problem::GlobalFc2d(p) => ("fclib_global", 2, vec![("f", p.q()), ("w", p.b()), ("mu", p.mu())]),
        Problem::GlobalFc3d(p) => ("fclib_global", 3, vec![("f", p.q()), ("w", p.b()), ("mu", p.mu())]),
        other => {
            return Err(NumericsError::InvalidInput {
                what: "fclib writer",
                reason: format!("FCLIB holds frictional contact problems only, not a {} problem", other.kind()),
            });
        }
    };
    let matrices: Vec<(&str, Csc)> =
        problem.matrices().into_iter().map(|(name, m)| Csc::of(m).map(|c| (name, c))).collect::<Result<_, _>>()?;

    // The whole file is built in memory, then written at once, in the HDF5 1.8 format (version 2
    // superblock, contiguous datasets) that every HDF5 library FCLIB builds with can read.
    let mut file = FileBuilder::new();
    file.with_libver_bounds(LibVer::Earliest, LibVer::V18);
    let mut main = file.create_group(root);
    main.create_dataset("spacedim").with_i32_data(&[dim]);
    for (name, csc) in &matrices {
        let mut g = main.create_group(name);
        csc.write(&mut g);
        main.add_group(g.finish());
    }
    let mut v = main.create_group("vectors");
    for (name, data) in &vectors {
        v.create_dataset(name).with_f64_data(data);
    }
    main.add_group(v.finish());
    let mut info = main.create_group("info");
    for (name, text) in [("title", INFO_TITLE), ("description", INFO_DESCRIPTION), ("math_info", INFO_MATH)] {
        write_string(&mut info, name, text);
    }
    main.add_group(info.finish());
    file.add_group(main.finish());
    let origin = path.display().to_string();
    let io = |e: hdf5_pure::Error| match e {
        hdf5_pure::Error::Io(source) => NumericsError::Io { path: origin.clone(), source },
        other => NumericsError::Io { path: origin.clone(), source: std::io::Error::other(other.to_string()) },
    };
    file.write(path).map_err(io)
}

/// A matrix in the compressed-column arrays FCLIB stores (32-bit indices).
struct Csc {
    m: i32,
    n: i32,
    p: Vec<i32>,
    i: Vec<i32>,
    x: Vec<f64>,
}

impl Csc {
    /// Every stored entry of `a` (all entries of a dense matrix) in compressed columns.
    fn of(a: &NumericsMatrix) -> Result<Csc, NumericsError> {
        let too_big = || NumericsError::InvalidInput {
            what: "fclib writer",
            reason: format!(
                "a {} × {} matrix with {} entries exceeds FCLIB's 32-bit indices",
                a.nrows(),
                a.ncols(),
                a.nnz()
            ),
        };
        let small = |v: usize| i32::try_from(v).map_err(|_| too_big());
        let (m, n) = (small(a.nrows())?, small(a.ncols())?);
        small(a.nnz())?;
        let (p, i, x) = match a {
            NumericsMatrix::Dense(d) => {
                let rows = d.nrows();
                let p = (0..=d.ncols()).map(|j| small(j * rows)).collect::<Result<Vec<_>, _>>()?;
                let i = (0..d.ncols()).flat_map(|_| 0..rows).map(|r| r as i32).collect();
                let x = (0..d.ncols()).flat_map(|j| d.col_as_slice(j).iter().copied()).collect();
                (p, i, x)
            }
            NumericsMatrix::SparseBlock(_) | NumericsMatrix::Sparse(_) => {
                let csc = match a {
                    NumericsMatrix::Sparse(s) if s.is_csc() => s.clone(),
                    _ => a.to_csc(),
                };
                let (indptr, indices, data) = csc.into_raw_storage();
                // Every value is at most nnz or a dimension, all checked to fit in i32 above.
                let p = indptr.iter().map(|&v| small(v)).collect::<Result<Vec<_>, _>>()?;
                let i = indices.iter().map(|&v| small(v)).collect::<Result<Vec<_>, _>>()?;
                (p, i, data)
            }
        };
        Ok(Csc { m, n, p, i, x })
    }

    /// Adds the matrix group's datasets (`nz = −1`) to `g`.
    fn write(&self, g: &mut GroupBuilder) {
        // `x.len()` fits in i32: checked in `Csc::of`.
        g.create_dataset("nzmax").with_i32_data(&[self.x.len() as i32]);
        g.create_dataset("m").with_i32_data(&[self.m]);
        g.create_dataset("n").with_i32_data(&[self.n]);
        g.create_dataset("nz").with_i32_data(&[-1]);
        g.create_dataset("p").with_i32_data(&self.p);
        g.create_dataset("i").with_i32_data(&self.i);
        g.create_dataset("x").with_f64_data(&self.x);
    }
}

/// A scalar fixed-length ASCII string dataset of the text's length plus one byte, ending with a
/// NUL, as FCLIB's `H5LTmake_dataset_string` writes it (`H5T_C_S1`, null-terminated; its C
/// reader relies on the terminator).
fn write_string(g: &mut GroupBuilder, name: &str, text: &str) {
    let mut bytes = text.as_bytes().to_vec();
    bytes.push(0);
    // The texts are the short constants above, far below u32::MAX bytes.
    let datatype = Datatype::String {
        size: bytes.len() as u32,
        padding: StringPadding::NullTerminate,
        charset: CharacterSet::Ascii,
    };
    g.create_dataset(name).with_raw_data(datatype, bytes, 1).with_shape(&[]);
}

/// A [`NumericsError::Parse`] for the file `origin`.
fn parse(origin: &str, reason: String) -> NumericsError {
    NumericsError::Parse { path: origin.to_string(), reason }
}

/// `true` when `e` says the object does not exist (as opposed to a malformed one).
fn is_absent(e: &hdf5_pure::Error) -> bool {
    matches!(e, hdf5_pure::Error::Format(hdf5_pure::FormatError::PathNotFound(_)))
}

/// The header of a matrix group: `m`, `n` and the form given by `nz`, validated.
#[derive(Clone, Copy, Debug)]
struct Header {
    m: usize,
    n: usize,
    /// `Some(count)` for triplets, `None` with [`Header::by_rows`] telling CSR from CSC.
    triplets: Option<usize>,
    by_rows: bool,
}

/// What a dataset's values are read as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// Any integer type, read as 64-bit signed integers.
    Int,
    /// 32- or 64-bit IEEE floats, read as 64-bit floats (exactly).
    Float,
}

/// A dataset whose type, rank and declared size have been checked.
struct Checked {
    ds: hdf5_pure::Dataset,
    /// The number of values it declares.
    count: usize,
}

/// Reads datasets of one file, with the allocation caps.
struct Reader<'a> {
    origin: &'a str,
    /// The file's length in bytes: the most an uncompressed dataset may declare.
    len: u64,
    /// The most a compressed dataset may declare, in bytes (see [`MAX_EXPANSION`]).
    cap: u64,
    /// What the read may still allocate ([`ReadOptions::max_bytes`]).
    budget: Cell<Budget>,
}

impl Reader<'_> {
    /// Charges `bytes` for `what` to the read's budget, before allocating them.
    fn charge(&self, bytes: Option<u64>, what: &dyn Fn() -> String) -> Result<(), NumericsError> {
        let mut b = self.budget.get();
        let r = b.charge(bytes, what, self.origin);
        self.budget.set(b);
        r
    }

    /// The group `name` of `parent`, or `None` when there is no such link.
    fn optional_group(
        &self,
        parent: &hdf5_pure::Group,
        name: &str,
        full: &str,
    ) -> Result<Option<hdf5_pure::Group>, NumericsError> {
        match parent.group(name) {
            Ok(g) => Ok(Some(g)),
            Err(e) if is_absent(&e) => Ok(None),
            Err(e) => Err(parse(self.origin, format!("cannot open group {full} ({e})"))),
        }
    }

    fn group(&self, parent: &hdf5_pure::Group, name: &str, full: &str) -> Result<hdf5_pure::Group, NumericsError> {
        self.optional_group(parent, name, full)?.ok_or_else(|| parse(self.origin, format!("missing group {full}")))
    }

    /// The dataset `name` of `g`: at most one dimension, values of `kind`, and a declared size the
    /// file can hold (checked before any value is read).
    fn dataset(&self, g: &hdf5_pure::Group, name: &str, full: &str, kind: Kind) -> Result<Checked, NumericsError> {
        let fail = |what: String| parse(self.origin, format!("dataset {full}/{name}: {what}"));
        let ds = g.dataset(name).map_err(|e| {
            if is_absent(&e) {
                parse(self.origin, format!("missing dataset {full}/{name}"))
            } else {
                fail(format!("cannot open it ({e})"))
            }
        })?;
        let shape = ds.shape().map_err(|e| fail(format!("cannot read its shape ({e})")))?;
        if shape.len() > 1 {
            return Err(fail(format!("{} dimensions, expected 1", shape.len())));
        }
        // A scalar (no dimension) holds one value.
        let count = shape.first().copied().unwrap_or(1);
        let dtype = ds.dtype().map_err(|e| fail(format!("cannot read its type ({e})")))?;
        let type_ok = match kind {
            Kind::Int => matches!(
                dtype,
                hdf5_pure::DType::I8
                    | hdf5_pure::DType::I16
                    | hdf5_pure::DType::I32
                    | hdf5_pure::DType::I64
                    | hdf5_pure::DType::U8
                    | hdf5_pure::DType::U16
                    | hdf5_pure::DType::U32
                    | hdf5_pure::DType::U64
            ),
            Kind::Float => matches!(dtype, hdf5_pure::DType::F32 | hdf5_pure::DType::F64),
        };
        if !type_ok {
            let expected = if kind == Kind::Int { "integers" } else { "floats" };
            return Err(fail(format!("holds {dtype:?} values, expected {expected}")));
        }
        let element = ds.element_size().map_err(|e| fail(format!("cannot read its element size ({e})")))?;
        let bytes = count.saturating_mul(element);
        // Uncompressed data is stored as it is, so it fits in the file; compressed data expands
        // by a bounded ratio.
        let limit = if ds.filters().is_empty() { self.len } else { self.cap };
        // A chunk is read whole: its dimensions must be positive (as the HDF5 C library checks;
        // a zero one gave other values) and one chunk must fit the same bound.
        if let Some(chunk) = ds.chunk_shape().map_err(|e| fail(format!("cannot read its chunk shape ({e})")))? {
            if chunk.contains(&0) {
                return Err(fail(format!("chunk dimensions {chunk:?}: a chunk dimension must be positive")));
            }
            let chunk_bytes = chunk.iter().fold(element, |b, &d| b.saturating_mul(d));
            if chunk_bytes > limit {
                return Err(fail(format!(
                    "chunks of {chunk:?} values ({chunk_bytes} bytes), more than the file of {} bytes can hold",
                    self.len
                )));
            }
        }
        if bytes > limit {
            return Err(fail(format!(
                "declares {count} values ({bytes} bytes), more than the file of {} bytes can hold",
                self.len
            )));
        }
        let count = usize::try_from(count).map_err(|_| fail(format!("declares {count} values")))?;
        // The stored bytes, then the values widened to 64 bits.
        self.charge(array_bytes(count, 8).and_then(|v| v.checked_add(bytes)), &|| {
            format!("dataset {full}/{name} ({count} values)")
        })?;
        Ok(Checked { ds, count })
    }

    /// The values of a checked dataset; a count that disagrees with the declared one is an error.
    fn read_ints(&self, c: &Checked, name: &str, full: &str) -> Result<Vec<i64>, NumericsError> {
        let v =
            c.ds.read_i64().map_err(|e| parse(self.origin, format!("cannot read {full}/{name} as integers ({e})")))?;
        self.same_count(v, c.count, name, full)
    }

    fn read_floats(&self, c: &Checked, name: &str, full: &str) -> Result<Vec<f64>, NumericsError> {
        let v =
            c.ds.read_f64().map_err(|e| parse(self.origin, format!("cannot read {full}/{name} as floats ({e})")))?;
        self.same_count(v, c.count, name, full)
    }

    fn same_count<T>(&self, v: Vec<T>, count: usize, name: &str, full: &str) -> Result<Vec<T>, NumericsError> {
        if v.len() == count {
            Ok(v)
        } else {
            Err(parse(self.origin, format!("dataset {full}/{name} gave {} values, declared {count}", v.len())))
        }
    }

    /// A one-value integer dataset.
    fn int(&self, g: &hdf5_pure::Group, name: &str, full: &str) -> Result<i64, NumericsError> {
        let c = self.dataset(g, name, full, Kind::Int)?;
        if c.count != 1 {
            return Err(parse(self.origin, format!("dataset {full}/{name} holds {} values, expected 1", c.count)));
        }
        let v = self.read_ints(&c, name, full)?;
        v.first().copied().ok_or_else(|| parse(self.origin, format!("dataset {full}/{name} is empty")))
    }

    /// A nonnegative one-value integer dataset, as a size.
    fn size(&self, g: &hdf5_pure::Group, name: &str, full: &str) -> Result<usize, NumericsError> {
        let v = self.int(g, name, full)?;
        usize::try_from(v).map_err(|_| parse(self.origin, format!("{full}/{name} = {v} is negative")))
    }

    /// An integer array of exactly `len` values (checked before reading).
    fn ints(&self, g: &hdf5_pure::Group, name: &str, full: &str, len: usize) -> Result<Vec<i64>, NumericsError> {
        let c = self.dataset(g, name, full, Kind::Int)?;
        self.check_len(&c, name, full, len)?;
        self.read_ints(&c, name, full)
    }

    /// An integer array of any (capped) length.
    fn int_vector(&self, g: &hdf5_pure::Group, name: &str, full: &str) -> Result<Vec<i64>, NumericsError> {
        let c = self.dataset(g, name, full, Kind::Int)?;
        self.read_ints(&c, name, full)
    }

    /// A float array of exactly `len` values (checked before reading).
    fn floats(&self, g: &hdf5_pure::Group, name: &str, full: &str, len: usize) -> Result<Vec<f64>, NumericsError> {
        let c = self.dataset(g, name, full, Kind::Float)?;
        self.check_len(&c, name, full, len)?;
        self.read_floats(&c, name, full)
    }

    /// A float array of any (capped) length.
    fn vector(&self, g: &hdf5_pure::Group, name: &str, full: &str) -> Result<Vec<f64>, NumericsError> {
        let c = self.dataset(g, name, full, Kind::Float)?;
        self.read_floats(&c, name, full)
    }

    fn check_len(&self, c: &Checked, name: &str, full: &str, len: usize) -> Result<(), NumericsError> {
        if c.count == len {
            Ok(())
        } else {
            Err(parse(self.origin, format!("dataset {full}/{name} holds {} values, expected {len}", c.count)))
        }
    }

    /// `spacedim`, which must be 2 or 3.
    fn spacedim(&self, g: &hdf5_pure::Group, full: &str) -> Result<usize, NumericsError> {
        let d = self.int(g, "spacedim", full)?;
        if d == 2 || d == 3 {
            Ok(d as usize)
        } else {
            Err(parse(self.origin, format!("{full}/spacedim = {d} is neither 2 nor 3")))
        }
    }

    fn header(&self, g: &hdf5_pure::Group, full: &str) -> Result<Header, NumericsError> {
        // The declared capacity must be present and nonnegative; the arrays' own lengths are used.
        self.size(g, "nzmax", full)?;
        let m = self.size(g, "m", full)?;
        let n = self.size(g, "n", full)?;
        let nz = self.int(g, "nz", full)?;
        let (triplets, by_rows) = match nz {
            -1 => (None, false),
            -2 => (None, true),
            k if k >= 0 => {
                // k ≥ 0 was just checked, so the conversion succeeds on 64-bit targets; on
                // narrower ones an oversized count is an error, not a truncation.
                let k = usize::try_from(k).map_err(|_| parse(self.origin, format!("{full}/nz = {k} is too large")))?;
                (Some(k), false)
            }
            k => return Err(parse(self.origin, format!("{full}/nz = {k}: expected -1, -2 or a count ≥ 0"))),
        };
        Ok(Header { m, n, triplets, by_rows })
    }

    /// The matrix of the group `full` with header `h` (whose `m` and `n` the caller has checked
    /// against the vectors), in compressed columns, every stored entry kept.
    fn matrix(&self, g: &hdf5_pure::Group, full: &str, h: Header) -> Result<CsMat<f64>, NumericsError> {
        // FCLIB declares `x` (and, compressed, `i`) with `nzmax` values, but files written with
        // `nzmax > nz` hold only the entries used (the collection's spheres-in-a-box file): the
        // arrays are read at their own (capped) length and must cover the entries used.
        let x = self.vector(g, "x", full)?;
        let short = |name: &str, len: usize, needed: usize| {
            parse(self.origin, format!("dataset {full}/{name} holds {len} values, fewer than the {needed} entries"))
        };
        let mut entries: Vec<(usize, usize, f64)> = Vec::new();
        let index = |v: i64, bound: usize, what: &str| -> Result<usize, NumericsError> {
            usize::try_from(v)
                .ok()
                .filter(|&u| u < bound)
                .ok_or_else(|| parse(self.origin, format!("{full}: {what} index {v} out of range (0..{bound})")))
        };
        match h.triplets {
            Some(count) => {
                let cols = self.ints(g, "p", full, count)?;
                let rows = self.ints(g, "i", full, count)?;
                if x.len() < count {
                    return Err(short("x", x.len(), count));
                }
                self.charge(matrix_bytes(count, h.n), &|| format!("the matrix {full} ({count} entries)"))?;
                entries.reserve_exact(count);
                for k in 0..count {
                    entries.push((index(rows[k], h.m, "row")?, index(cols[k], h.n, "column")?, x[k]));
                }
            }
            None => {
                let outer = if h.by_rows { h.m } else { h.n };
                let inner_bound = if h.by_rows { h.n } else { h.m };
                let p = self.ints(g, "p", full, outer + 1)?;
                let inner = self.int_vector(g, "i", full)?;
                if p[0] != 0 {
                    return Err(parse(self.origin, format!("{full}/p starts at {}, expected 0", p[0])));
                }
                if let Some(k) = p.windows(2).position(|w| w[0] > w[1]) {
                    return Err(parse(self.origin, format!("{full}/p decreases at {k}: not monotone")));
                }
                let last = p[outer];
                // p[0] = 0 and p is monotone, so `last` ≥ 0.
                let used = usize::try_from(last).map_err(|_| parse(self.origin, format!("{full}/p ends at {last}")))?;
                if inner.len() < used {
                    return Err(short("i", inner.len(), used));
                }
                if x.len() < used {
                    return Err(short("x", x.len(), used));
                }
                self.charge(matrix_bytes(used, h.n), &|| format!("the matrix {full} ({used} entries)"))?;
                entries.reserve_exact(used);
                for o in 0..outer {
                    // 0 ≤ p[o] ≤ p[o + 1] ≤ p[outer] ≤ len(i), len(x), checked above.
                    for k in p[o] as usize..p[o + 1] as usize {
                        let in_ = index(inner[k], inner_bound, if h.by_rows { "column" } else { "row" })?;
                        entries.push(if h.by_rows { (o, in_, x[k]) } else { (in_, o, x[k]) });
                    }
                }
            }
        }
        Ok(compress_columns(h.m, h.n, entries))
    }

    fn read_local(&self, g: &hdf5_pure::Group) -> Result<Problem, NumericsError> {
        let full = "/fclib_local";
        let d = self.spacedim(g, full)?;
        let wg = self.group(g, "W", "/fclib_local/W")?;
        let h = self.header(&wg, "/fclib_local/W")?;
        let vg = self.group(g, "vectors", "/fclib_local/vectors")?;
        let q = self.vector(&vg, "q", "/fclib_local/vectors")?;
        if h.m != q.len() {
            return Err(NumericsError::DimensionMismatch {
                what: "fclib matrix W rows",
                expected: q.len(),
                found: h.m,
            });
        }
        if h.n != h.m {
            return Err(NumericsError::DimensionMismatch { what: "fclib matrix W columns", expected: h.m, found: h.n });
        }
        if h.m % d != 0 {
            return Err(parse(self.origin, format!("W has {} rows, not a multiple of spacedim = {d}", h.m)));
        }
        let mu = self.floats(&vg, "mu", "/fclib_local/vectors", h.m / d)?;
        let csc = self.matrix(&wg, "/fclib_local/W", h)?;
        // The blocks: a row-compressed copy (as the entries), at most one d × d block per entry.
        let nnz = csc.nnz();
        let blocks = nnz.min((h.m / d).saturating_mul(h.m / d));
        let bytes = array_bytes(nnz, 16)
            .and_then(|b| b.checked_add(array_bytes(h.m.checked_add(1)?, 8)?))
            .and_then(|b| b.checked_add(array_bytes(blocks, (8 * d * d + 16) as u64)?));
        self.charge(bytes, &|| format!("the sparse-block matrix /fclib_local/W ({nnz} entries)"))?;
        let ends = uniform_block_ends(h.m, d)?;
        let w = NumericsMatrix::SparseBlock(SparseBlockMatrix::from_sparse(&csc, &ends, &ends)?);
        Ok(if d == 3 { Problem::Fc3d(Fc3dProblem::new(w, q, mu)?) } else { Problem::Fc2d(Fc2dProblem::new(w, q, mu)?) })
    }

    fn read_global(&self, g: &hdf5_pure::Group) -> Result<Problem, NumericsError> {
        let full = "/fclib_global";
        let d = self.spacedim(g, full)?;
        let mg = self.group(g, "M", "/fclib_global/M")?;
        let mh = self.header(&mg, "/fclib_global/M")?;
        let hg = self.group(g, "H", "/fclib_global/H")?;
        let hh = self.header(&hg, "/fclib_global/H")?;
        let vg = self.group(g, "vectors", "/fclib_global/vectors")?;
        let f = self.vector(&vg, "f", "/fclib_global/vectors")?;
        let w = self.vector(&vg, "w", "/fclib_global/vectors")?;
        let n = f.len();
        for (what, expected, found) in [
            ("fclib matrix M rows", n, mh.m),
            ("fclib matrix M columns", n, mh.n),
            ("fclib matrix H rows", n, hh.m),
            ("fclib matrix H columns", w.len(), hh.n),
        ] {
            if expected != found {
                return Err(NumericsError::DimensionMismatch { what, expected, found });
            }
        }
        if hh.n % d != 0 {
            return Err(parse(self.origin, format!("H has {} columns, not a multiple of spacedim = {d}", hh.n)));
        }
        let mu = self.floats(&vg, "mu", "/fclib_global/vectors", hh.n / d)?;
        let m = NumericsMatrix::Sparse(self.matrix(&mg, "/fclib_global/M", mh)?);
        let h = NumericsMatrix::Sparse(self.matrix(&hg, "/fclib_global/H", hh)?);
        Ok(if d == 3 {
            Problem::GlobalFc3d(GlobalFc3dProblem::new(m, h, f, w, mu)?)
        } else {
            Problem::GlobalFc2d(GlobalFc2dProblem::new(m, h, f, w, mu)?)
        })
    }
}

/// Bytes charged for a matrix of `nnz` entries and `n` columns read from FCLIB: each
/// `(row, column, value)` entry (24), the stable sort's scratch (12), the compressed columns (16
/// per entry, 8 per column pointer).
fn matrix_bytes(nnz: usize, n: usize) -> Option<u64> {
    array_bytes(nnz, 52)?.checked_add(array_bytes(n.checked_add(1)?, 8)?)
}

/// The `m × n` compressed-column matrix of `(row, column, value)` entries (indices in range):
/// columns sorted by row with a stable sort, entries at the same position added in the given
/// order (a single entry keeps its bits, `-0.0` included).
fn compress_columns(m: usize, n: usize, mut entries: Vec<(usize, usize, f64)>) -> CsMat<f64> {
    // Stable: equal positions keep their file order.
    entries.sort_by_key(|&(r, c, _)| (c, r));
    let mut indptr = Vec::with_capacity(n + 1);
    let mut indices = Vec::with_capacity(entries.len());
    let mut data: Vec<f64> = Vec::with_capacity(entries.len());
    indptr.push(0);
    let mut col = 0;
    let mut last: Option<(usize, usize)> = None;
    for (r, c, v) in entries {
        while col < c {
            indptr.push(indices.len());
            col += 1;
        }
        if last == Some((r, c)) {
            // Same position as the previous entry (sorted): add.
            if let Some(prev) = data.last_mut() {
                *prev += v;
            }
        } else {
            indices.push(r);
            data.push(v);
            last = Some((r, c));
        }
    }
    while col < n {
        indptr.push(indices.len());
        col += 1;
    }
    // Valid by construction: indptr runs from 0 to nnz over n columns, row indices are < m
    // (checked by the caller), sorted and distinct within each column.
    CsMat::new_csc((m, n), indptr, indices, data)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compress_columns_sorts_sums_duplicates_and_keeps_negative_zero() {
        let a = compress_columns(3, 3, vec![(2, 0, 1.0), (0, 0, -0.0), (1, 2, 2.0), (1, 2, 0.5), (0, 2, 0.0)]);
        assert!(a.is_csc());
        assert_eq!(a.indptr().raw_storage(), &[0, 2, 2, 4]);
        assert_eq!(a.indices(), &[0, 2, 0, 1]);
        let bits: Vec<u64> = a.data().iter().map(|v| v.to_bits()).collect();
        assert_eq!(bits, vec![(-0.0f64).to_bits(), 1.0f64.to_bits(), 0.0f64.to_bits(), 2.5f64.to_bits()]);
    }

    #[test]
    fn csc_of_a_dense_matrix_keeps_every_entry() {
        let d = NumericsMatrix::Dense(faer::mat![[1.0, 0.0], [-0.0, 4.0]]);
        let c = Csc::of(&d).expect("small");
        assert_eq!((c.m, c.n), (2, 2));
        assert_eq!(c.p, vec![0, 2, 4]);
        assert_eq!(c.i, vec![0, 1, 0, 1]);
        assert_eq!(c.x[1].to_bits(), (-0.0f64).to_bits());
    }
}
