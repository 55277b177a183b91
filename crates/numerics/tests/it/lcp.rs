//! Integration tests: lcp.
