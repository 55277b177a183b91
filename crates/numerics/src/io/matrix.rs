//! Reading and writing one `NumericsMatrix` in Siconos' text layout (`NM_new_from_file` /
//! `NM_write_in_file`, numerics/src/tools/NumericsMatrix.c; `SBM_new_from_file` /
//! `SBM_write_in_file`, SparseBlockMatrix.c; `NSM_new_from_file`, NumericsSparseMatrix.c;
//! `CSparseMatrix_new_from_file` / `CSparseMatrix_print_in_file`, CSparseMatrix.c).

use std::fmt::Write as _;

use faer::Mat;
use sprs::CsMat;

use super::lexer::{Cursor, MAX_INT, array_bytes, dense_bytes};
use crate::NumericsError;
use crate::matrix::{NumericsMatrix, SparseBlockMatrix};

/// Siconos' `NumericsSparseOrigin` values (4.4: `NSM_UNKNOWN, NSM_TRIPLET, NSM_CSC, NSM_CSR,
/// NSM_HALF_TRIPLET`): the sparse storage written after the `2`.
const NSM_TRIPLET: i64 = 1;
const NSM_CSC: i64 = 2;

/// The second line of a sparse matrix; Siconos skips it unread (CSparse writes its version).
const SPARSE_BANNER: &str = "CSparse-format matrix written by nonsmooth (column-compressed)";

/// Reads a matrix at the cursor: storage type, `size0`, `size1`, then the storage's layout.
pub(crate) fn read_matrix(c: &mut Cursor<'_, '_>, what: &str) -> Result<NumericsMatrix, NumericsError> {
    let start = c.pos();
    let storage = c.integer(&format!("the storage type of {what}"))?;
    let rows = c.count(&format!("the row count of {what}"), MAX_INT)?;
    let cols = c.count(&format!("the column count of {what}"), MAX_INT)?;
    match storage {
        0 => read_dense(c, what, rows, cols),
        1 => read_sparse_block(c, what, rows, cols),
        2 => read_sparse(c, what, rows, cols),
        s => Err(c.error_at(
            start,
            format_args!("storage type {s} of {what} is not 0 (dense), 1 (sparse-block) or 2 (sparse)"),
        )),
    }
}

/// Dense: the two sizes again, then `size0·size1` entries in column-major order.
fn read_dense(c: &mut Cursor<'_, '_>, what: &str, rows: usize, cols: usize) -> Result<NumericsMatrix, NumericsError> {
    let at = c.pos();
    let r2 = c.count(&format!("the repeated row count of {what}"), MAX_INT)?;
    let c2 = c.count(&format!("the repeated column count of {what}"), MAX_INT)?;
    if (r2, c2) != (rows, cols) {
        return Err(c.error_at(at, format_args!("{what} is declared {rows} × {cols}, then {r2} × {c2}")));
    }
    // With a zero dimension no entry bounds the other one: keep it within the input's size.
    if rows.max(cols) > c.total() {
        return Err(c.error_at(at, format_args!("{what} is {rows} × {cols}, larger than the input")));
    }
    c.ensure(rows.checked_mul(cols), what)?;
    let mut a = dense_matrix(c, rows, cols, what)?;
    for j in 0..cols {
        for i in 0..rows {
            a[(i, j)] = c.real(what)?;
        }
    }
    Ok(NumericsMatrix::Dense(a))
}

/// The zero `rows × cols` dense matrix, its storage charged to the cursor's budget first.
pub(crate) fn dense_matrix(
    c: &mut Cursor<'_, '_>,
    rows: usize,
    cols: usize,
    what: &str,
) -> Result<Mat<f64>, NumericsError> {
    c.charge(dense_bytes(rows, cols), &|| format!("{what} (dense {rows} × {cols})"))?;
    Ok(Mat::zeros(rows, cols))
}

