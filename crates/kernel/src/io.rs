//! Files: trajectories written and read as whitespace-separated numbers (the format of the
//! Siconos `.ref` files), optionally preceded by a `#` header line naming the columns. The only
//! module of the kernel that touches the file system.

use std::io::Write;
use std::path::Path;

use crate::KernelError;
use crate::simulation::Trajectory;

/// Writes `trajectory` to `path` in the bare Siconos `.ref` layout: one row per line, each number
/// as C's `%.15e` followed by one space, no header.
///
/// # Errors
/// [`KernelError::Numerics`] wrapping an I/O error.
pub fn write_trajectory(trajectory: &Trajectory, path: &Path) -> Result<(), KernelError> {
    std::fs::write(path, trajectory.to_ref_string()).map_err(|e| io_error(path, e))
}

/// Writes `trajectory` to `path` as [`write_trajectory`] does, preceded by one header line
/// `# name_0 name_1 …` naming the columns: a comment line that `numpy.loadtxt` and
/// [`read_trajectory`] skip (`numpy.genfromtxt(path, names=True)` reads the names from it).
///
/// # Errors
/// [`KernelError::DimensionMismatch`] when `columns` does not name every column,
/// [`KernelError::InvalidOption`] when a name is empty or holds whitespace, and
/// [`KernelError::Numerics`] wrapping an I/O error.
pub fn write_trajectory_with_header(trajectory: &Trajectory, columns: &[&str], path: &Path) -> Result<(), KernelError> {
    let mut text = trajectory_header(trajectory, columns)?;
    text.push_str(&trajectory.to_ref_string());
    std::fs::write(path, text).map_err(|e| io_error(path, e))
}

/// Writes `trajectory` into `out` (a file opened before the run, a buffer): the header line of
/// [`write_trajectory_with_header`] when `columns` is given, then the rows as
/// [`write_trajectory`] writes them. `path` names the destination in errors.
///
/// # Errors
/// As [`write_trajectory_with_header`].
pub fn write_trajectory_to(
    out: &mut dyn Write,
    trajectory: &Trajectory,
    columns: Option<&[&str]>,
    path: &Path,
) -> Result<(), KernelError> {
    if let Some(columns) = columns {
        let header = trajectory_header(trajectory, columns)?;
        out.write_all(header.as_bytes()).map_err(|e| io_error(path, e))?;
    }
    out.write_all(trajectory.to_ref_string().as_bytes()).and_then(|()| out.flush()).map_err(|e| io_error(path, e))
}

/// The header line `# name_0 name_1 …\n` of `trajectory`'s columns.
fn trajectory_header(trajectory: &Trajectory, columns: &[&str]) -> Result<String, KernelError> {
    if columns.len() != trajectory.columns() {
        return Err(KernelError::DimensionMismatch {
            what: "trajectory column names",
            expected: trajectory.columns(),
            found: columns.len(),
        });
    }
    if columns.iter().any(|name| name.is_empty() || name.contains(char::is_whitespace)) {
        return Err(KernelError::InvalidOption {
            name: "trajectory column names",
            reason: "a column name is empty or holds whitespace",
        });
    }
    Ok(format!("# {}\n", columns.join(" ")))
}

/// Reads whitespace-separated rows of numbers: a Siconos `.ref` file without its `R C` header
/// line, or a file written by [`write_trajectory`] or [`write_trajectory_with_header`]. Blank
/// lines and comment lines (first non-blank character `#`, as the column header) are skipped.
///
/// # Errors
/// [`KernelError::Numerics`] wrapping an I/O or parse error, or rows of different lengths.
pub fn read_trajectory(path: &Path) -> Result<Trajectory, KernelError> {
    let text = std::fs::read_to_string(path).map_err(|e| io_error(path, e))?;
    let mut rows = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let row: Result<Vec<f64>, _> = line.split_whitespace().map(str::parse::<f64>).collect();
        let row = row.map_err(|e| parse_error(path, i + 1, e.to_string()))?;
        rows.push(row);
    }
    Trajectory::from_rows(rows).ok_or_else(|| parse_error(path, 0, "rows of different lengths".into()))
}

fn io_error(path: &Path, e: std::io::Error) -> KernelError {
    KernelError::Numerics(nonsmooth_numerics::NumericsError::Io { path: path.display().to_string(), source: e })
}

fn parse_error(path: &Path, line: usize, message: String) -> KernelError {
    let reason = if line > 0 { format!("line {line}: {message}") } else { message };
    KernelError::Numerics(nonsmooth_numerics::NumericsError::Parse { path: path.display().to_string(), reason })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Trajectory {
        Trajectory::from_rows(vec![vec![0.0, 1.0], vec![0.5, -2.5e-7]]).expect("rows of equal length")
    }

    #[test]
    fn header_names_the_columns_and_the_rows_follow_bare() {
        let mut out = Vec::new();
        write_trajectory_to(&mut out, &sample(), Some(&["t", "x"]), Path::new("<memory>")).expect("writes");
        let text = String::from_utf8(out).expect("utf-8");
        assert_eq!(text, format!("# t x\n{}", sample().to_ref_string()));
        let mut bare = Vec::new();
        write_trajectory_to(&mut bare, &sample(), None, Path::new("<memory>")).expect("writes");
        assert_eq!(String::from_utf8(bare).expect("utf-8"), sample().to_ref_string());
    }

    #[test]
    fn header_must_name_every_column_with_one_word() {
        let mut out = Vec::new();
        let few = write_trajectory_to(&mut out, &sample(), Some(&["t"]), Path::new("<memory>"));
        assert!(matches!(few, Err(KernelError::DimensionMismatch { expected: 2, found: 1, .. })));
        let spaced = write_trajectory_to(&mut out, &sample(), Some(&["t", "x dot"]), Path::new("<memory>"));
        assert!(matches!(spaced, Err(KernelError::InvalidOption { .. })));
        assert!(out.is_empty());
    }

    #[test]
    fn reader_skips_the_header_line() {
        let path = std::env::temp_dir().join(format!("nonsmooth-kernel-io-header-{}.ref", std::process::id()));
        write_trajectory_with_header(&sample(), &["t", "x"], &path).expect("writes");
        let back = read_trajectory(&path).expect("reads");
        std::fs::remove_file(&path).expect("removes");
        assert_eq!((back.rows(), back.columns()), (2, 2));
        assert_eq!(back.row(1)[1].to_bits(), (-2.5e-7f64).to_bits());
    }
}
