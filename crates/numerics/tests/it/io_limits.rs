//! Integration tests: what the readers allocate is bounded. Hostile files (huge declared sizes in
//! a few bytes, corrupt FCLIB headers, NaN, truncations, binary bytes) give typed errors; the
//! settable limit (`ReadOptions::max_bytes`) is enforced and named in the error; a child process
//! under an address-space cap of 200 MB reads each hostile file and exits with its typed error
//! in well under a second; the corpus replays through the fuzz targets' entry points; seeded
//! mutations of the shipped `.dat` files and of the FCLIB fixtures never panic.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use nonsmooth_numerics::NumericsError;
use nonsmooth_numerics::io::{
    DEFAULT_MAX_READ_BYTES, ProblemKind, ReadOptions, parse_problem_with, read_problem, read_problem_with,
};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// The corpus of hostile files (written by `make_corpus.py` in that folder) and of past fuzzing
/// finds.
fn corpus_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/corpus")
}

/// The corpus files (everything but the script and notes), sorted.
fn corpus_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(corpus_dir())
        .expect("corpus folder")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.is_file() && !matches!(p.extension().and_then(|e| e.to_str()), Some("py" | "md")))
        .collect();
    files.sort();
    files
}

/// The name of an error's variant.
fn variant(e: &NumericsError) -> &'static str {
    match e {
        NumericsError::Parse { .. } => "Parse",
        NumericsError::NonFinite { .. } => "NonFinite",
        NumericsError::DimensionMismatch { .. } => "DimensionMismatch",
        NumericsError::InvalidInput { .. } => "InvalidInput",
        NumericsError::EmptyProblem { .. } => "EmptyProblem",
        NumericsError::ReadLimitExceeded { .. } => "ReadLimitExceeded",
        NumericsError::Io { .. } => "Io",
        _ => "other",
    }
}

/// Each hostile file, the variant `read_problem` gives and a part of its message.
#[rustfmt::skip]
const HOSTILE: [(&str, &str, &str); 16] = [
    ("binary_garbage.dat", "Parse", "binary_garbage.dat"),
    ("fc3d_inf_mu.dat", "NonFinite", "mu"),
    ("fc3d_sparse_nnz_2e9.dat", "Parse", "nzmax = 1000000000000 exceeds"),
    ("fc3d_truncated_before_mu.dat", "Parse", "the friction coefficients mu needs 1 more tokens"),
    ("fclib_w_p_declares_2e31_contiguous.hdf5", "Parse", "/fclib_local/W/p: declares 2147483648 values"),
    ("fclib_w_x_declares_1e12_contiguous.hdf5", "Parse", "/fclib_local/W/x: declares 1000000000000 values"),
    ("fclib_w_x_declares_1e9_chunked_deflate.hdf5", "Parse", "/fclib_local/W/x: declares 1000000000 values"),
    ("fclib_w_x_chunk_dimension_0.hdf5", "Parse", "/fclib_local/W/x: chunk dimensions [0]: a chunk dimension must be positive"),
    ("gfc3d_csc_2e9_columns.dat", "Parse", "needs 14000000000 more tokens"),
    ("hdf5_signature_then_garbage.dat", "Parse", "not a readable HDF5 file"),
    ("lcp_dense_1e9.dat", "Parse", "larger than the input"),
    ("lcp_nan.dat", "NonFinite", "lcp matrix"),
    ("lcp_sbm_2e9_blocks.dat", "Parse", "needs"),
    ("lcp_sbm_millions_of_block_rows.dat", "Parse", "needs 5000000 more tokens"),
    ("lcp_truncated.dat", "Parse", "expected a number"),
    ("mlcp_blocks_1e9.dat", "Parse", "more tokens but only"),
];

