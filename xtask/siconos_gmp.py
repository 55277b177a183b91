"""Siconos side of `cargo xtask bench-report --only gmp`: runs Siconos 4.4's generic mechanical
problem solver (`gmp_driver`, SICONOS_GENERIC_MECHANICAL_NSGS with its default options) on each
file given, and prints one JSON line per file: status, iterations, error, median time.

The Debian build's Python module does not wrap the generic mechanical problem, so the C library
is called through ctypes: `genericMechanical_new_from_filename`, `solver_options_create`,
`gmp_driver`, `gmp_compute_error`. Run with `/usr/bin/python3 -s`.
"""

import argparse
import ctypes
import json
import math
import statistics
import time

SICONOS_GENERIC_MECHANICAL_NSGS = 2000
IPARAM_MAX_ITER, IPARAM_ITER_DONE = 0, 1
DPARAM_TOL, DPARAM_RESIDU = 0, 1


class SolverOptions(ctypes.Structure):
    """The head of Siconos 4.4's `struct SolverOptions` (SolverOptions.h), up to what we read."""

    _fields_ = [
        ("solverId", ctypes.c_int),
        ("isSet", ctypes.c_bool),
        ("iSize", ctypes.c_int),
        ("iparam", ctypes.POINTER(ctypes.c_int)),
        ("dSize", ctypes.c_int),
        ("dparam", ctypes.POINTER(ctypes.c_double)),
    ]


class LocalProblem(ctypes.Structure):
    """Siconos 4.4's `listNumericsProblem` (GenericMechanicalProblem.h): one block's law."""


LocalProblem._fields_ = [
    ("type", ctypes.c_int),
    ("problem", ctypes.c_void_p),
    ("q", ctypes.POINTER(ctypes.c_double)),
    ("size", ctypes.c_int),
    ("error", ctypes.c_int),
    ("nextProblem", ctypes.POINTER(LocalProblem)),
    ("prevProblem", ctypes.POINTER(LocalProblem)),
]


class GenericMechanicalProblem(ctypes.Structure):
    """`GenericMechanicalProblem` (GenericMechanicalProblem.h): `size` is the number of
    unknowns, the list holds each block's law."""

    _fields_ = [
        ("size", ctypes.c_int),
        ("maxLocalSize", ctypes.c_int),
        ("M", ctypes.c_void_p),
        ("q", ctypes.POINTER(ctypes.c_double)),
        ("firstListElem", ctypes.POINTER(LocalProblem)),
        ("lastListElem", ctypes.POINTER(LocalProblem)),
    ]


def blocks_of(problem):
    """The (type, size) of each block, as Siconos read them."""
    out, node = [], problem.contents.firstListElem
    while node:
        out.append([node.contents.type, node.contents.size])
        node = node.contents.nextProblem
    return out


def library():
    lib = ctypes.CDLL("libsiconos_numerics.so.7")
    lib.genericMechanical_new_from_filename.restype = ctypes.POINTER(GenericMechanicalProblem)
    lib.genericMechanical_new_from_filename.argtypes = [ctypes.c_char_p]
    lib.genericMechanicalProblem_free.argtypes = [ctypes.POINTER(GenericMechanicalProblem), ctypes.c_uint]
    lib.solver_options_create.restype = ctypes.POINTER(SolverOptions)
    lib.solver_options_create.argtypes = [ctypes.c_int]
    lib.solver_options_delete.argtypes = [ctypes.POINTER(SolverOptions)]
    vec = ctypes.POINTER(ctypes.c_double)
    lib.gmp_driver.argtypes = [ctypes.POINTER(GenericMechanicalProblem), vec, vec, ctypes.POINTER(SolverOptions)]
    lib.gmp_driver.restype = ctypes.c_int
    lib.gmp_compute_error.argtypes = [
        ctypes.POINTER(GenericMechanicalProblem),
        vec,
        vec,
        ctypes.c_double,
        ctypes.POINTER(SolverOptions),
        vec,
    ]
    lib.gmp_compute_error.restype = ctypes.c_int
    return lib


def solve_once(lib, path):
    """Reads the file, solves from zero with the default options; returns the result and the time
    of the `gmp_driver` call."""
    problem = lib.genericMechanical_new_from_filename(path.encode())
    n = problem.contents.size
    blocks = blocks_of(problem)
    reaction = (ctypes.c_double * n)()
    velocity = (ctypes.c_double * n)()
    options = lib.solver_options_create(SICONOS_GENERIC_MECHANICAL_NSGS)
    tol = options.contents.dparam[DPARAM_TOL]
    start = time.perf_counter()
    info = lib.gmp_driver(problem, reaction, velocity, options)
    seconds = time.perf_counter() - start
    iterations = options.contents.iparam[IPARAM_ITER_DONE]
    residual = options.contents.dparam[DPARAM_RESIDU]
    err = ctypes.c_double(0.0)
    lib.gmp_compute_error(problem, reaction, velocity, tol, options, ctypes.byref(err))
    result = {
        "size": n,
        "blocks": blocks,
        "status": "converged" if info == 0 else "failed",
        "info": info,
        "iterations": iterations,
        "residual": residual,
        "error": err.value,
        "tolerance": tol,
        "max_iterations": options.contents.iparam[IPARAM_MAX_ITER],
        "reaction": [x if math.isfinite(x) else None for x in reaction],
    }
    lib.solver_options_delete(options)
    # GMP_FREE_MATRIX (1) frees the blocks' laws, M and q (the struct itself is left: a few
    # bytes per call).
    lib.genericMechanicalProblem_free(problem, 1)
    return result, seconds


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("files", nargs="+")
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    lib = library()
    with open(args.out, "w") as out:
        for path in args.files:
            times, result = [], None
            for _ in range(args.reps):
                result, seconds = solve_once(lib, path)
                times.append(seconds)
            result["file"] = path
            result["seconds"] = statistics.median(times)
            out.write(json.dumps(result, allow_nan=False) + "\n")


if __name__ == "__main__":
    main()
