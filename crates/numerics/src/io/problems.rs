//! The problem layouts of Siconos' text files, each read and written as Siconos' own
//! `*_newFromFile` / `*_printInFile` functions do.

use super::lexer::{Cursor, MAX_INT, array_bytes};
use super::matrix::{dense_matrix, read_matrix, write_counts, write_matrix, write_reals};
use super::{Problem, ProblemKind};
use crate::NumericsError;
use crate::fc::LocalFcProblem;
use crate::gfc::GlobalFcProblem;
use crate::gmp::{BlockKind, MixedProblem};
use crate::lcp::LcpProblem;
use crate::matrix::NumericsMatrix;
use crate::mlcp::{MlcpBlockForm, MlcpMatrixForm, MlcpProblem};
use crate::relay::RelayProblem;

/// The six layouts: the kind of a frictional contact problem (2D or 3D) is read from its
/// first number. The mixed layout is not in [`Layout::DETECTION_ORDER`]: detection tries it
/// last, when no other fits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Layout {
    Mlcp,
    GlobalFc,
    LocalFc,
    Relay,
    Lcp,
    Gmp,
}

impl Layout {
    /// The order in which detection tries the layouts (see the module documentation).
    pub(crate) const DETECTION_ORDER: [Layout; 5] =
        [Layout::Mlcp, Layout::GlobalFc, Layout::LocalFc, Layout::Relay, Layout::Lcp];

    pub(crate) fn of(kind: ProblemKind) -> Self {
        match kind {
            ProblemKind::Lcp => Layout::Lcp,
            ProblemKind::Mlcp => Layout::Mlcp,
            ProblemKind::Relay => Layout::Relay,
            ProblemKind::Fc2d | ProblemKind::Fc3d => Layout::LocalFc,
            ProblemKind::GlobalFc2d | ProblemKind::GlobalFc3d => Layout::GlobalFc,
            ProblemKind::Gmp => Layout::Gmp,
        }
    }
}

/// Reads one problem of `layout` at the cursor. `kind`, when given, must agree with the
/// dimension a frictional contact file declares.
pub(crate) fn read_layout(
    c: &mut Cursor<'_, '_>,
    layout: Layout,
    kind: Option<ProblemKind>,
) -> Result<Problem, NumericsError> {
    match layout {
        Layout::Lcp => read_lcp(c).map(Problem::Lcp),
        Layout::Relay => read_relay(c).map(Problem::Relay),
        Layout::Mlcp => read_mlcp(c).map(Problem::Mlcp),
        Layout::Gmp => read_gmp(c).map(Problem::Gmp),
        Layout::LocalFc => {
            let at = c.pos();
            let d = read_dimension(c, "the contact dimension")?;
            check_kind(c, at, kind, if d == 2 { ProblemKind::Fc2d } else { ProblemKind::Fc3d })?;
            if d == 2 { read_local_fc::<2>(c).map(Problem::Fc2d) } else { read_local_fc::<3>(c).map(Problem::Fc3d) }
        }
        Layout::GlobalFc => {
            let at = c.pos();
            let d = read_dimension(c, "the contact dimension")?;
            check_kind(c, at, kind, if d == 2 { ProblemKind::GlobalFc2d } else { ProblemKind::GlobalFc3d })?;
            if d == 2 {
                read_global_fc::<2>(c).map(Problem::GlobalFc2d)
            } else {
                read_global_fc::<3>(c).map(Problem::GlobalFc3d)
            }
        }
    }
}

fn read_dimension(c: &mut Cursor<'_, '_>, what: &str) -> Result<usize, NumericsError> {
    let at = c.pos();
    match c.integer(what)? {
        2 => Ok(2),
        3 => Ok(3),
        d => Err(c.error_at(at, format_args!("contact dimension {d} is neither 2 nor 3"))),
    }
}

fn check_kind(
    c: &Cursor<'_, '_>,
    at: usize,
    wanted: Option<ProblemKind>,
    found: ProblemKind,
) -> Result<(), NumericsError> {
    match wanted {
        Some(k) if k != found => {
            Err(c.error_at(at, format_args!("the file holds a {} problem, not {}", found.as_str(), k.as_str())))
        }
        _ => Ok(()),
    }
}