/// Sparse-block (`SBM_new_from_file`): `nbblocks` (0: nothing follows, the matrix is zero),
/// `blocknumber0`, `blocknumber1`, the cumulated block sizes of rows then columns, `filled1`,
/// `filled2`, the block-row pointer (`filled1` entries), the block-column indices (`filled2`),
/// then for each block its number and its entries in column-major order.
fn read_sparse_block(
    c: &mut Cursor<'_, '_>,
    what: &str,
    rows: usize,
    cols: usize,
) -> Result<NumericsMatrix, NumericsError> {
    let nb_at = c.pos();
    let nb = c.count(&format!("the number of blocks of {what}"), MAX_INT)?;
    if nb == 0 {
        return Ok(NumericsMatrix::SparseBlock(zero_sparse_block(rows, cols)?));
    }
    let nbr = c.count(&format!("the number of block rows of {what}"), MAX_INT)?;
    let nbc = c.count(&format!("the number of block columns of {what}"), MAX_INT)?;
    let row_ends = read_ends(c, nbr, rows, &format!("the row block sizes of {what}"))?;
    let col_ends = read_ends(c, nbc, cols, &format!("the column block sizes of {what}"))?;
    let f1_at = c.pos();
    let filled1 = c.count(&format!("filled1 of {what}"), MAX_INT)?;
    let filled2 = c.count(&format!("filled2 of {what}"), MAX_INT)?;
    if filled1 != nbr + 1 {
        return Err(c.error_at(f1_at, format_args!("filled1 = {filled1} for {nbr} block rows (expected {})", nbr + 1)));
    }
    if filled2 != nb {
        return Err(c.error_at(f1_at + 1, format_args!("filled2 = {filled2} for {nb} blocks")));
    }
    let ptr_at = c.pos();
    let row_ptr = c.counts(filled1, nb, &format!("the block-row pointer of {what}"))?;
    if row_ptr[0] != 0 || row_ptr[nbr] != nb || row_ptr.windows(2).any(|w| w[0] > w[1]) {
        return Err(c.error_at(ptr_at, format_args!("the block-row pointer of {what} must rise from 0 to {nb}")));
    }
    let col_idx = c.counts(filled2, nbc.saturating_sub(1), &format!("the block-column indices of {what}"))?;
    if nbc == 0 {
        return Err(c.error_at(nb_at, format_args!("{what} has {nb} blocks but no block column")));
    }
    // The blocks' sizes are known now: check the input holds them (and a label per block) and
    // charge their storage before allocating it.
    let mut total = Some(0usize);
    for i in 0..nbr {
        let nr = block_len(&row_ends, i);
        for &j in &col_idx[row_ptr[i]..row_ptr[i + 1]] {
            total = total.and_then(|t| nr.checked_mul(block_len(&col_ends, j))?.checked_add(t));
        }
    }
    c.ensure(total.and_then(|t| t.checked_add(nb)), &format!("the blocks of {what}"))?;
    let total = total.unwrap_or(0);
    // The values, and the block offsets the matrix builds.
    let bytes = array_bytes(total, 8).and_then(|v| v.checked_add(array_bytes(nb + 1, 8)?));
    c.charge(bytes, &|| format!("the {nb} blocks of {what} ({total} values)"))?;
    let mut values = Vec::with_capacity(total);
    for i in 0..nbr {
        let nr = block_len(&row_ends, i);
        for (k, &j) in col_idx.iter().enumerate().take(row_ptr[i + 1]).skip(row_ptr[i]) {
            let label_at = c.pos();
            let label = c.count(&format!("the number of block {k} of {what}"), MAX_INT)?;
            if label != k {
                return Err(c.error_at(label_at, format_args!("block number {label} where block {k} is expected")));
            }
            let size = nr.checked_mul(block_len(&col_ends, j));
            c.ensure(size, &format!("block {k} of {what}"))?;
            for _ in 0..size.unwrap_or(0) {
                values.push(c.real(&format!("an entry of block {k} of {what}"))?);
            }
        }
    }
    let m = SparseBlockMatrix::new(row_ends, col_ends, row_ptr, col_idx, values)?;
    Ok(NumericsMatrix::SparseBlock(m))
}

/// `count` cumulated block sizes, strictly increasing, the last one equal to `total`.
fn read_ends(c: &mut Cursor<'_, '_>, count: usize, total: usize, what: &str) -> Result<Vec<usize>, NumericsError> {
    let at = c.pos();
    let ends = c.counts(count, MAX_INT, what)?;
    let mut prev = 0;
    for (i, &e) in ends.iter().enumerate() {
        if e <= prev {
            return Err(c.error_at(at + i, format_args!("{what} must be strictly increasing and positive")));
        }
        prev = e;
    }
    if prev != total {
        return Err(c.error_at(at, format_args!("{what} end at {prev}, not at the matrix size {total}")));
    }
    Ok(ends)
}