#[test]
fn hostile_files_give_typed_errors_fast() {
    let mut slowest = (0.0f64, "");
    for (file, expected, fragment) in HOSTILE {
        let start = Instant::now();
        let r = read_problem(&corpus_dir().join(file), None);
        let seconds = start.elapsed().as_secs_f64();
        let e = r.expect_err(file);
        assert_eq!(variant(&e), expected, "{file}: {e}");
        assert!(e.to_string().contains(fragment), "{file}: `{fragment}` not in: {e}");
        if seconds > slowest.0 {
            slowest = (seconds, file);
        }
    }
    println!("slowest hostile file: {} in {:.2} ms", slowest.1, slowest.0 * 1e3);
    assert!(slowest.0 < 1.0, "{} took {:.2} s", slowest.1, slowest.0);
}

/// A 2 × 2 LCP in Siconos' layout (dense `M`).
const LCP: &str = "2\n0\n2\n2\n2 2\n2 1 1 2\n-5 -6\n";

/// Bytes of the token index of `LCP` (24 bytes per token on 64-bit targets).
fn lcp_token_bytes() -> u64 {
    LCP.split_ascii_whitespace().count() as u64 * 24
}

#[test]
fn the_limit_is_settable_checked_before_allocating_and_named() {
    assert_eq!(ReadOptions::default().max_bytes, DEFAULT_MAX_READ_BYTES);
    assert_eq!(DEFAULT_MAX_READ_BYTES, 1 << 32);
    let with = |max: u64| parse_problem_with(LCP, Some(ProblemKind::Lcp), &ReadOptions::default().with_max_bytes(max));
    assert!(with(DEFAULT_MAX_READ_BYTES).is_ok());
    // Below the token index: refused before tokenizing.
    let e = with(lcp_token_bytes() - 1).expect_err("token index");
    assert!(
        matches!(e, NumericsError::ReadLimitExceeded { ref what, used: 0, .. } if what.contains("token index")),
        "{e:?}"
    );
    // Room for the tokens but not for M (a 2 × 2 dense matrix, columns padded to 8 rows: 128 bytes).
    let e = with(lcp_token_bytes() + 100).expect_err("matrix");
    match e {
        NumericsError::ReadLimitExceeded { path, what, declared, used, limit } => {
            assert_eq!((path.as_str(), declared, limit), ("<memory>", 128, lcp_token_bytes() + 100));
            assert_eq!(used, lcp_token_bytes());
            assert!(what.contains("the lcp matrix M (dense 2 × 2)"), "{what}");
        }
        other => panic!("expected ReadLimitExceeded, got {other:?}"),
    }
    // M fits, q (16 bytes) does not.
    let e = with(lcp_token_bytes() + 130).expect_err("q");
    assert!(matches!(e, NumericsError::ReadLimitExceeded { declared: 16, .. }), "{e:?}");
    assert!(with(lcp_token_bytes() + 144).is_ok());
    // Every limit either reads the problem or names the limit; larger limits never fail.
    let mut first_ok = None;
    for max in 0..600 {
        match with(max) {
            Ok(_) => first_ok = first_ok.or(Some(max)),
            Err(NumericsError::ReadLimitExceeded { limit, .. }) => {
                assert_eq!(limit, max);
                assert!(first_ok.is_none(), "fails at {max} after succeeding at {first_ok:?}");
            }
            Err(e) => panic!("limit {max}: {e:?}"),
        }
    }
    assert_eq!(first_ok, Some(lcp_token_bytes() + 144));
    // Without a kind (every layout tried) the limit holds too.
    let e = parse_problem_with(LCP, None, &ReadOptions::default().with_max_bytes(lcp_token_bytes() + 100));
    assert!(matches!(e, Err(NumericsError::ReadLimitExceeded { .. })), "{e:?}");
}