/// `linearComplementarity_newFromFile`: `n`, `M`, then `q` (as many entries as `M` has columns).
fn read_lcp(c: &mut Cursor<'_, '_>) -> Result<LcpProblem, NumericsError> {
    let at = c.pos();
    let n = c.count("the lcp size n", MAX_INT)?;
    let m = read_matrix(c, "the lcp matrix M")?;
    check_square(c, at, n, &m, "lcp")?;
    let q = c.reals(m.ncols(), "the lcp vector q")?;
    LcpProblem::new(m, q)
}

/// `relay_newFromFile`: `n`, `M`, then `q`, `lb` and `ub`.
fn read_relay(c: &mut Cursor<'_, '_>) -> Result<RelayProblem, NumericsError> {
    let at = c.pos();
    let n = c.count("the relay size n", MAX_INT)?;
    let m = read_matrix(c, "the relay matrix M")?;
    check_square(c, at, n, &m, "relay")?;
    let q = c.reals(m.ncols(), "the relay vector q")?;
    let lb = c.reals(m.ncols(), "the relay lower bound lb")?;
    let ub = c.reals(m.ncols(), "the relay upper bound ub")?;
    RelayProblem::new(m, q, lb, ub)
}

/// The declared size `n` agrees with the `n × n` matrix.
fn check_square(c: &Cursor<'_, '_>, at: usize, n: usize, m: &NumericsMatrix, what: &str) -> Result<(), NumericsError> {
    if m.nrows() == n && m.ncols() == n {
        Ok(())
    } else {
        Err(c.error_at(at, format_args!("{what} size {n} but its matrix is {} × {}", m.nrows(), m.ncols())))
    }
}

/// `frictionContact_newFromFile`: dimension (already read), number of contacts, `W`, `q`
/// (as many entries as `W` has columns), `μ`.
fn read_local_fc<const D: usize>(c: &mut Cursor<'_, '_>) -> Result<LocalFcProblem<D>, NumericsError> {
    let at = c.pos();
    let nc = c.count("the number of contacts", MAX_INT)?;
    let w = read_matrix(c, "the fc matrix W")?;
    let n = nc.checked_mul(D).ok_or_else(|| c.error_at(at, "the number of contacts overflows"))?;
    if w.nrows() != n || w.ncols() != n {
        return Err(
            c.error_at(at, format_args!("{nc} contacts in dimension {D} but W is {} × {}", w.nrows(), w.ncols()))
        );
    }
    let q = c.reals(n, "the fc vector q")?;
    let mu = c.reals(nc, "the friction coefficients mu")?;
    LocalFcProblem::new(w, q, mu)
}

/// `globalFrictionContact_newFromFile`: dimension (already read), number of contacts, `M`,
/// `H`, `q` (`M`'s columns), `b` (`H`'s columns), `μ`.
fn read_global_fc<const D: usize>(c: &mut Cursor<'_, '_>) -> Result<GlobalFcProblem<D>, NumericsError> {
    let at = c.pos();
    let nc = c.count("the number of contacts", MAX_INT)?;
    let m = read_matrix(c, "the gfc matrix M")?;
    if m.nrows() != m.ncols() {
        return Err(c.error_at(at, format_args!("M is {} × {}, not square", m.nrows(), m.ncols())));
    }
    let h = read_matrix(c, "the gfc matrix H")?;
    if h.nrows() != m.nrows() || Some(h.ncols()) != nc.checked_mul(D) {
        return Err(c.error_at(
            at,
            format_args!(
                "{nc} contacts in dimension {D} with M {0} × {0} but H is {1} × {2}",
                m.nrows(),
                h.nrows(),
                h.ncols()
            ),
        ));
    }
    let q = c.reals(m.ncols(), "the gfc vector q")?;
    let b = c.reals(h.ncols(), "the gfc vector b")?;
    let mu = c.reals(nc, "the friction coefficients mu")?;
    GlobalFcProblem::new(m, h, q, b, mu)
}