/// The all-zero sparse-block matrix of a given shape (Siconos writes only `nbblocks = 0`).
fn zero_sparse_block(rows: usize, cols: usize) -> Result<SparseBlockMatrix, NumericsError> {
    let row_ends = if rows > 0 { vec![rows] } else { Vec::new() };
    let col_ends = if cols > 0 { vec![cols] } else { Vec::new() };
    let row_ptr = vec![0; row_ends.len() + 1];
    SparseBlockMatrix::new(row_ends, col_ends, row_ptr, Vec::new(), Vec::new())
}

fn block_len(ends: &[usize], i: usize) -> usize {
    if i == 0 { ends[0] } else { ends[i] - ends[i - 1] }
}

/// General sparse (`NSM_new_from_file` + `CSparseMatrix_new_from_file`): the origin (1 triplet,
/// 2 CSC), the rest of that line and one banner line (skipped, as Siconos does), then CSparse's
/// `cs_print` layout: `m-by-n, nzmax: z nnz: k, 1-norm: x` and per column
/// `col j : locations a to b` followed by `b − a + 1` lines `i : value`; or for a triplet
/// `triplet: m-by-n, nzmax: z nnz: k` and `k` lines `i j : value`.
///
/// For a CSC the `locations` lines alone define the structure: as in Siconos, `nzmax`, `nnz` and
/// the 1-norm are not checked against them (Siconos itself writes a stray `nnz` for a matrix with
/// no column). The entries are sorted by column then row and duplicates are summed (CSparse's
/// meaning of a repeated entry), giving a CSC [`CsMat`].
fn read_sparse(c: &mut Cursor<'_, '_>, what: &str, rows: usize, cols: usize) -> Result<NumericsMatrix, NumericsError> {
    let origin_at = c.pos();
    let origin = c.integer(&format!("the sparse origin of {what}"))?;
    if origin != NSM_TRIPLET && origin != NSM_CSC {
        return Err(
            c.error_at(origin_at, format_args!("sparse origin {origin} of {what} is not 1 (triplet) or 2 (csc)"))
        );
    }
    // Siconos reads the rest of the origin's line and the banner line with fgets, then the size line.
    let origin_line = c.line_of(origin_at);
    let size_line = c.skip_lines_after(origin_at, 1);
    let head_at = c.pos();
    if size_line != Some(origin_line + 2) {
        return Err(c.error_at(head_at, format_args!("expected the size line of {what} two lines after its origin")));
    }
    let triplet = c.peek().is_some_and(|t| t.text == "triplet:");
    if triplet {
        c.next("triplet:")?;
    }
    let dims = c.next(&format!("the size line of {what}"))?;
    let (m, n) = parse_dims(dims.text)
        .ok_or_else(|| c.error_at(c.pos() - 1, format_args!("expected `rows-by-columns,` for {what}")))?;
    if (m, n) != (rows, cols) {
        return Err(c.error_at(c.pos() - 1, format_args!("{what} is declared {rows} × {cols}, then {m}-by-{n}")));
    }
    c.expect("nzmax:")?;
    c.count("nzmax", MAX_INT)?;
    c.expect("nnz:")?;
    let nnz_at = c.pos();
    let nnz_token = c.next("nnz")?;
    let nnz = nnz_token
        .text
        .strip_suffix(',')
        .unwrap_or(nnz_token.text)
        .parse::<usize>()
        .ok()
        .filter(|&k| k <= MAX_INT)
        .ok_or_else(|| c.error_at(nnz_at, "expected the number of nonzeros"))?;
    if triplet != (origin == NSM_TRIPLET) {
        return Err(c.error_at(head_at, format_args!("sparse origin {origin} does not match the layout that follows")));
    }
    // The rest of the size line (`, 1-norm: x` for a CSC) is not data.
    c.skip_rest_of_line();
    let mut entries: Vec<(usize, usize, f64)> = Vec::new();
    if triplet {
        // The size line is `triplet: m-by-n, nzmax: z nnz: k`; each entry is 4 tokens.
        c.ensure(nnz.checked_mul(4), &format!("the entries of {what}"))?;
        // One column pointer per column is allocated below: keep that proportional to the input.
        if cols > c.total() {
            return Err(
                c.error_at(head_at, format_args!("{what} declares {cols} columns, more than the input's tokens"))
            );
        }
        c.charge(sparse_bytes(nnz, TRIPLET_ENTRY_BYTES, cols), &|| format!("{what} ({nnz} triplets)"))?;
        entries.reserve_exact(nnz);
        for _ in 0..nnz {
            let i = c.count("a row index", rows.saturating_sub(1))?;
            let j = c.count("a column index", cols.saturating_sub(1))?;
            if rows == 0 || cols == 0 {
                return Err(c.error(format_args!("{what} is empty but lists entries")));
            }
            c.expect(":")?;
            entries.push((j, i, c.real("a matrix entry")?));
        }
    } else {
        // Each column has a 7-token header line: bound the column count before the loop.
        c.ensure(cols.checked_mul(7), &format!("the column headers of {what}"))?;
        c.charge(sparse_bytes(0, 0, cols), &|| format!("the column pointers of {what} ({cols} columns)"))?;
        for j in 0..cols {
            c.expect("col")?;
            let jat = c.pos();
            if c.count("a column number", MAX_INT)? != j {
                return Err(c.error_at(jat, format_args!("expected column {j}")));
            }
            c.expect(":")?;
            c.expect("locations")?;
            let a_at = c.pos();
            let a = c.count("the first location", MAX_INT)?;
            c.expect("to")?;
            let b = c.integer("the last location")?;
            // The column holds b − a + 1 ≥ 0 entries, starting where the previous one ended.
            let len = b.checked_sub(a as i64).and_then(|d| d.checked_add(1)).and_then(|l| usize::try_from(l).ok());
            let Some(len) = len.filter(|_| a == entries.len()) else {
                return Err(c.error_at(a_at, format_args!("column {j} locations {a} to {b} are inconsistent")));
            };
            c.ensure(len.checked_mul(3), &format!("column {j} of {what}"))?;
            c.charge(sparse_bytes(len, CSC_ENTRY_BYTES, 0), &|| format!("column {j} of {what} ({len} entries)"))?;
            for _ in 0..len {
                let i = c.count("a row index", rows.saturating_sub(1))?;
                if rows == 0 {
                    return Err(c.error(format_args!("{what} has no row but lists entries")));
                }
                c.expect(":")?;
                entries.push((j, i, c.real("a matrix entry")?));
            }
        }
    }
    Ok(NumericsMatrix::Sparse(compress_csc(rows, cols, entries)?))
}