/// One row of dense data is padded to 8 rows by faer: a `1 × n` block costs 64 bytes a value,
/// which the budget counts (an MLCP whose `D` block is `m × 1`, `C` is `1 × m`).
#[test]
fn dense_padding_is_counted() {
    let m = 1000;
    let mut text = format!("0\n1\n1\n{m}\n");
    let numbers = 1 + m * m + 2 * m + 1 + m;
    text.push_str(&"1 ".repeat(numbers));
    let tokens = (4 + numbers) as u64 * 24;
    // A = 1 × 1 (64 bytes), B = m × m (8·m² bytes), C = 1 × m (64·m), D = m × 1 (8·m).
    let ok = parse_problem_with(&text, Some(ProblemKind::Mlcp), &ReadOptions::default());
    assert!(ok.is_ok(), "{ok:?}");
    let needed = tokens + 64 + 8 * (m * m) as u64 + 64 * m as u64;
    let r = parse_problem_with(&text, Some(ProblemKind::Mlcp), &ReadOptions::default().with_max_bytes(needed));
    assert!(
        matches!(r, Err(NumericsError::ReadLimitExceeded { ref what, .. }) if what.contains("the mlcp block D")),
        "{r:?}"
    );
}

#[test]
fn files_longer_than_the_limit_are_not_read() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let path = dir.path().join("lcp.dat");
    std::fs::write(&path, LCP).expect("write");
    let len = LCP.len() as u64;
    let e = read_problem_with(&path, None, &ReadOptions::default().with_max_bytes(len - 1)).expect_err("too long");
    assert!(
        matches!(e, NumericsError::ReadLimitExceeded { ref what, declared, .. } if what == "the file" && declared == len),
        "{e:?}"
    );
    assert!(e.to_string().contains("lcp.dat"), "{e}");
    assert!(read_problem_with(&path, None, &ReadOptions::default()).is_ok());
    // A device of unknown length is read at most to the limit.
    let zero = Path::new("/dev/zero");
    if zero.exists() {
        let start = Instant::now();
        let e = read_problem_with(zero, None, &ReadOptions::default().with_max_bytes(1 << 20)).expect_err("endless");
        assert!(matches!(e, NumericsError::ReadLimitExceeded { declared, .. } if declared == (1 << 20) + 1), "{e:?}");
        assert!(start.elapsed().as_secs_f64() < 5.0);
    }
}

#[cfg(feature = "fclib")]
#[test]
fn fclib_reads_obey_the_limit() {
    use nonsmooth_numerics::io::fclib::{read_fclib, read_fclib_bytes, read_fclib_with};
    let file = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/fclib/fc3d_local_csr_contiguous.hdf5");
    let bytes = std::fs::read(&file).expect("fixture");
    let len = bytes.len() as u64;
    let p = read_fclib(&file).expect("the fixture reads");
    let q = read_fclib_bytes(bytes.clone(), &ReadOptions::default()).expect("from memory");
    assert_eq!(p.size(), q.size());
    let e = read_fclib_with(&file, &ReadOptions::default().with_max_bytes(len - 1)).expect_err("file");
    assert!(matches!(e, NumericsError::ReadLimitExceeded { ref what, .. } if what == "the file"), "{e:?}");
    // Room for the file and a little more: the first dataset beyond it is named.
    let e = read_fclib_bytes(bytes.clone(), &ReadOptions::default().with_max_bytes(len + 64)).expect_err("dataset");
    match &e {
        NumericsError::ReadLimitExceeded { path, what, limit, .. } => {
            assert_eq!((path.as_str(), *limit), ("<memory>", len + 64));
            assert!(what.starts_with("dataset /fclib_local/"), "{what}");
        }
        other => panic!("expected ReadLimitExceeded, got {other:?}"),
    }
    // Every limit either reads the problem or names the limit; larger limits never fail.
    let mut first_ok = None;
    for max in (len..len + 20_000).step_by(97) {
        match read_fclib_bytes(bytes.clone(), &ReadOptions::default().with_max_bytes(max)) {
            Ok(_) => first_ok = first_ok.or(Some(max)),
            Err(NumericsError::ReadLimitExceeded { limit, .. }) => {
                assert_eq!(limit, max);
                assert!(first_ok.is_none(), "fails at {max} after succeeding at {first_ok:?}");
            }
            Err(e) => panic!("limit {max}: {e:?}"),
        }
    }
    let first_ok = first_ok.expect("some limit under 20 kB over the file reads it");
    println!("fc3d_local_csr_contiguous.hdf5 ({len} bytes) reads with max_bytes = {first_ok}");
}

