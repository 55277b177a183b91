//! Criterion benches of nonsmooth live in `benches/`.
