//! Files: trajectories written and read as whitespace-separated numbers (the format of the
//! Siconos `.ref` files). The only module of the kernel that touches the file system.

use std::path::Path;

use crate::KernelError;
use crate::simulation::Trajectory;

/// Writes `trajectory` to `path` (`%.15e` numbers, one row per line).
///
/// # Errors
/// [`KernelError::Numerics`] wrapping an I/O error.
pub fn write_trajectory(trajectory: &Trajectory, path: &Path) -> Result<(), KernelError> {
    std::fs::write(path, trajectory.to_ref_string()).map_err(|e| io_error(path, e))
}

/// Reads whitespace-separated rows of numbers (a Siconos `.ref` file without its header, or a
/// file written by [`write_trajectory`]).
///
/// # Errors
/// [`KernelError::Numerics`] wrapping an I/O or parse error, or rows of different lengths.
pub fn read_trajectory(path: &Path) -> Result<Trajectory, KernelError> {
    let text = std::fs::read_to_string(path).map_err(|e| io_error(path, e))?;
    let mut rows = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
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
