//! `nonsmooth info`: describe a problem file.

use std::io::Write;

use nonsmooth::numerics::io::{self, Problem};
use nonsmooth::numerics::matrix::NumericsMatrix;

use crate::{EXIT_OK, InfoArgs, Outcome, json_string, kind_from_name};

/// Runs `nonsmooth info`, writing the description to `out`.
pub(crate) fn run(args: &InfoArgs, out: &mut dyn Write) -> Outcome {
    let problem = match io::read_problem(&args.file, kind_from_name(args.kind.as_deref())) {
        Ok(p) => p,
        Err(e) => return Outcome::BadInput(e.to_string()),
    };
    Outcome::printed(describe(args, &problem, out), EXIT_OK)
}

/// Writes the description of `problem` (one JSON line with `--json`).
fn describe(args: &InfoArgs, problem: &Problem, out: &mut dyn Write) -> std::io::Result<()> {
    let file = args.file.to_string_lossy();
    let kind = problem.kind().as_str();
    let contacts = problem.number_of_contacts();
    let matrices = problem.matrices();
    if args.json {
        let described: Vec<String> = matrices
            .iter()
            .map(|(name, m)| {
                let blocks = block_counts(m).map_or_else(|| "null".to_owned(), |(nnz, _, _)| nnz.to_string());
                format!(
                    "{{\"name\": {}, \"rows\": {}, \"cols\": {}, \"storage\": {}, \"nnz\": {}, \"blocks\": {}}}",
                    json_string(name),
                    m.nrows(),
                    m.ncols(),
                    json_string(m.storage().as_str()),
                    m.nnz(),
                    blocks
                )
            })
            .collect();
        writeln!(
            out,
            "{{\"file\": {}, \"problem\": {}, \"size\": {}, \"contacts\": {}, \"matrices\": [{}]}}",
            json_string(&file),
            json_string(kind),
            problem.size(),
            contacts.map_or_else(|| "null".to_owned(), |c| c.to_string()),
            described.join(", ")
        )?;
    } else {
        writeln!(out, "file      {file}")?;
        writeln!(out, "problem   {kind}")?;
        writeln!(out, "size      {}", problem.size())?;
        if let Some(c) = contacts {
            writeln!(out, "contacts  {c}")?;
        }
        for (name, m) in &matrices {
            let mut line =
                format!("matrix {name}: {} × {}, {}, {} nonzeros", m.nrows(), m.ncols(), m.storage().as_str(), m.nnz());
            if let Some((nnz_blocks, block_rows, block_cols)) = block_counts(m) {
                line.push_str(&format!(", {nnz_blocks} blocks on a {block_rows} × {block_cols} block grid"));
            }
            writeln!(out, "{line}")?;
        }
    }
    Ok(())
}

/// For a sparse-block matrix: (nonzero blocks, block rows, block columns).
fn block_counts(m: &NumericsMatrix) -> Option<(usize, usize, usize)> {
    match m {
        NumericsMatrix::SparseBlock(b) => Some((b.nnz_blocks(), b.n_block_rows(), b.n_block_cols())),
        _ => None,
    }
}