/// `mixedLinearComplementarity_newFromFile`: `isStorageType1`, `isStorageType2`, `n`, `m`;
/// then for storage 1 the row-block starts up to the first value `≥ n + m`, one 0/1 type per
/// block, `M` and `q`; then for storage 2 the blocks `A` (`n × n`), `B` (`m × m`), `C`
/// (`n × m`), `D` (`m × n`), each written row after row, and `a` (`n`), `b` (`m`).
fn read_mlcp(c: &mut Cursor<'_, '_>) -> Result<MlcpProblem, NumericsError> {
    let st1 = read_flag(c, "isStorageType1")?;
    let st2 = read_flag(c, "isStorageType2")?;
    let n = c.count("the number of equalities n", MAX_INT)?;
    let m_at = c.pos();
    let m = c.count("the number of complementarities m", MAX_INT)?;
    let size = n.checked_add(m).ok_or_else(|| c.error_at(m_at, "n + m overflows"))?;
    let matrix_form = if st1 {
        // Siconos reads at most n + m + 1 starts (its buffer), stopping at the first `≥ n + m`.
        let at = c.pos();
        let mut row_blocks = Vec::new();
        loop {
            if row_blocks.len() > size {
                return Err(c.error_at(at, format_args!("the row blocks never reach n + m = {size}")));
            }
            let r = c.count("a row-block start", MAX_INT)?;
            row_blocks.push(r);
            if r >= size {
                break;
            }
        }
        // At most n + m + 1 starts, each read from a token of the (charged) input; charged with
        // their types once their number is known.
        c.charge(array_bytes(row_blocks.len(), 16), &|| "the mlcp row blocks".to_string())?;
        let mut complementarity_blocks = Vec::with_capacity(row_blocks.len() - 1);
        for _ in 1..row_blocks.len() {
            complementarity_blocks.push(read_flag(c, "a row-block type")?);
        }
        let matrix = read_matrix(c, "the mlcp matrix M")?;
        let q = c.reals(matrix.ncols(), "the mlcp vector q")?;
        Some(MlcpMatrixForm { matrix, q, row_blocks, complementarity_blocks })
    } else {
        None
    };
    let block_form = if st2 {
        Some(MlcpBlockForm {
            mat_a: read_rows(c, n, n, "the mlcp block A")?,
            mat_b: read_rows(c, m, m, "the mlcp block B")?,
            mat_c: read_rows(c, n, m, "the mlcp block C")?,
            mat_d: read_rows(c, m, n, "the mlcp block D")?,
            vec_a: c.reals(n, "the mlcp vector a")?,
            vec_b: c.reals(m, "the mlcp vector b")?,
        })
    } else {
        None
    };
    MlcpProblem::new(n, m, matrix_form, block_form)
}

fn read_flag(c: &mut Cursor<'_, '_>, what: &str) -> Result<bool, NumericsError> {
    let at = c.pos();
    match c.integer(what)? {
        0 => Ok(false),
        1 => Ok(true),
        v => Err(c.error_at(at, format_args!("{what} = {v} is neither 0 nor 1"))),
    }
}

/// A dense `rows × cols` matrix written row after row.
fn read_rows(c: &mut Cursor<'_, '_>, rows: usize, cols: usize, what: &str) -> Result<NumericsMatrix, NumericsError> {
    c.ensure(rows.checked_mul(cols), what)?;
    let mut a = dense_matrix(c, rows, cols, what)?;
    for i in 0..rows {
        for j in 0..cols {
            a[(i, j)] = c.real(what)?;
        }
    }
    Ok(NumericsMatrix::Dense(a))
}