// ---------------------------------------------------------------------------------------------
// A child process under an address-space cap.

/// The variable that makes [`child_reads_one_file`] read a file (and print what happened).
const CHILD_VAR: &str = "NONSMOOTH_IO_LIMITS_CHILD";
/// The address-space cap of the child: 200 MB.
const CAP_BYTES: u64 = 200_000_000;

/// Helper of [`hostile_files_are_refused_under_a_memory_cap`]: does nothing unless [`CHILD_VAR`]
/// is set. With a path, reads it and prints `CHILD <variant> <seconds> <peak kB>`; with
/// `reserve`, tries to reserve 1 GiB and prints whether the cap refused it.
#[test]
fn child_reads_one_file() {
    let Some(arg) = std::env::var_os(CHILD_VAR) else { return };
    if arg == "reserve" {
        let mut v: Vec<u8> = Vec::new();
        let refused = v.try_reserve_exact(1 << 30).is_err();
        println!("CHILD reserve {}", if refused { "refused" } else { "granted" });
        return;
    }
    let start = Instant::now();
    let r = read_problem(Path::new(&arg), None);
    let seconds = start.elapsed().as_secs_f64();
    let name = match &r {
        Ok(_) => "Ok",
        Err(e) => variant(e),
    };
    println!("CHILD {name} {seconds:.6} {}", peak_kb().unwrap_or(0));
}

