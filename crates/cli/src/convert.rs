//! `nonsmooth convert`: copy a problem file into another format, chosen by the extensions.

use std::io::Write;
use std::path::Path;

use nonsmooth::numerics::io;

use crate::{ConvertArgs, EXIT_OK, Outcome, kind_from_name};

/// The formats `convert` knows, by file extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    /// Siconos' text format (`.dat`).
    Dat,
    /// FCLIB HDF5 (`.hdf5`, `.h5`).
    Fclib,
}

impl Format {
    /// The format of `path` by its extension (any case), or `None` for another extension.
    fn of(path: &Path) -> Option<Format> {
        if io::is_fclib_path(path) {
            return Some(Format::Fclib);
        }
        let ext = path.extension().and_then(|e| e.to_str())?;
        ext.eq_ignore_ascii_case("dat").then_some(Format::Dat)
    }

    fn name(self) -> &'static str {
        match self {
            Format::Dat => "Siconos .dat",
            Format::Fclib => "FCLIB",
        }
    }
}

/// Runs `nonsmooth convert IN OUT`: reads IN (`.dat`, or FCLIB `.hdf5`/`.h5`), writes OUT in
/// the format of its extension, and writes one line saying what was converted to `out`. Any
/// pairing of the two formats works; FCLIB holds frictional contact problems only.
pub(crate) fn run(args: &ConvertArgs, out: &mut dyn Write) -> Outcome {
    let Some(from) = Format::of(&args.input) else {
        return Outcome::BadInput(format!(
            "{}: unknown input extension (expected .dat, .hdf5 or .h5)",
            args.input.display()
        ));
    };
    let Some(to) = Format::of(&args.output) else {
        return Outcome::BadInput(format!(
            "{}: unknown output extension (expected .dat, .hdf5 or .h5)",
            args.output.display()
        ));
    };
    let problem = match io::read_problem(&args.input, kind_from_name(args.kind.as_deref())) {
        Ok(p) => p,
        Err(e) => return Outcome::BadInput(e.to_string()),
    };
    if let Err(e) = io::write_problem(&args.output, &problem) {
        return Outcome::BadInput(e.to_string());
    }
    let written = writeln!(
        out,
        "converted {} ({}, {} {} problem, {} unknowns) to {} ({})",
        args.input.display(),
        from.name(),
        problem.kind(),
        problem.number_of_contacts().map_or_else(String::new, |c| format!("{c}-contact")),
        problem.size(),
        args.output.display(),
        to.name()
    );
    Outcome::printed(written, EXIT_OK)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_come_from_the_extension() {
        assert_eq!(Format::of(Path::new("a/b.dat")), Some(Format::Dat));
        assert_eq!(Format::of(Path::new("b.DAT")), Some(Format::Dat));
        assert_eq!(Format::of(Path::new("b.hdf5")), Some(Format::Fclib));
        assert_eq!(Format::of(Path::new("b.H5")), Some(Format::Fclib));
        assert_eq!(Format::of(Path::new("b.txt")), None);
        assert_eq!(Format::of(Path::new("b")), None);
    }
}
