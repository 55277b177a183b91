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

/// What a run does when a step ends above its tolerance (`--on-nonconvergence POLICY`): the
/// examples' spelling of the scenes' `SceneNonConvergence` and of the kernel's
/// `NonConvergencePolicy`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum OnNonConvergence {
    /// `fail`: stop at the first step that does not converge.
    Fail,
    /// `continue`: go on whatever the residual.
    Continue,
    /// `fail-above=FACTOR`: stop at a step that ends more than `factor` times above its
    /// tolerance, go on after smaller misses.
    FailAbove {
        /// How far above the tolerance a step may end and the run go on (`≥ 1`, finite).
        factor: f64,
    },
}

/// The long help of `--on-nonconvergence`, shared by the examples that take it (clap adds the
/// example's default after it).
pub const ON_NONCONVERGENCE_HELP: &str = "\
What a step does when its one-step problem or its Newton loop ends above its tolerance.

  fail              stop the run at the first such step, with an error naming its time,
                    its step and the solver's report
  continue          go on whatever the residual
  fail-above=FACTOR stop at a step that ends more than FACTOR times above the tolerance
                    (FACTOR >= 1: the solver's tolerance for the one-step problem, the Newton
                    tolerance for the Newton loop); smaller misses go on

Whatever the policy, the run prints at the end one line saying how many steps stopped above
the tolerance and the worst error, with the time and the step where it occurred (or that all
steps converged).";

/// The short help of `--on-nonconvergence`.
pub const ON_NONCONVERGENCE_SHORT: &str = "What a step above its tolerance does: fail, continue or fail-above=FACTOR";

impl OnNonConvergence {
    /// The scenes' policy: `fail-above=FACTOR` is `SceneNonConvergence::FailAbove { factor }`.
    pub fn scene(self) -> nonsmooth::mechanics::scene::SceneNonConvergence {
        use nonsmooth::mechanics::scene::SceneNonConvergence;
        match self {
            Self::Fail => SceneNonConvergence::Fail,
            Self::Continue => SceneNonConvergence::Continue,
            Self::FailAbove { factor } => SceneNonConvergence::FailAbove { factor },
        }
    }

    /// The kernel's policy for a one-step problem solved to `tolerance` and a Newton loop to
    /// `newton_tolerance`: `fail-above=FACTOR` bounds the residuals by `FACTOR` times each.
    pub fn kernel(self, tolerance: f64, newton_tolerance: f64) -> nonsmooth::kernel::simulation::NonConvergencePolicy {
        use nonsmooth::kernel::simulation::NonConvergencePolicy;
        match self {
            Self::Fail => NonConvergencePolicy::Fail,
            Self::Continue => NonConvergencePolicy::Continue,
            Self::FailAbove { factor } => NonConvergencePolicy::FailAbove {
                residual: factor * tolerance,
                newton_residual: factor * newton_tolerance,
            },
        }
    }
}

impl std::fmt::Display for OnNonConvergence {
    /// The spelling [`on_nonconvergence`] parses: `fail`, `continue`, `fail-above=FACTOR`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Fail => f.write_str("fail"),
            Self::Continue => f.write_str("continue"),
            Self::FailAbove { factor } => write!(f, "fail-above={factor}"),
        }
    }
}

/// Parses a non-convergence policy: `fail`, `continue` or `fail-above=FACTOR` with a finite
/// `FACTOR ≥ 1` (the `value_parser` of `--on-nonconvergence`).
///
/// # Errors
/// A message naming the value and the accepted spellings, which clap prints after the flag.
pub fn on_nonconvergence(s: &str) -> Result<OnNonConvergence, String> {
    match s {
        "fail" => Ok(OnNonConvergence::Fail),
        "continue" => Ok(OnNonConvergence::Continue),
        _ => match s.strip_prefix("fail-above=") {
            Some(factor) => {
                let factor = finite(factor).map_err(|e| format!("fail-above={factor}: {e}"))?;
                if factor >= 1.0 {
                    Ok(OnNonConvergence::FailAbove { factor })
                } else {
                    Err(format!("the factor of fail-above={factor} must be at least 1"))
                }
            }
            None => Err(format!("'{s}' is not a policy: expected fail, continue or fail-above=FACTOR")),
        },
    }
}
