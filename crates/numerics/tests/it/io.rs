//! Integration tests: io. Siconos `.dat` files of the reference collection read with their kind
//! and sizes, write-then-read is bit-exact, the dense and sparse-block twins agree, mutated
//! files never panic, malformed input gives the right typed error, and (when Siconos 4.4's
//! Python module is installed) Siconos reads what we write.

use std::path::{Path, PathBuf};
use std::process::Command;

use nonsmooth_numerics::NumericsError;
use nonsmooth_numerics::io::{
    Problem, ProblemKind, format_matrix, format_problem, parse_matrix, parse_problem, read_lcp, read_problem,
    write_lcp, write_problem,
};
use nonsmooth_numerics::lcp::LcpProblem;
use nonsmooth_numerics::matrix::NumericsMatrix;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use ProblemKind::{Fc2d, Fc3d, GlobalFc2d, GlobalFc3d, Lcp, Mlcp, Relay};

/// Every text file of the seven folders: path under `siconos/`, kind, `Problem::size`, number
/// of contacts, storage of each matrix of `Problem::matrices` (D dense, B sparse-block, S sparse).
#[rustfmt::skip]
const COLLECTION: [(&str, ProblemKind, usize, Option<usize>, &str); 81] = [
    ("lcp/lcp_CPS_1.dat", Lcp, 2, None, "D"),
    ("lcp/lcp_CPS_2.dat", Lcp, 3, None, "D"),
    ("lcp/lcp_CPS_3.dat", Lcp, 4, None, "D"),
    ("lcp/lcp_CPS_4.dat", Lcp, 4, None, "D"),
    ("lcp/lcp_CPS_4bis.dat", Lcp, 4, None, "D"),
    ("lcp/lcp_CPS_5.dat", Lcp, 2, None, "D"),
    ("lcp/lcp_Pang_isolated_sol.dat", Lcp, 3, None, "D"),
    ("lcp/lcp_Pang_isolated_sol_perturbed.dat", Lcp, 3, None, "D"),
    ("lcp/lcp_deudeu.dat", Lcp, 2, None, "D"),
    ("lcp/lcp_enum_fails.dat", Lcp, 9, None, "D"),
    ("lcp/lcp_exp_murty.dat", Lcp, 6, None, "D"),
    ("lcp/lcp_inf_sol_perturbed.dat", Lcp, 3, None, "D"),
    ("lcp/lcp_ortiz.dat", Lcp, 4, None, "D"),
    ("lcp/lcp_trivial.dat", Lcp, 9, None, "D"),
    ("lcp/lcp_trivial_block.dat", Lcp, 9, None, "B"),
    ("mlcp/Buck2_mlcp.dat", Mlcp, 32, None, "DDDDD"),
    ("mlcp/BuckConverter_mlcp.dat", Mlcp, 32, None, "DDDDD"),
    ("mlcp/BuckFirstStep_mlcp.dat", Mlcp, 32, None, "DDDDD"),
    ("mlcp/PDSym_mlcp.dat", Mlcp, 7, None, "DDDDD"),
    ("mlcp/PD_mlcp.dat", Mlcp, 7, None, "DDDDD"),
    ("mlcp/RCD_mlcp.dat", Mlcp, 3, None, "DDDDD"),
    ("mlcp/RLCD_mlcp.dat", Mlcp, 8, None, "DDDDD"),
    ("mlcp/Rectangular_mlcp.dat", Mlcp, 2, None, "DDDDD"),
    ("mlcp/deltasigma2_mlcp.dat", Mlcp, 221, None, "DDDDD"),
    ("mlcp/deltasigma_mlcp.dat", Mlcp, 221, None, "DDDDD"),
    ("mlcp/deudeu_mlcp.dat", Mlcp, 2, None, "DDDDD"),
    ("mlcp/diodeBridge20_mlcp.dat", Mlcp, 31, None, "DDDDD"),
    ("mlcp/diodeBridge40_mlcp.dat", Mlcp, 61, None, "DDDDD"),
    ("mlcp/diodeBridge_mlcp.dat", Mlcp, 7, None, "DDDDD"),
    ("mlcp/m2n1_mlcp.dat", Mlcp, 3, None, "DDDDD"),
    ("mlcp/m3n2_mlcp.dat", Mlcp, 5, None, "DDDDD"),
    ("mlcp/relay2_mlcp.dat", Mlcp, 6, None, "DDDDD"),
    ("mlcp/relay3_mlcp.dat", Mlcp, 6, None, "DDDDD"),
    ("relay/relay1.dat", Relay, 15, None, "D"),
    ("relay/relay_2x2.dat", Relay, 2, None, "D"),
    ("relay/relay_4x4.dat", Relay, 4, None, "D"),
    ("relay/relay_simple2.dat", Relay, 2, None, "D"),
    ("relay/step_1x1.dat", Relay, 1, None, "D"),
    ("relay/step_2x2.dat", Relay, 2, None, "D"),
    ("relay/step_4x4.dat", Relay, 4, None, "D"),
    ("fc2d/FC2D_SliderCrankLagrangian00000.dat", Fc2d, 4, Some(2), "D"),
    ("fc2d/FC2D_SliderCrankLagrangian00001.dat", Fc2d, 4, Some(2), "D"),
    ("fc2d/FrictionContactProblem00031.dat", Fc2d, 22, Some(11), "B"),
    ("fc2d/FrictionContactProblem00071.dat", Fc2d, 178, Some(89), "B"),
    ("fc2d/FrictionContactProblem00237.dat", Fc2d, 752, Some(376), "B"),
    ("fc2d/FrictionContactProblem00374.dat", Fc2d, 56, Some(28), "D"),
    ("fc2d/FrictionContactProblem00394.dat", Fc2d, 12, Some(6), "D"),
    ("fc2d/FrictionContactProblem00727.dat", Fc2d, 734, Some(367), "B"),
    ("fc2d/fc2d_granularflowonwall_00667_00000.dat", Fc2d, 1334, Some(667), "S"),
    ("fc2d/fc2d_granularflowonwall_02020_00213.dat", Fc2d, 4040, Some(2020), "S"),
    ("fc2d/fc2d_granularflowonwall_07002_00801.dat", Fc2d, 14004, Some(7002), "S"),
    ("gfc2d/gfc2d_granularflowonwall_00000_00117.dat", GlobalFc2d, 0, Some(0), "SS"),
    ("gfc2d/gfc2d_granularflowonwall_00069_00350.dat", GlobalFc2d, 138, Some(69), "SS"),
    ("gfc2d/gfc2d_granularflowonwall_00230_00206.dat", GlobalFc2d, 460, Some(230), "SS"),
    ("fc3d/BoxesStack1-i100000-32.hdf5.dat", Fc3d, 156, Some(52), "B"),
    ("fc3d/Capsules-i100-1090.dat", Fc3d, 828, Some(276), "B"),
    ("fc3d/Capsules-i101-404.dat", Fc3d, 675, Some(225), "B"),
    ("fc3d/Capsules-i122-1617.dat", Fc3d, 888, Some(296), "B"),
    ("fc3d/Confeti-ex13-4contact-Fc3D-SBM.dat", Fc3d, 12, Some(4), "B"),
    ("fc3d/FC3D_Example1.dat", Fc3d, 9, Some(3), "D"),
    ("fc3d/FC3D_Example1_SBM.dat", Fc3d, 9, Some(3), "B"),
    ("fc3d/FrictionContact3D_1c.dat", Fc3d, 3, Some(1), "D"),
    ("fc3d/FrictionContact3D_RR_1c.dat", Fc3d, 3, Some(1), "D"),
    ("fc3d/GFC3D_TwoRods1-condensed.dat", Fc3d, 9, Some(3), "B"),
    // fc3d/LMGC_100_PR_PerioBox-i00361-60-03000.hdf5: FCLIB HDF5, read in tests/it/fclib.rs.
    ("fc3d/NESpheres_10_1.dat", Fc3d, 27, Some(9), "D"),
    ("fc3d/OneObject-i100000-316.hdf5.dat", Fc3d, 75, Some(25), "B"),
    ("fc3d/OneObject-i1028-138.hdf5.dat", Fc3d, 69, Some(23), "B"),
    ("fc3d/Rover1039.dat", Fc3d, 12, Some(4), "D"),
    ("fc3d/Rover1040.dat", Fc3d, 15, Some(5), "D"),
    ("fc3d/Rover1041.dat", Fc3d, 15, Some(5), "D"),
    ("fc3d/Rover11035.dat", Fc3d, 3, Some(1), "D"),
    ("fc3d/Rover3865.dat", Fc3d, 15, Some(5), "D"),
    ("fc3d/Rover4144.dat", Fc3d, 12, Some(4), "D"),
    ("fc3d/Rover4396.dat", Fc3d, 6, Some(2), "D"),
    // gfc3d/Box_Stacks-i0122-82-5.hdf5: FCLIB HDF5, read in tests/it/fclib.rs.
    ("gfc3d/GFC3D_Example0.dat", GlobalFc3d, 3, Some(1), "DD"),
    ("gfc3d/GFC3D_Example00.dat", GlobalFc3d, 3, Some(1), "DD"),
    ("gfc3d/GFC3D_Example00_badly_scaled.dat", GlobalFc3d, 3, Some(1), "DD"),
    ("gfc3d/GFC3D_Example0_SBM.dat", GlobalFc3d, 3, Some(1), "BB"),
    ("gfc3d/GFC3D_Example1.dat", GlobalFc3d, 3, Some(1), "BB"),
    ("gfc3d/GFC3D_OneContact.dat", GlobalFc3d, 3, Some(1), "BB"),
    ("gfc3d/GFC3D_TwoRods1.dat", GlobalFc3d, 9, Some(3), "BB"),
    // gfc3d/spheres-in-a-box-98-i10000-256-10.hdf5: FCLIB HDF5, read in tests/it/fclib.rs.
];

