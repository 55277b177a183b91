//! Examples of nonsmooth live in the subfolders of this package (`numerics/`, ...).
