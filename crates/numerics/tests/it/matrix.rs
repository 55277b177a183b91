//! Integration tests: matrix.