const FOLDERS: [&str; 7] = ["lcp", "mlcp", "relay", "fc2d", "gfc2d", "fc3d", "gfc3d"];

fn siconos_dir() -> Option<PathBuf> {
    crate::data_dir().map(|d| d.join("siconos"))
}

fn tmp_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("io").join(name);
    std::fs::create_dir_all(&dir).expect("temporary directory");
    dir
}

fn storage_letter(m: &NumericsMatrix) -> char {
    match m {
        NumericsMatrix::Dense(_) => 'D',
        NumericsMatrix::SparseBlock(_) => 'B',
        NumericsMatrix::Sparse(_) => 'S',
    }
}

/// Everything a matrix holds: storage, shape, structure and the bits of every stored value.
fn matrix_print(m: &NumericsMatrix) -> (char, usize, usize, Vec<usize>, Vec<u64>) {
    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<u64>>();
    let (structure, values) = match m {
        NumericsMatrix::Dense(a) => (Vec::new(), (0..a.ncols()).flat_map(|j| bits(a.col_as_slice(j))).collect()),
        NumericsMatrix::SparseBlock(b) => {
            let mut s = Vec::new();
            for part in [b.row_block_ends(), b.col_block_ends(), b.row_ptr(), b.col_idx()] {
                s.push(part.len());
                s.extend_from_slice(part);
            }
            (s, bits(b.values()))
        }
        NumericsMatrix::Sparse(s) => {
            let mut st = vec![usize::from(s.is_csc())];
            st.extend_from_slice(s.indptr().raw_storage());
            st.extend_from_slice(s.indices());
            (st, bits(s.data()))
        }
    };
    (storage_letter(m), m.nrows(), m.ncols(), structure, values)
}

