//! Unit tests of the reader and writer on small hand-written texts.

use super::*;
use crate::matrix::Storage;

/// Asserts two matrices have the same storage, shape and entries, bit for bit.
fn assert_same_matrix(a: &NumericsMatrix, b: &NumericsMatrix) {
    assert_eq!(a.storage(), b.storage());
    assert_eq!((a.nrows(), a.ncols()), (b.nrows(), b.ncols()));
    for i in 0..a.nrows() {
        for j in 0..a.ncols() {
            assert_eq!(a.get(i, j).to_bits(), b.get(i, j).to_bits(), "entry ({i}, {j})");
        }
    }
}

#[test]
fn dense_is_column_major_and_round_trips() {
    let m = parse_matrix("0\n2\n3\n2\t3\n1 2 3 4 5 6\n").expect("dense matrix");
    assert_eq!(m.storage(), Storage::Dense);
    // Column-major: the first column is (1, 2).
    assert!((m.get(1, 0) - 2.0).abs() < 1e-15 && (m.get(0, 1) - 3.0).abs() < 1e-15);
    let text = format_matrix(&m);
    assert_same_matrix(&m, &parse_matrix(&text).expect("formatted dense matrix"));
}

#[test]
fn sparse_block_reads_siconos_layout() {
    // The FC3D_Example1_SBM matrix: three identity 3×3 blocks on the diagonal.
    let mut text = String::from("1\n9\n9\n3\n3\n3\n3 6 9\n3 6 9\n4\n3\n0 1 2 3\n0 1 2\n");
    for k in 0..3 {
        text.push_str(&format!("{k}\n1 0 0 0 1 0 0 0 1\n"));
    }
    let m = parse_matrix(&text).expect("sbm");
    let NumericsMatrix::SparseBlock(b) = &m else { panic!("expected sparse-block storage") };
    assert_eq!((b.n_block_rows(), b.nnz_blocks()), (3, 3));
    for i in 0..9 {
        for j in 0..9 {
            let expected = if i == j { 1.0 } else { 0.0 };
            assert!((m.get(i, j) - expected).abs() < 1e-15);
        }
    }
    assert_same_matrix(&m, &parse_matrix(&format_matrix(&m)).expect("formatted sbm"));
}

#[test]
fn sparse_block_with_no_block_is_zero() {
    let m = parse_matrix("1 4 5 0").expect("empty sbm");
    assert_eq!((m.nrows(), m.ncols(), m.nnz()), (4, 5, 0));
    assert_same_matrix(&m, &parse_matrix(&format_matrix(&m)).expect("formatted"));
}

#[test]
fn sparse_csc_and_triplet_read_cs_print_text() {
    let csc = "2\n3\n2\n2\nCSparse Version 3.1.9, banner\n3-by-2, nzmax: 3 nnz: 3, 1-norm: 4\n    col 0 : locations 0 to 1\n      2 : 1.5\n      0 : -2\n    col 1 : locations 2 to 2\n      1 : 4\n";
    let m = parse_matrix(csc).expect("csc");
    assert_eq!((m.storage(), m.nnz()), (Storage::Sparse, 3));
    // Row indices are sorted on reading.
    assert!(
        (m.get(2, 0) - 1.5).abs() < 1e-15 && (m.get(0, 0) + 2.0).abs() < 1e-15 && (m.get(1, 1) - 4.0).abs() < 1e-15
    );
    assert_same_matrix(&m, &parse_matrix(&format_matrix(&m)).expect("formatted csc"));

    // A triplet with a duplicate entry: duplicates add up, as in CSparse.
    let triplet =
        "2\n2\n2\n1\nCSparse Version\ntriplet: 2-by-2, nzmax: 3 nnz: 3\n    0 0 : 1\n    1 1 : 2\n    0 0 : 0.5\n";
    let t = parse_matrix(triplet).expect("triplet");
    assert!((t.get(0, 0) - 1.5).abs() < 1e-15 && (t.get(1, 1) - 2.0).abs() < 1e-15);
    assert_eq!(t.nnz(), 2);
}