/// The process's peak resident memory (`VmHWM`, kB), where `/proc` has it.
fn peak_kb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Runs this test binary's [`child_reads_one_file`] with `arg` under `prlimit --as`; returns the
/// child's `CHILD` line and the wall time, or `None` when `prlimit` is unavailable.
fn run_capped(arg: &str) -> Option<(String, f64)> {
    let exe = std::env::current_exe().expect("test binary");
    let start = Instant::now();
    let out = Command::new("prlimit")
        .arg(format!("--as={CAP_BYTES}"))
        .arg("--")
        .arg(exe)
        .args(["io_limits::child_reads_one_file", "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD_VAR, arg)
        .output()
        .ok()?;
    let wall = start.elapsed().as_secs_f64();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "child on {arg} failed: {}\n{stdout}", String::from_utf8_lossy(&out.stderr));
    // The harness prints `test name ... ` before the child's own line.
    let at = stdout.find("CHILD ").unwrap_or_else(|| panic!("no CHILD line: {stdout}"));
    let line = stdout[at..].lines().next().unwrap_or_default();
    Some((line.to_string(), wall))
}

#[test]
fn hostile_files_are_refused_under_a_memory_cap() {
    if !cfg!(target_os = "linux") || Command::new("prlimit").arg("--version").output().is_err() {
        println!("skipped: needs Linux and prlimit (util-linux)");
        return;
    }
    // The cap is in force: the child cannot reserve 1 GiB.
    let (line, _) = run_capped("reserve").expect("prlimit");
    assert_eq!(line, "CHILD reserve refused");
    let (mut slowest, mut peak) = (0.0f64, 0u64);
    for (file, expected, _) in HOSTILE {
        let path = corpus_dir().join(file);
        let (line, wall) = run_capped(path.to_str().expect("utf-8 path")).expect("prlimit");
        let words: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(words.get(1).copied(), Some(expected), "{file}: {line}");
        let seconds: f64 = words[2].parse().expect("seconds");
        let kb: u64 = words[3].parse().expect("kB");
        println!("{file}: {expected} in {:.3} ms (child wall {:.0} ms), peak RSS {kb} kB", seconds * 1e3, wall * 1e3);
        assert!(seconds < 1.0, "{file}: {seconds} s");
        assert!(kb < 100_000, "{file}: peak {kb} kB");
        slowest = slowest.max(seconds);
        peak = peak.max(kb);
    }
    println!("under a {CAP_BYTES}-byte address-space cap: slowest read {:.3} ms, peak RSS {peak} kB", slowest * 1e3);
}

// ---------------------------------------------------------------------------------------------
// The fuzz targets' entry points on the corpus, and a seeded mutation fuzz.

/// The limit the fuzz targets read under.
const FUZZ_MAX_BYTES: u64 = 256 << 20;

/// What the `parse_dat` fuzz target does with its input.
fn parse_dat(data: &[u8]) -> Result<(), NumericsError> {
    let options = ReadOptions::default().with_max_bytes(FUZZ_MAX_BYTES);
    parse_problem_with(&String::from_utf8_lossy(data), None, &options).map(|_| ())
}

/// What the `read_fclib` fuzz target does with its input.
#[cfg(feature = "fclib")]
fn read_fclib(data: &[u8]) -> Result<(), NumericsError> {
    let options = ReadOptions::default().with_max_bytes(FUZZ_MAX_BYTES);
    nonsmooth_numerics::io::fclib::read_fclib_bytes(data.to_vec(), &options).map(|_| ())
}

#[cfg(not(feature = "fclib"))]
fn read_fclib(_data: &[u8]) -> Result<(), NumericsError> {
    Ok(())
}

/// An input error never reads as an I/O error (nothing touches a file here).
fn assert_typed(r: Result<(), NumericsError>, what: &str) -> bool {
    match r {
        Ok(()) => true,
        Err(NumericsError::Io { .. }) => panic!("{what}: an i/o error from memory"),
        Err(_) => false,
    }
}

#[test]
fn the_corpus_replays_through_the_fuzz_entry_points() {
    let mut slowest = (0.0f64, String::new());
    let files = corpus_files();
    assert!(files.len() >= 16, "{} corpus files", files.len());
    for path in &files {
        let data = std::fs::read(path).expect("corpus file");
        let start = Instant::now();
        assert_typed(parse_dat(&data), &path.display().to_string());
        assert_typed(read_fclib(&data), &path.display().to_string());
        let seconds = start.elapsed().as_secs_f64();
        if seconds > slowest.0 {
            slowest = (seconds, path.file_name().and_then(|f| f.to_str()).unwrap_or("?").to_string());
        }
    }
    println!("{} corpus files replayed; slowest {} in {:.2} ms", files.len(), slowest.1, slowest.0 * 1e3);
}

/// Numbers that stress declared sizes.
const HUGE: [&str; 9] =
    ["1000000000", "2147483647", "2147483648", "99999999999999", "1e308", "-1", "NaN", "4294967296", "65536"];

/// A mutated copy of a text file: byte flips, a truncation, numbers replaced by huge ones.
fn mutate_text(rng: &mut StdRng, seed: &[u8]) -> Vec<u8> {
    let mut b = seed.to_vec();
    for _ in 0..rng.random_range(1..=3) {
        match rng.random_range(0..4) {
            0 if !b.is_empty() => {
                let k = rng.random_range(0..b.len());
                b[k] ^= 1 << rng.random_range(0..8);
            }
            1 => b.truncate(rng.random_range(0..=b.len())),
            _ => {
                // Replace the k-th number by a huge one.
                let text = String::from_utf8_lossy(&b).into_owned();
                let words: Vec<(usize, &str)> =
                    text.split_ascii_whitespace().map(|w| (w.as_ptr() as usize - text.as_ptr() as usize, w)).collect();
                if words.is_empty() {
                    continue;
                }
                // Headers (sizes, counts) are near the start: favour them.
                let k = if rng.random_bool(0.5) {
                    rng.random_range(0..words.len().min(12))
                } else {
                    rng.random_range(0..words.len())
                };
                let (at, w) = words[k];
                let new = HUGE[rng.random_range(0..HUGE.len())];
                b = [&text.as_bytes()[..at], new.as_bytes(), &text.as_bytes()[at + w.len()..]].concat();
            }
        }
    }
    b
}

/// A mutated copy of a binary file: byte flips, a truncation, 4- or 8-byte little-endian words
/// overwritten with huge values (a size field, a dimension, an address).
fn mutate_bytes(rng: &mut StdRng, seed: &[u8]) -> Vec<u8> {
    const WORDS: [u64; 6] = [u64::MAX, 1 << 40, 1_000_000_000_000, i32::MAX as u64, u32::MAX as u64, 1 << 31];
    let mut b = seed.to_vec();
    for _ in 0..rng.random_range(1..=2) {
        match rng.random_range(0..4) {
            0 if !b.is_empty() => {
                let k = rng.random_range(0..b.len());
                b[k] = rng.random();
            }
            1 => b.truncate(rng.random_range(b.len() / 2..=b.len())),
            _ if b.len() > 8 => {
                let k = rng.random_range(0..b.len() - 8);
                let w = WORDS[rng.random_range(0..WORDS.len())];
                let width = if rng.random_bool(0.5) { 4 } else { 8 };
                b[k..k + width].copy_from_slice(&w.to_le_bytes()[..width]);
            }
            _ => {}
        }
    }
    b
}

#[test]
fn seeded_mutations_never_panic_and_stay_bounded() {
    let shipped = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../nonsmooth/data");
    let mut texts: Vec<(String, Vec<u8>)> = std::fs::read_dir(&shipped)
        .expect("shipped data")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "dat"))
        .map(|p| (p.display().to_string(), std::fs::read(&p).expect("read")))
        .collect();
    texts.sort();
    assert!(!texts.is_empty());
    // A limit of 64 MiB: no mutant of these small files may need more, whatever it declares.
    let options = ReadOptions::default().with_max_bytes(64 << 20);
    let mut rng = StdRng::seed_from_u64(20261126);
    let start = Instant::now();
    let (mut cases, mut accepted, mut limited, mut slowest) = (0usize, 0usize, 0usize, 0.0f64);
    let mut tally = |r: Result<(), NumericsError>, what: &str, t: Instant| {
        let s = t.elapsed().as_secs_f64();
        slowest = slowest.max(s);
        limited += usize::from(matches!(r, Err(NumericsError::ReadLimitExceeded { .. })));
        accepted += usize::from(assert_typed(r, what));
        cases += 1;
    };
    // One case in five under a limit of at most a few times the seed's size, so that the limit
    // is reached at every point of a read as well.
    let small =
        |rng: &mut StdRng, len: usize| ReadOptions::default().with_max_bytes(rng.random_range(0..64 * len as u64));
    for (name, seed) in &texts {
        for _ in 0..1000 {
            let m = mutate_text(&mut rng, seed);
            let o = if rng.random_bool(0.2) { small(&mut rng, seed.len()) } else { options };
            let t = Instant::now();
            let r = parse_problem_with(&String::from_utf8_lossy(&m), None, &o).map(|_| ());
            tally(r, name, t);
        }
    }
    #[cfg(feature = "fclib")]
    {
        let fixtures = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/fclib");
        let mut binaries: Vec<(String, Vec<u8>)> = std::fs::read_dir(&fixtures)
            .expect("fixtures")
            .map(|e| e.expect("entry").path())
            .filter(|p| p.extension().is_some_and(|e| e == "hdf5"))
            .map(|p| (p.display().to_string(), std::fs::read(&p).expect("read")))
            .collect();
        binaries.sort();
        for (name, seed) in &binaries {
            for _ in 0..300 {
                let m = mutate_bytes(&mut rng, seed);
                let o = if rng.random_bool(0.2) { small(&mut rng, seed.len() / 16) } else { options };
                let t = Instant::now();
                let r = nonsmooth_numerics::io::fclib::read_fclib_bytes(m, &o).map(|_| ());
                tally(r, name, t);
            }
        }
    }
    let total = start.elapsed().as_secs_f64();
    println!(
        "{cases} mutants in {total:.2} s ({accepted} read as problems, {limited} over the limit); slowest {:.2} ms",
        slowest * 1e3
    );
    assert!(cases >= 3000);
}