/// `genericMechanical_newFromFile`: a sparse-block `M`, `q` (`M`'s columns), then for each
/// block row of `M` its law's type number, followed by `μ` for FC3D (and, here, FC2D) blocks.
fn read_gmp(c: &mut Cursor<'_, '_>) -> Result<MixedProblem, NumericsError> {
    let at = c.pos();
    let m = match read_matrix(c, "the mixed problem matrix M")? {
        NumericsMatrix::SparseBlock(m) => m,
        other => {
            return Err(c.error_at(
                at,
                format_args!("a mixed problem's M is sparse-block (storage 1), not {}", other.storage().as_str()),
            ));
        }
    };
    let q = c.reals(m.ncols(), "the mixed problem vector q")?;
    let nblocks = m.n_block_rows();
    c.charge(array_bytes(nblocks, 16), &|| "the mixed problem's laws".to_string())?;
    let mut blocks = Vec::with_capacity(nblocks);
    for block in 0..nblocks {
        let code = c.integer("a block's law type")?;
        let kind = match code {
            0 => BlockKind::Complementarity,
            2 => BlockKind::Equality,
            3 => BlockKind::Fc2d { mu: c.real("a friction coefficient mu")? },
            4 => BlockKind::Fc3d { mu: c.real("a friction coefficient mu")? },
            _ => {
                let name = BlockKind::siconos_name(code).unwrap_or("unknown");
                return Err(NumericsError::UnsupportedBlock { block, code, name });
            }
        };
        blocks.push(kind);
    }
    MixedProblem::new(m, q, blocks)
}

/// `genericMechanicalProblem_printInFile`'s layout (see [`read_gmp`]).
fn write_gmp(out: &mut String, p: &MixedProblem) {
    write_matrix(out, p.matrix());
    write_reals(out, p.q());
    for kind in p.blocks() {
        out.push_str(&format!("{}\n", kind.siconos_type()));
        if let Some(mu) = kind.mu() {
            write_reals(out, &[mu]);
        }
    }
}

/// Appends `p` in Siconos' layout for its kind.
pub(crate) fn write_problem(out: &mut String, p: &Problem) {
    match p {
        Problem::Lcp(p) => write_lcp(out, p),
        Problem::Relay(p) => {
            out.push_str(&format!("{}\n", p.size()));
            write_matrix(out, p.m());
            write_reals(out, p.q());
            write_reals(out, p.lb());
            write_reals(out, p.ub());
        }
        Problem::Fc2d(p) => write_local_fc(out, p),
        Problem::Fc3d(p) => write_local_fc(out, p),
        Problem::GlobalFc2d(p) => write_global_fc(out, p),
        Problem::GlobalFc3d(p) => write_global_fc(out, p),
        Problem::Mlcp(p) => write_mlcp(out, p),
        Problem::Gmp(p) => write_gmp(out, p),
    }
}

/// `linearComplementarity_printInFile`'s layout: `n`, `M`, `q`.
pub(crate) fn write_lcp(out: &mut String, p: &LcpProblem) {
    out.push_str(&format!("{}\n", p.size()));
    write_matrix(out, p.m());
    write_reals(out, p.q());
}

fn write_local_fc<const D: usize>(out: &mut String, p: &LocalFcProblem<D>) {
    out.push_str(&format!("{D}\n{}\n", p.number_of_contacts()));
    write_matrix(out, p.w());
    write_reals(out, p.q());
    write_reals(out, p.mu());
}

fn write_global_fc<const D: usize>(out: &mut String, p: &GlobalFcProblem<D>) {
    out.push_str(&format!("{D}\n{}\n", p.number_of_contacts()));
    write_matrix(out, p.m());
    write_matrix(out, p.h());
    write_reals(out, p.q());
    write_reals(out, p.b());
    write_reals(out, p.mu());
}

fn write_mlcp(out: &mut String, p: &MlcpProblem) {
    let flag = |b: bool| if b { 1 } else { 0 };
    out.push_str(&format!(
        "{}\n{}\n{}\n{}\n",
        flag(p.matrix_form().is_some()),
        flag(p.block_form().is_some()),
        p.n(),
        p.m()
    ));
    if let Some(f) = p.matrix_form() {
        write_counts(out, &f.row_blocks);
        let types: Vec<usize> = f.complementarity_blocks.iter().map(|&b| flag(b)).collect();
        write_counts(out, &types);
        write_matrix(out, &f.matrix);
        write_reals(out, &f.q);
    }
    if let Some(f) = p.block_form() {
        for a in [&f.mat_a, &f.mat_b, &f.mat_c, &f.mat_d] {
            for i in 0..a.nrows() {
                let row: Vec<f64> = (0..a.ncols()).map(|j| a.get(i, j)).collect();
                write_reals(out, &row);
            }
        }
        write_reals(out, &f.vec_a);
        write_reals(out, &f.vec_b);
    }
}