/// Bytes charged per entry of a sparse matrix read as triplets: the `(column, row, value)`
/// entry (24), the stable sort's scratch (12) and the compressed columns' row index and value (16).
const TRIPLET_ENTRY_BYTES: u64 = 52;
/// Bytes charged per entry of a sparse matrix read in compressed columns: as for triplets, with
/// the entry counted twice (the entry list grows by doubling, its length unknown in advance).
const CSC_ENTRY_BYTES: u64 = 76;

/// Bytes of `nnz` sparse entries at `per_entry` bytes each, plus the `cols + 1` column pointers
/// when `cols > 0`; `None` on overflow.
fn sparse_bytes(nnz: usize, per_entry: u64, cols: usize) -> Option<u64> {
    let pointers = if cols > 0 { array_bytes(cols.checked_add(1)?, 8)? } else { 0 };
    array_bytes(nnz, per_entry)?.checked_add(pointers)
}

/// `"m-by-n,"` → `(m, n)`.
fn parse_dims(s: &str) -> Option<(usize, usize)> {
    let s = s.strip_suffix(',').unwrap_or(s);
    let (m, n) = s.split_once("-by-")?;
    let ok = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    if !ok(m) || !ok(n) {
        return None;
    }
    Some((m.parse().ok()?, n.parse().ok()?))
}

