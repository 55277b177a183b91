//! `write-bench-problems DIR`: writes the random benchmark problems as Siconos `.dat` files
//! (`DIR/random_<n>.dat`, with `io::write_lcp`) so that Siconos solves the very problems our
//! benches solve, and `DIR/manifest.json`, the list of every benchmark problem (random and
//! collection files) with its size, tolerance and the solvers run on it. `cargo xtask
//! bench-report` and `xtask/siconos_lcp.py` read the manifest.
//!
//! Each written file is read back and compared bit for bit with the generated problem.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use nonsmooth::numerics::io;
use nonsmooth_benches::{BenchProblem, ENUM_MAX_SIZE, MAX_ITERATIONS, SOLVERS, Source, bench_problems, read_lcp};
use serde_json::{Value, json};

fn main() -> ExitCode {
    let mut args = std::env::args_os().skip(1);
    let (Some(dir), None) = (args.next(), args.next()) else {
        eprintln!("usage: write-bench-problems DIR");
        return ExitCode::from(2);
    };
    match run(Path::new(&dir)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run(dir: &Path) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let dir = dir.canonicalize().map_err(|e| format!("cannot resolve {}: {e}", dir.display()))?;
    let mut problems = Vec::new();
    for p in bench_problems() {
        let path = match &p.source {
            Source::Random { .. } => write_random(&dir, &p)?,
            Source::File(path) => path.clone(),
        };
        problems.push(entry(&p, &path));
    }
    let solvers: Vec<Value> = SOLVERS
        .iter()
        .map(|&(name, id)| {
            let cap = if name == "enum" { Value::Null } else { json!(MAX_ITERATIONS) };
            json!({"name": name, "siconos_id": id, "max_iterations": cap})
        })
        .collect();
    let manifest = json!({
        "enum_max_size": ENUM_MAX_SIZE,
        "solvers": solvers,
        "problems": problems,
    });
    let path = dir.join("manifest.json");
    let text = serde_json::to_string_pretty(&manifest).map_err(|e| e.to_string())?;
    std::fs::write(&path, text + "\n").map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    println!("wrote {} ({} problems)", path.display(), problems.len());
    Ok(())
}

/// Writes a random problem and checks that reading it back gives the same bits.
fn write_random(dir: &Path, p: &BenchProblem) -> Result<PathBuf, String> {
    let path = dir.join(format!("{}_{}.dat", p.name, p.size()));
    io::write_lcp(&path, &p.problem).map_err(|e| e.to_string())?;
    let back = read_lcp(&path).map_err(|e| e.to_string())?;
    let n = p.size();
    let same_q = back.q().iter().zip(p.problem.q()).all(|(a, b)| a.to_bits() == b.to_bits());
    let same_m = back.size() == n
        && (0..n).all(|i| (0..n).all(|j| back.m().get(i, j).to_bits() == p.problem.m().get(i, j).to_bits()));
    if !(same_q && same_m) {
        return Err(format!("{} does not read back bit for bit", path.display()));
    }
    println!("wrote {}", path.display());
    Ok(path)
}

fn entry(p: &BenchProblem, path: &Path) -> Value {
    let (source, seed) = match p.source {
        Source::Random { seed } => ("random", json!(seed)),
        Source::File(_) => ("file", Value::Null),
    };
    let solvers: Vec<&str> = SOLVERS.iter().map(|&(name, _)| name).filter(|name| p.runs(name)).collect();
    json!({
        "name": p.name,
        "n": p.size(),
        "path": path.to_string_lossy(),
        "source": source,
        "seed": seed,
        "tolerance": p.tolerance,
        "storage": p.problem.m().storage().as_str(),
        "solvers": solvers,
    })
}