#[test]
fn malformed_matrices_give_parse_errors() {
    let cases = [
        "",                                                      // empty
        "3 2 2 2 2 1 2 3 4",                                     // unknown storage
        "0 2 2 2 3 1 2 3 4 5 6",                                 // repeated sizes disagree
        "0 2 2 2 2 1 2 3",                                       // truncated
        "0 2 2 2 2 1 2 x 4",                                     // not a number
        "0 2.5 2 2 2 1 2 3 4",                                   // non-integer size
        "0 99999999999 1 99999999999 1 1",                       // absurd size
        "0 100000 100000 100000 100000 1",                       // far more entries than the input holds
        "1 2 2 1 1 1 2 2 2 1 0 1 0 7 1 2 3 4",                   // wrong block number
        "2 2 2 2\nbanner\n2-by-3, nzmax: 0 nnz: 0, 1-norm: 0\n", // sizes disagree
        "2 2 2 3\nbanner\n2-by-2, nzmax: 0 nnz: 0, 1-norm: 0\n", // unsupported origin
        "2 1 1 2\nbanner\n1-by-1, nzmax: 1 nnz: 1, 1-norm: 1\n col 0 : locations 0 to 9223372036854775807\n",
        "2 1 1 2\nbanner\n1-by-1, nzmax: 1 nnz: 1, 1-norm: 1\n col 0 : locations 1 to 1\n 0 : 1\n", // gap
        "2 1 1 2\n1-by-1, nzmax: 1 nnz: 1, 1-norm: 1\n col 0 : locations 0 to 0\n 0 : 1\n",         // no banner line
    ];
    for text in cases {
        let r = parse_matrix(text);
        assert!(matches!(r, Err(NumericsError::Parse { .. })), "{text:?} gave {r:?}");
    }
}

#[test]
fn detection_tells_the_layouts_apart() {
    let lcp = "2\n0\n2\n2\n2 2\n2 1 1 2\n-5 -6\n";
    assert_eq!(parse_problem(lcp, None).expect("lcp").kind(), ProblemKind::Lcp);
    let relay = "2\n0\n2\n2\n2 2\n2 1 1 2\n-5 -6\n-1 -1\n1 1\n";
    assert_eq!(parse_problem(relay, None).expect("relay").kind(), ProblemKind::Relay);
    // The relay text also reads as an LCP when the kind is given.
    assert_eq!(parse_problem(relay, Some(ProblemKind::Lcp)).expect("lcp").size(), 2);
    let fc3d = "3\n1\n0\n3\n3\n3 3\n15 -1 -2 -1 14 1 -2 1 16\n-1 2 3\n0.1\n";
    let p = parse_problem(fc3d, None).expect("fc3d");
    assert_eq!((p.kind(), p.number_of_contacts()), (ProblemKind::Fc3d, Some(1)));
    assert!(matches!(parse_problem(fc3d, Some(ProblemKind::Fc2d)), Err(NumericsError::Parse { .. })));
    let mlcp = "1 1 1 1\n0 1 2\n0 1\n0 2 2 2 2\n1 -1 1 1\n0 -1\n1\n1\n-1\n1\n0\n-1\n";
    let p = parse_problem(mlcp, None).expect("mlcp");
    assert_eq!((p.kind(), p.size(), p.matrices().len()), (ProblemKind::Mlcp, 2, 5));
}

#[test]
fn every_kind_round_trips_through_the_text() {
    let texts = [
        "2\n0\n2\n2\n2 2\n0.1 1e-300 -0.0 2\n-5 -6\n",
        "2\n0\n2\n2\n2 2\n2 1 1 2\n-5 -6\n-1 -1\n1 1\n",
        "3\n1\n0\n3\n3\n3 3\n15 -1 -2 -1 14 1 -2 1 16\n-1 2 3\n0.1\n",
        "2\n1\n0\n2\n2\n2 2\n1 0 0 1\n-1 2\n0.3\n",
        "3\n1\n0\n3\n3\n3 3\n1 0 0 0 1 0 0 0 1\n0\n3\n3\n3 3\n1 0 0 0 1 0 0 0 1\n1 2 3\n-1 0 0\n0.5\n",
        "1 1 1 1\n0 1 2\n0 1\n0 2 2 2 2\n1 -1 1 1\n0 -1\n1\n1\n-1\n1\n0\n-1\n",
    ];
    for text in texts {
        let p = parse_problem(text, None).expect("problem");
        let once = format_problem(&p);
        let again = parse_problem(&once, None).expect("formatted problem");
        assert_eq!(again.kind(), p.kind());
        assert_eq!(format_problem(&again), once, "{text}");
    }
}

#[test]
fn hints_come_from_the_folder_then_the_name() {
    use std::path::Path;
    assert_eq!(hint_from_path(Path::new("data/fc3d/GFC3D_TwoRods1-condensed.dat")), Some(ProblemKind::Fc3d));
    assert_eq!(hint_from_path(Path::new("x/RLCD_mlcp.dat")), Some(ProblemKind::Mlcp));
    assert_eq!(hint_from_path(Path::new("x/GFC3D_Example1.dat")), Some(ProblemKind::GlobalFc3d));
    assert_eq!(hint_from_path(Path::new("x/lcp_trivial.dat")), Some(ProblemKind::Lcp));
    assert_eq!(hint_from_path(Path::new("x/Rover1039.dat")), None);
}
