//! Command lines of the example programs, parsed with `clap`: one `Args` type per example (in
//! [`kernel`], [`mechanics`] and [`numerics`], after the folders of the examples) and the parts
//! they share, chiefly [`TrajectoryOutput`] (`--output FILE`, `--siconos`).
//!
//! The types live in the library so that the tests parse command lines with the very parsers the
//! programs use (`Args::try_parse_from`).

pub mod kernel;
pub mod mechanics;
pub mod numerics;

use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use nonsmooth::kernel::simulation::Trajectory;

/// The trajectory file of an example: `--output FILE` and `--siconos`, flattened into the
/// example's parser (`#[command(flatten)]`).
///
/// [`TrajectoryOutput::open`] creates the file before the simulation runs, so that a path that
/// cannot be written is reported at once; [`TrajectoryFile::write`] writes the rows when the run
/// is over.
#[derive(Clone, Debug, Default, PartialEq, Eq, clap::Args)]
pub struct TrajectoryOutput {
    /// Write the trajectory to FILE, with a header naming the columns.
    ///
    /// The first line `# t …` names the columns, then come the rows, one per line, each number
    /// as C's `%.15e` (numpy.loadtxt reads the file and skips the header). FILE is created before
    /// the run: a path that cannot be written fails at once.
    #[arg(long, value_name = "FILE", verbatim_doc_comment)]
    pub output: Option<PathBuf>,
    /// With --output: no header, the bare layout of Siconos' `.ref` files.
    ///
    /// The rows only, as in the reference files of Siconos' examples, which the tests compare
    /// with.
    #[arg(long, requires = "output", verbatim_doc_comment)]
    pub siconos: bool,
}

impl TrajectoryOutput {
    /// Creates (or truncates) the `--output` file, if one was given.
    ///
    /// # Errors
    /// When the file cannot be created (a missing folder, no permission), naming the path.
    pub fn open(&self) -> anyhow::Result<Option<TrajectoryFile>> {
        let Some(path) = &self.output else { return Ok(None) };
        let file = create_output_file(path, "trajectory")?;
        Ok(Some(TrajectoryFile { path: path.clone(), file, siconos: self.siconos }))
    }
}

/// A trajectory file created by [`TrajectoryOutput::open`], waiting for the rows.
#[derive(Debug)]
pub struct TrajectoryFile {
    path: PathBuf,
    file: File,
    siconos: bool,
}

impl TrajectoryFile {
    /// The path given with `--output`.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Writes `trajectory`: the header `# columns…` then the rows, or, with `--siconos`, the rows
    /// only (`nonsmooth::kernel::io::write_trajectory_to`).
    ///
    /// # Errors
    /// When `columns` does not name each column by one word, or on an I/O error, naming the path.
    pub fn write(self, trajectory: &Trajectory, columns: &[&str]) -> anyhow::Result<()> {
        let header = if self.siconos { None } else { Some(columns) };
        let mut out = BufWriter::new(self.file);
        nonsmooth::kernel::io::write_trajectory_to(&mut out, trajectory, header, &self.path)
            .with_context(|| format!("writing the trajectory to {}", self.path.display()))
    }
}

/// Creates (or truncates) `path`, an output file holding `what`.
///
/// # Errors
/// When the file cannot be created, naming `what` and the path.
pub fn create_output_file(path: &Path, what: &str) -> anyhow::Result<File> {
    File::create(path).with_context(|| format!("cannot create the {what} file {}", path.display()))
}

/// Parses a finite number greater than 0 (a `value_parser` for times, steps and speeds).
///
/// # Errors
/// A message that clap prints after the flag's name and the value.
pub fn positive(s: &str) -> Result<f64, String> {
    let x = finite(s)?;
    if x > 0.0 { Ok(x) } else { Err(format!("{x} is not greater than 0")) }
}

/// Parses a number in `[0, 1]` (a `value_parser` for restitution coefficients and θ).
///
/// # Errors
/// A message that clap prints after the flag's name and the value.
pub fn unit_interval(s: &str) -> Result<f64, String> {
    let x = finite(s)?;
    if (0.0..=1.0).contains(&x) { Ok(x) } else { Err(format!("{x} is not in [0, 1]")) }
}

/// Parses a finite number.
fn finite(s: &str) -> Result<f64, String> {
    let x: f64 = s.trim().parse().map_err(|e| format!("{e}"))?;
    if x.is_finite() { Ok(x) } else { Err(format!("{x} is not finite")) }
}