/// CSC from `(column, row, value)` entries: sorted by column then row, duplicates summed in
/// input order.
fn compress_csc(rows: usize, cols: usize, mut entries: Vec<(usize, usize, f64)>) -> Result<CsMat<f64>, NumericsError> {
    entries.sort_by_key(|&(j, i, _)| (j, i));
    let mut indptr = vec![0usize; cols + 1];
    let mut indices: Vec<usize> = Vec::with_capacity(entries.len());
    let mut data: Vec<f64> = Vec::with_capacity(entries.len());
    let mut last: Option<(usize, usize)> = None;
    for (j, i, v) in entries {
        if last == Some((j, i)) {
            if let Some(d) = data.last_mut() {
                *d += v;
            }
            continue;
        }
        last = Some((j, i));
        indptr[j + 1] += 1;
        indices.push(i);
        data.push(v);
    }
    for j in 0..cols {
        indptr[j + 1] += indptr[j];
    }
    CsMat::try_new_csc((rows, cols), indptr, indices, data)
        .map_err(|(_, _, _, e)| NumericsError::InvalidInput { what: "sparse matrix", reason: e.to_string() })
}

/// Appends `m` in Siconos' layout (readable by `NM_new_from_file` of Siconos 4.4). Floats use
/// Rust's shortest round-trip form (`{:e}`), so reading the text back gives the same bits.
pub(crate) fn write_matrix(out: &mut String, m: &NumericsMatrix) {
    let storage = match m {
        NumericsMatrix::Dense(_) => 0,
        NumericsMatrix::SparseBlock(_) => 1,
        NumericsMatrix::Sparse(_) => 2,
    };
    let (rows, cols) = (m.nrows(), m.ncols());
    let _ = write!(out, "{storage}\n{rows}\n{cols}\n");
    match m {
        NumericsMatrix::Dense(a) => {
            // One column per line: the entries are column-major, as Siconos stores them.
            let _ = writeln!(out, "{rows}\t{cols}");
            for j in 0..cols {
                write_reals(out, a.col_as_slice(j));
            }
        }
        NumericsMatrix::SparseBlock(b) => write_sparse_block(out, b),
        NumericsMatrix::Sparse(s) => write_sparse(out, s),
    }
}

fn write_sparse_block(out: &mut String, b: &SparseBlockMatrix) {
    let _ = writeln!(out, "{}", b.nnz_blocks());
    if b.nnz_blocks() == 0 {
        return;
    }
    let _ = write!(out, "{}\n{}\n", b.n_block_rows(), b.n_block_cols());
    write_counts(out, b.row_block_ends());
    write_counts(out, b.col_block_ends());
    let _ = write!(out, "{}\n{}\n", b.row_ptr().len(), b.col_idx().len());
    write_counts(out, b.row_ptr());
    write_counts(out, b.col_idx());
    for k in 0..b.nnz_blocks() {
        let _ = writeln!(out, "{k}");
        for v in b.block(k) {
            let _ = writeln!(out, "{v:e}");
        }
    }
}

fn write_sparse(out: &mut String, s: &CsMat<f64>) {
    let csc;
    let s = if s.is_csc() {
        s
    } else {
        csc = s.to_csc();
        &csc
    };
    let (rows, cols, nnz) = (s.rows(), s.cols(), s.nnz());
    let norm1 = s.outer_iterator().map(|col| col.iter().map(|(_, v)| v.abs()).sum::<f64>()).fold(0.0, f64::max);
    let _ = write!(
        out,
        "{NSM_CSC}\n{SPARSE_BANNER}\n{rows}-by-{cols}, nzmax: {} nnz: {nnz}, 1-norm: {norm1:e}\n",
        nnz.max(1)
    );
    let mut at = 0;
    for (j, col) in s.outer_iterator().enumerate() {
        let len = col.nnz();
        let _ = writeln!(out, "    col {j} : locations {at} to {}", at as i64 + len as i64 - 1);
        for (i, v) in col.iter() {
            let _ = writeln!(out, "      {i} : {v:e}");
        }
        at += len;
    }
}

/// Numbers on one line, space-separated, in shortest round-trip form.
pub(crate) fn write_reals(out: &mut String, v: &[f64]) {
    for (k, x) in v.iter().enumerate() {
        if k > 0 {
            out.push(' ');
        }
        let _ = write!(out, "{x:e}");
    }
    out.push('\n');
}

/// Integers on one line, tab-separated (as Siconos writes block sizes and indices).
pub(crate) fn write_counts(out: &mut String, v: &[usize]) {
    for (k, x) in v.iter().enumerate() {
        if k > 0 {
            out.push('\t');
        }
        let _ = write!(out, "{x}");
    }
    out.push('\n');
}