type ProblemPrint =
    (ProblemKind, Vec<(&'static str, (char, usize, usize, Vec<usize>, Vec<u64>))>, Vec<Vec<u64>>, Vec<usize>);

/// Everything a problem holds, floats as bits: two problems with the same print are identical.
fn problem_print(p: &Problem) -> ProblemPrint {
    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<u64>>();
    let matrices = p.matrices().into_iter().map(|(n, m)| (n, matrix_print(m))).collect();
    let mut ints = vec![p.size()];
    let vectors = match p {
        Problem::Lcp(p) => vec![bits(p.q())],
        Problem::Relay(p) => vec![bits(p.q()), bits(p.lb()), bits(p.ub())],
        Problem::Fc2d(p) => vec![bits(p.q()), bits(p.mu())],
        Problem::Fc3d(p) => vec![bits(p.q()), bits(p.mu())],
        Problem::GlobalFc2d(p) => vec![bits(p.q()), bits(p.b()), bits(p.mu())],
        Problem::GlobalFc3d(p) => vec![bits(p.q()), bits(p.b()), bits(p.mu())],
        Problem::Gmp(p) => {
            ints.extend(p.blocks().iter().map(|b| b.siconos_type() as usize));
            let mu: Vec<f64> = p.blocks().iter().filter_map(|b| b.mu()).collect();
            vec![bits(p.q()), bits(&mu)]
        }
        Problem::Mlcp(p) => {
            ints.extend([p.n(), p.m()]);
            let mut v = Vec::new();
            if let Some(f) = p.matrix_form() {
                ints.extend(&f.row_blocks);
                ints.extend(f.complementarity_blocks.iter().map(|&b| usize::from(b)));
                v.push(bits(&f.q));
            }
            if let Some(f) = p.block_form() {
                v.push(bits(&f.vec_a));
                v.push(bits(&f.vec_b));
            }
            v
        }
    };
    (p.kind(), matrices, vectors, ints)
}

#[test]
fn every_collection_file_reads_with_its_kind_and_sizes() {
    let Some(root) = siconos_dir() else { return };
    // The table lists every text file of the folders: a new file must be added to it.
    let mut on_disk = Vec::new();
    for folder in FOLDERS {
        for entry in std::fs::read_dir(root.join(folder)).expect("collection folder") {
            let name = entry.expect("folder entry").file_name().into_string().expect("utf-8 name");
            if !name.ends_with(".hdf5") {
                on_disk.push(format!("{folder}/{name}"));
            }
        }
    }
    on_disk.sort();
    let mut listed: Vec<String> = COLLECTION.iter().map(|r| r.0.to_string()).collect();
    listed.sort();
    assert_eq!(on_disk, listed, "the table must list exactly the collection's text files");

    for (file, kind, size, contacts, storages) in COLLECTION {
        let path = root.join(file);
        let p = read_problem(&path, None).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!(p.kind(), kind, "{file}: detected kind (with the path hint)");
        assert_eq!(p.size(), size, "{file}: size");
        assert_eq!(p.number_of_contacts(), contacts, "{file}: contacts");
        let letters: String = p.matrices().iter().map(|(_, m)| storage_letter(m)).collect();
        assert_eq!(letters, storages, "{file}: storages");
        // Detection without the path's hint agrees, and the explicit kind reads the same problem.
        let text = std::fs::read_to_string(&path).expect("utf-8 file");
        assert_eq!(parse_problem(&text, None).map(|p| p.kind()).ok(), Some(kind), "{file}: detected kind without hint");
        let explicit = read_problem(&path, Some(kind)).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!(problem_print(&explicit), problem_print(&p), "{file}: explicit kind");
    }
}

#[test]
fn write_then_read_is_bit_exact_for_every_file() {
    let Some(root) = siconos_dir() else { return };
    let out = tmp_dir("roundtrip");
    for (file, kind, ..) in COLLECTION {
        let p = read_problem(&root.join(file), Some(kind)).unwrap_or_else(|e| panic!("{file}: {e}"));
        // Through a file, with detection.
        let written = out.join(file.replace('/', "_"));
        write_problem(&written, &p).expect("write");
        let back = read_problem(&written, None).unwrap_or_else(|e| panic!("{file} written: {e}"));
        assert_eq!(problem_print(&back), problem_print(&p), "{file}: write then read");
        // Text → parse → format → parse: the second text is the first one.
        let text = format_problem(&p);
        let again = parse_problem(&text, Some(kind)).expect("formatted text parses");
        assert_eq!(format_problem(&again), text, "{file}: format is idempotent");
    }
}

#[test]
fn dense_and_sparse_block_twins_hold_the_same_problem() {
    let Some(root) = siconos_dir() else { return };
    for (dense, sbm) in [
        ("fc3d/FC3D_Example1.dat", "fc3d/FC3D_Example1_SBM.dat"),
        ("gfc3d/GFC3D_Example0.dat", "gfc3d/GFC3D_Example0_SBM.dat"),
    ] {
        let a = read_problem(&root.join(dense), None).expect("dense twin");
        let b = read_problem(&root.join(sbm), None).expect("sbm twin");
        assert_eq!((a.kind(), a.size(), a.number_of_contacts()), (b.kind(), b.size(), b.number_of_contacts()));
        let (ma, mb) = (a.matrices(), b.matrices());
        assert_eq!(ma.len(), mb.len());
        for ((name, x), (_, y)) in ma.iter().zip(&mb) {
            assert_eq!((storage_letter(x), storage_letter(y)), ('D', 'B'), "{dense}: {name}");
            let (dx, dy) = (x.to_dense(), y.to_dense());
            assert_eq!((dx.nrows(), dx.ncols()), (dy.nrows(), dy.ncols()));
            for j in 0..dx.ncols() {
                for i in 0..dx.nrows() {
                    assert_eq!(dx[(i, j)].to_bits(), dy[(i, j)].to_bits(), "{dense}: {name}({i}, {j})");
                }
            }
        }
        let (pa, pb) = (problem_print(&a), problem_print(&b));
        assert_eq!(pa.2, pb.2, "{dense}: the vectors q, (b,) mu");
    }
}

#[test]
fn write_lcp_then_read_lcp_is_bit_exact() {
    let mut rng = StdRng::seed_from_u64(7);
    let n = 40;
    let m = faer::Mat::from_fn(n, n, |_, _| rng.random_range(-1.0..1.0) * 10f64.powi(rng.random_range(-20..20)));
    let q: Vec<f64> = (0..n).map(|_| rng.random::<f64>() - 0.5).collect();
    let p = LcpProblem::new(NumericsMatrix::Dense(m), q).expect("random lcp");
    let path = tmp_dir("lcp").join("random_40.dat");
    write_lcp(&path, &p).expect("write");
    let back = read_lcp(&path).expect("read");
    assert_eq!(problem_print(&Problem::Lcp(back)), problem_print(&Problem::Lcp(p)));
}

/// The matrix alone round-trips too, in each storage.
#[test]
fn matrices_round_trip_in_every_storage() {
    let Some(root) = siconos_dir() else { return };
    for file in ["lcp/lcp_ortiz.dat", "fc3d/Capsules-i101-404.dat", "gfc2d/gfc2d_granularflowonwall_00069_00350.dat"] {
        let p = read_problem(&root.join(file), None).expect("problem");
        for (name, m) in p.matrices() {
            let back = parse_matrix(&format_matrix(m)).unwrap_or_else(|e| panic!("{file} {name}: {e}"));
            assert_eq!(matrix_print(&back), matrix_print(m), "{file}: {name}");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Mutation fuzz.

/// The seed split into words, each with the whitespace that follows it (line structure matters
/// for the sparse layout).
fn pieces(text: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    let mut word = String::new();
    let mut gap = String::new();
    for ch in text.chars() {
        if ch.is_whitespace() {
            gap.push(ch);
        } else {
            if !gap.is_empty() && !word.is_empty() {
                out.push((std::mem::take(&mut word), std::mem::take(&mut gap)));
            }
            gap.clear();
            word.push(ch);
        }
    }
    if !word.is_empty() {
        out.push((word, gap));
    }
    out
}

#[rustfmt::skip]
const GARBAGE: [&str; 28] = [
    "x", "NaN", "nan", "inf", "-inf", "99999999999", "-1", "3.5", "0", "1", "2", "3", "1e308", "-0", "2147483647",
    "2147483648", "4294967297", "18446744073709551616", "9223372036854775807", "-9223372036854775808", "1e-320",
    ",", ":", "col", "triplet:", "locations", "0x10", "1-by-1,",
];

fn mutate(rng: &mut StdRng, seed: &[(String, String)]) -> String {
    let mut p = seed.to_vec();
    for _ in 0..rng.random_range(1..=3) {
        if p.is_empty() {
            break;
        }
        let i = rng.random_range(0..p.len());
        match rng.random_range(0..8) {
            0 => {
                // Truncate at a random token, sometimes inside it.
                p.truncate(i + 1);
                let w = &mut p[i].0;
                let cut = rng.random_range(0..=w.len());
                if w.is_char_boundary(cut) {
                    w.truncate(cut);
                }
                p[i].1.clear();
            }
            1 => {
                p.remove(i);
            }
            2 => {
                let t = p[i].clone();
                p.insert(i, t);
            }
            3 => {
                let j = rng.random_range(0..p.len());
                let (a, b) = (p[i].0.clone(), p[j].0.clone());
                p[i].0 = b;
                p[j].0 = a;
            }
            4 | 5 => p[i].0 = GARBAGE[rng.random_range(0..GARBAGE.len())].to_string(),
            6 => p.insert(i, (GARBAGE[rng.random_range(0..GARBAGE.len())].to_string(), " ".to_string())),
            _ => p[i].1 = if p[i].1.contains('\n') { " ".into() } else { "\n".into() },
        }
    }
    p.iter().map(|(w, g)| format!("{w}{g}")).collect()
}

/// Parsing never panics; a success is a valid problem (it formats and reads back identically),
/// a failure is a typed input error.
fn check_mutant(text: &str, kind: Option<ProblemKind>) -> bool {
    match parse_problem(text, kind) {
        Ok(p) => {
            let again = parse_problem(&format_problem(&p), Some(p.kind())).expect("an accepted mutant re-reads");
            assert_eq!(problem_print(&again), problem_print(&p));
            true
        }
        Err(e) => {
            assert!(
                matches!(
                    e,
                    NumericsError::Parse { .. }
                        | NumericsError::DimensionMismatch { .. }
                        | NumericsError::NonFinite { .. }
                        | NumericsError::EmptyProblem { .. }
                        | NumericsError::InvalidInput { .. }
                        | NumericsError::UnsupportedProblem { .. }
                        | NumericsError::UnsupportedBlock { .. }
                ),
                "unexpected error kind: {e:?}"
            );
            false
        }
    }
}

/// A small general-sparse FC2D in the exact text CSparse and Siconos write.
const SMALL_SPARSE_FC2D: &str = "2\n2\n2\n4\n4\n2\nCSparse Version 3.1.9, May 4, 2016.  Copyright (c) Timothy A. Davis, 2006-2016\n4-by-4, nzmax: 6 nnz: 6, 1-norm: 3.5\n    col 0 : locations 0 to 1\n      0 : 2.5\n      1 : -0.5\n    col 1 : locations 2 to 3\n      0 : -0.5\n      1 : 3\n    col 2 : locations 4 to 4\n      2 : 1.25\n    col 3 : locations 5 to 5\n      3 : 2\n-1.5 0.25 -2 1e-3 \n0.5 0.3 \n";

#[test]
fn mutated_files_never_panic() {
    let Some(root) = siconos_dir() else { return };
    let read = |f: &str| std::fs::read_to_string(root.join(f)).expect("seed file");
    let seeds: Vec<(String, String, ProblemKind, usize)> = vec![
        ("lcp_CPS_1".into(), read("lcp/lcp_CPS_1.dat"), Lcp, 1000),
        ("lcp_trivial_block".into(), read("lcp/lcp_trivial_block.dat"), Lcp, 1000),
        ("FC3D_Example1_SBM".into(), read("fc3d/FC3D_Example1_SBM.dat"), Fc3d, 1000),
        ("m2n1_mlcp".into(), read("mlcp/m2n1_mlcp.dat"), Mlcp, 1000),
        ("relay_2x2".into(), read("relay/relay_2x2.dat"), Relay, 1000),
        ("GFC3D_Example1".into(), read("gfc3d/GFC3D_Example1.dat"), GlobalFc3d, 600),
        ("small sparse fc2d".into(), SMALL_SPARSE_FC2D.to_string(), Fc2d, 1000),
        ("fc2d_granularflowonwall_00667".into(), read("fc2d/fc2d_granularflowonwall_00667_00000.dat"), Fc2d, 120),
        (
            "gfc2d_granularflowonwall_00069".into(),
            read("gfc2d/gfc2d_granularflowonwall_00069_00350.dat"),
            GlobalFc2d,
            120,
        ),
    ];
    let mut rng = StdRng::seed_from_u64(2024);
    let (mut total, mut accepted) = (0, 0);
    for (name, text, kind, count) in &seeds {
        assert_eq!(parse_problem(text, None).map(|p| p.kind()).ok(), Some(*kind), "seed {name} reads");
        let words = pieces(text);
        for _ in 0..*count {
            let mutant = mutate(&mut rng, &words);
            accepted += usize::from(check_mutant(&mutant, None));
            check_mutant(&mutant, Some(*kind));
            total += 1;
        }
    }
    println!("{total} mutants, {accepted} accepted as valid problems");
    assert!(total >= 5000);
}

#[test]
fn declared_huge_sizes_fail_fast_without_allocating() {
    // n = 2³¹ − 1 square dense: 4.6e18 entries declared, 3 given.
    let start = std::time::Instant::now();
    let r = parse_problem("2147483647 0 2147483647 2147483647 2147483647 2147483647 1 2 3", Some(Lcp));
    assert!(matches!(r, Err(NumericsError::Parse { .. })));
    // 10¹² does not even fit Siconos' int.
    let r = parse_problem("1000000000000 0 1000000000000 1000000000000 1000000000000 1000000000000 1", None);
    assert!(matches!(r, Err(NumericsError::Parse { .. })));
    // A sparse-block matrix with a huge block, a sparse matrix with a huge column count.
    let r = parse_matrix("1 2000000000 2000000000 1 1 1 2000000000 2000000000 2 1 0 1 0 0 1.0");
    assert!(matches!(r, Err(NumericsError::Parse { .. })));
    let r = parse_matrix("2 5 2000000000 1\nbanner\ntriplet: 5-by-2000000000, nzmax: 1 nnz: 1\n 0 0 : 1\n");
    assert!(matches!(r, Err(NumericsError::Parse { .. })));
    let r = parse_matrix("2 5 2000000000 2\nbanner\n5-by-2000000000, nzmax: 1 nnz: 1, 1-norm: 1\n");
    assert!(matches!(r, Err(NumericsError::Parse { .. })));
    assert!(start.elapsed().as_secs_f64() < 1.0, "huge declared sizes must be refused before any work");
}

#[test]
fn malformed_problems_give_the_right_typed_error() {
    let parse = |text: &str, kind: Option<ProblemKind>| parse_problem(text, kind);
    let lcp = "2\n0\n2\n2\n2 2\n2 1 1 2\n-5 -6\n";
    assert!(parse(lcp, Some(Lcp)).is_ok());
    // Truncated.
    assert!(matches!(parse(&lcp[..lcp.len() - 4], Some(Lcp)), Err(NumericsError::Parse { .. })));
    // A count written as a float.
    assert!(matches!(parse("2\n0\n2.0\n2\n2 2\n2 1 1 2\n-5 -6\n", Some(Lcp)), Err(NumericsError::Parse { .. })));
    // Not a number.
    assert!(matches!(parse("2\n0\n2\n2\n2 2\n2 1 one 2\n-5 -6\n", Some(Lcp)), Err(NumericsError::Parse { .. })));
    // The declared size disagrees with the matrix.
    assert!(matches!(parse("3\n0\n2\n2\n2 2\n2 1 1 2\n-5 -6 0\n", Some(Lcp)), Err(NumericsError::Parse { .. })));
    // NaN data is read, then refused by the problem.
    assert!(matches!(parse("2\n0\n2\n2\n2 2\n2 1 1 2\n-5 NaN\n", Some(Lcp)), Err(NumericsError::NonFinite { .. })));
    assert!(matches!(parse("2\n0\n2\n2\n2 2\n2 1 inf 2\n-5 -6\n", None), Err(NumericsError::NonFinite { .. })));
    // An empty LCP.
    assert!(matches!(parse("0\n0\n0\n0\n0 0\n", Some(Lcp)), Err(NumericsError::EmptyProblem { .. })));
    // A negative friction coefficient.
    let fc = "3\n1\n0\n3\n3\n3 3\n1 0 0 0 1 0 0 0 1\n-1 0 0\n-0.5\n";
    assert!(matches!(parse(fc, Some(Fc3d)), Err(NumericsError::InvalidInput { .. })));
    // A contact dimension that is neither 2 nor 3; a 3D file read as 2D.
    assert!(matches!(parse(&fc.replacen('3', "4", 1), Some(Fc3d)), Err(NumericsError::Parse { .. })));
    assert!(matches!(parse(fc, Some(Fc2d)), Err(NumericsError::Parse { .. })));
    // Relay bounds crossed.
    let relay = "1\n0\n1\n1\n1 1\n2\n-1\n1\n-1\n";
    assert!(matches!(parse(relay, Some(Relay)), Err(NumericsError::InvalidInput { what: "relay bounds", .. })));
    // MLCP storage flag that is not 0/1; row blocks that never reach n + m.
    assert!(matches!(parse("2 1 1 1\n0 1 2\n0 1\n", Some(Mlcp)), Err(NumericsError::Parse { .. })));
    assert!(matches!(parse("1 0 1 1\n0 1 1 1 1\n", Some(Mlcp)), Err(NumericsError::Parse { .. })));
    // Global FC whose H does not have d·nc columns.
    let gfc = "3\n1\n0\n3\n3\n3 3\n1 0 0 0 1 0 0 0 1\n0\n3\n2\n3 2\n1 0 0 0 1 0\n1 2 3\n-1 0\n0.5\n";
    assert!(matches!(parse(gfc, Some(GlobalFc3d)), Err(NumericsError::Parse { .. })));
    // Sparse-block column indices not increasing: the matrix's own structural check.
    let sbm = "2\n1\n2\n2\n2\n1\n2\n2\n1 2\n2\n2\n0 2\n1 0\n0\n1 2\n1\n3 4\n-1 -1\n";
    assert!(matches!(parse(sbm, Some(Lcp)), Err(NumericsError::InvalidInput { .. })));
    // Nothing at all.
    assert!(matches!(parse("", None), Err(NumericsError::Parse { .. })));
    assert!(matches!(parse("hello world", None), Err(NumericsError::Parse { .. })));
}

#[test]
fn unreadable_and_unwritable_paths_are_io_errors() {
    let missing = Path::new(env!("CARGO_TARGET_TMPDIR")).join("io/does/not/exist.dat");
    assert!(matches!(read_problem(&missing, None), Err(NumericsError::Io { .. })));
    assert!(matches!(read_lcp(&missing), Err(NumericsError::Io { .. })));
    // A directory is not a readable file either.
    assert!(matches!(read_problem(&tmp_dir("a_directory"), None), Err(NumericsError::Io { .. })));
    let p = LcpProblem::new(NumericsMatrix::Dense(faer::mat![[1.0]]), vec![-1.0]).expect("1×1 lcp");
    assert!(matches!(write_lcp(&missing, &p), Err(NumericsError::Io { .. })));
    assert!(matches!(write_problem(&missing, &Problem::Lcp(p)), Err(NumericsError::Io { .. })));
}

#[test]
fn fclib_hdf5_files_are_read_by_read_problem() {
    let Some(root) = siconos_dir() else { return };
    let r = read_problem(&root.join("gfc3d/Box_Stacks-i0122-82-5.hdf5"), None);
    assert!(matches!(r, Ok(Problem::GlobalFc3d(_))), "{r:?}");
    // Asking for another kind than the file holds is a parse error, not a silent conversion.
    let r = read_problem(&root.join("gfc3d/Box_Stacks-i0122-82-5.hdf5"), Some(ProblemKind::Lcp));
    assert!(matches!(r, Err(NumericsError::Parse { .. })), "{r:?}");
}

// ---------------------------------------------------------------------------------------------
// Siconos 4.4 reads what we write (run when its Python module is installed).

/// Reads each of our files with Siconos and writes it back with Siconos' own writers (frictional
/// contact), or emits the dense `M`, `q` it holds (LCP, MLCP) in Siconos' layout.
const SICONOS_SCRIPT: &str = r#"
import sys, numpy as np
import siconos.numerics as sn
def vec(v): return ' '.join(repr(float(x)) for x in np.asarray(v).ravel()) + '\n'
def dense(M):
    M = np.asarray(M); r, c = M.shape
    return '0\n%d\n%d\n%d %d\n' % (r, c, r, c) + vec(M.ravel(order='F'))
for kind, src, dst in zip(sys.argv[1::3], sys.argv[2::3], sys.argv[3::3]):
    if kind in ('fc2d', 'fc3d'):
        sn.frictionContact_printInFilename(sn.frictionContact_new_from_filename(src), dst)
    elif kind in ('gfc2d', 'gfc3d'):
        sn.globalFrictionContact_printInFileName(sn.globalFrictionContact_new_from_filename(src), dst)
    elif kind == 'lcp':
        p = sn.newLCP(); sn.linearComplementarity_newFromFilename(p, src)
        open(dst, 'w').write('%d\n' % p.size + dense(p.M) + vec(p.q))
    elif kind == 'mlcp':
        p = sn.MLCP(); sn.mixedLinearComplementarity_newFromFilename(p, src)
        lines = open(src).read().split('\n')
        open(dst, 'w').write('1\n0\n%d\n%d\n%s\n%s\n' % (p.n, p.m, lines[4], lines[5]) + dense(p.M) + vec(p.q))
"#;

#[test]
fn siconos_reads_what_we_write_and_what_we_read() {
    let Some(root) = siconos_dir() else { return };
    let python = Path::new("/usr/bin/python3");
    let has_siconos =
        Command::new(python).args(["-c", "import siconos.numerics"]).output().is_ok_and(|o| o.status.success());
    if !has_siconos {
        println!("skipped: Siconos 4.4's Python module (python3-siconos) is not installed");
        return;
    }
    let dir = tmp_dir("siconos");
    // (name, our problem, the original file Siconos also reads).
    let mut problems: Vec<(String, Problem, Option<PathBuf>)> = Vec::new();
    for file in [
        "lcp/lcp_exp_murty.dat",
        "mlcp/m2n1_mlcp.dat",
        "mlcp/Rectangular_mlcp.dat",
        "fc3d/Rover1039.dat",
        "fc3d/FC3D_Example1_SBM.dat",
        "fc3d/Capsules-i101-404.dat",
        "fc2d/fc2d_granularflowonwall_00667_00000.dat",
        "gfc2d/gfc2d_granularflowonwall_00069_00350.dat",
        "gfc3d/GFC3D_Example0.dat",
        "gfc3d/GFC3D_TwoRods1.dat",
    ] {
        let path = root.join(file);
        let p = read_problem(&path, None).expect("collection file");
        problems.push((file.replace('/', "_"), p, Some(path)));
    }
    // The benchmark's use: a random LCP written by write_lcp.
    let mut rng = StdRng::seed_from_u64(11);
    let m = faer::Mat::from_fn(30, 30, |_, _| rng.random_range(-1.0..1.0));
    let q = (0..30).map(|_| rng.random_range(-1.0..1.0)).collect();
    let random = Problem::Lcp(LcpProblem::new(NumericsMatrix::Dense(m), q).expect("lcp"));
    problems.push(("random_lcp_30.dat".into(), random, None));

    // Siconos reads our file, and the original file: both must give our problem back.
    let mut args = vec!["-c".to_string(), SICONOS_SCRIPT.to_string()];
    let mut outputs: Vec<(String, usize, PathBuf)> = Vec::new();
    for (k, (name, p, original)) in problems.iter().enumerate() {
        let ours = dir.join(format!("ours_{name}"));
        match p {
            Problem::Lcp(lcp) => write_lcp(&ours, lcp).expect("write lcp"),
            _ => write_problem(&ours, p).expect("write"),
        }
        for (tag, src) in [("ours", Some(ours)), ("original", original.clone())] {
            let Some(src) = src else { continue };
            let theirs = dir.join(format!("siconos_{tag}_{name}"));
            let _ = std::fs::remove_file(&theirs);
            args.extend([p.kind().as_str().to_string(), src.display().to_string(), theirs.display().to_string()]);
            outputs.push((format!("{name} ({tag})"), k, theirs));
        }
    }
    let out = Command::new(python).args(&args).output().expect("python runs");
    assert!(out.status.success(), "Siconos failed: {}", String::from_utf8_lossy(&out.stderr));

    for (name, k, theirs) in &outputs {
        let p = &problems[*k].1;
        let back = read_problem(theirs, Some(p.kind())).expect("Siconos' text reads");
        if !matches!(p, Problem::Mlcp(_)) {
            assert_eq!(back.matrices().len(), p.matrices().len(), "{name}: matrices");
        }
        // Siconos writes dense and sparse-block entries with %32.24e (exact) but cs_print's %g
        // (6 digits) for a sparse matrix.
        for ((mname, a), (_, b)) in p.matrices().iter().zip(back.matrices()) {
            let (da, db) = (a.to_dense(), b.to_dense());
            assert_eq!((da.nrows(), da.ncols()), (db.nrows(), db.ncols()), "{name}: {mname}");
            let exact = !matches!(a, NumericsMatrix::Sparse(_));
            for j in 0..da.ncols() {
                for i in 0..da.nrows() {
                    let (x, y) = (da[(i, j)], db[(i, j)]);
                    let same = if exact { x.to_bits() == y.to_bits() } else { (x - y).abs() <= 5e-6 * x.abs() };
                    assert!(same, "{name}: {mname}({i}, {j}) = {x:e}, Siconos read {y:e}");
                }
            }
        }
        let vectors = |p: &Problem| match p {
            Problem::Mlcp(m) => vec![m.matrix_form().map(|f| f.q.clone()).unwrap_or_default()],
            _ => problem_print(p).2.into_iter().map(|v| v.into_iter().map(f64::from_bits).collect()).collect(),
        };
        let (va, vb) = (vectors(p), vectors(&back));
        let bits =
            |v: &Vec<Vec<f64>>| v.iter().map(|x| x.iter().map(|y| y.to_bits()).collect::<Vec<_>>()).collect::<Vec<_>>();
        assert_eq!(bits(&va), bits(&vb), "{name}: vectors");
    }
}
