#!/usr/bin/env python3
"""Times Siconos' LCP solvers on the benchmark problems of nonsmooth.

Run by `cargo xtask bench-report` with the system interpreter (`/usr/bin/python3`, which has the
Debian package python3-siconos):

    siconos_lcp.py MANIFEST --out RESULTS.jsonl [--reps 5] [--max-seconds 20]

MANIFEST is the `manifest.json` written by `write-bench-problems`: every problem (path, size,
tolerance, storage) and the solvers to run on it, with the Siconos solver id and iteration cap of
each. For every (problem, solver) pair the script writes one JSON line to RESULTS.jsonl:

    {"problem", "n", "solver", "siconos_id", "status", "info", "iterations", "residual",
     "seconds", "reps"}

Each repetition reads nothing and allocates nothing inside the timed region: new SolverOptions
(tolerance `dparam[SICONOS_DPARAM_TOL]`, cap `iparam[SICONOS_IPARAM_MAX_ITER]` unless the
manifest gives none, as for ENUM, which has no cap), z = w = 0, then only
`linearComplementarity_driver` is timed with `time.perf_counter`. `seconds` is the median over
the repetitions. `residual` is `lcp_compute_error` at the returned z (Siconos' error
`||z - max(0, z - w)|| / ||q||`). `status` is `converged` when info == 0, z is finite and
residual <= tol; `nonfinite` when info == 0 but z has NaN or infinite entries; otherwise
`failed`. Sparse-block files are `n/a`: Siconos' LCP driver handles them only with NSGS_SBM and
exits the process for any other solver id.
"""

import json
import math
import statistics
import sys
import time

import numpy as np
import siconos.numerics as sn

from siconos_common import arguments, finite_or_none, repeat_timed


def read_lcp(path):
    problem = sn.newLCP()
    sn.linearComplementarity_newFromFilename(problem, path)
    return problem


def solve_once(problem, n, solver, tol):
    """One solve from z = w = 0; returns (info, iterations, residual, seconds, z)."""
    options = sn.SolverOptions(solver["siconos_id"])
    options.dparam[sn.SICONOS_DPARAM_TOL] = tol
    if solver.get("max_iterations") is not None:
        options.iparam[sn.SICONOS_IPARAM_MAX_ITER] = solver["max_iterations"]
    z = np.zeros(n)
    w = np.zeros(n)
    start = time.perf_counter()
    info = sn.linearComplementarity_driver(problem, z, w, options)
    seconds = time.perf_counter() - start
    iterations = int(options.iparam[sn.SICONOS_IPARAM_ITER_DONE])
    w_check = np.zeros(n)
    residual = float(sn.lcp_compute_error(problem, z, w_check, tol))
    return int(info), iterations, residual, seconds, z


def run_pair(problem_entry, problem, solver, reps, max_seconds):
    n = problem_entry["n"]
    tol = problem_entry["tolerance"]
    record = {
        "problem": problem_entry["name"],
        "n": n,
        "solver": solver["name"],
        "siconos_id": solver["siconos_id"],
    }
    if problem_entry["storage"] != "dense" or not isinstance(problem.M, np.ndarray):
        record.update(status="n/a", info=None, iterations=None, residual=None, seconds=None, reps=0)
        return record
    (info, iterations, residual, _, z), times = repeat_timed(
        lambda: solve_once(problem, n, solver, tol), reps, max_seconds
    )
    finite = bool(np.all(np.isfinite(z)))
    if info == 0 and finite and math.isfinite(residual) and residual <= tol:
        status = "converged"
    elif info == 0 and not finite:
        status = "nonfinite"
    else:
        status = "failed"
    record.update(
        status=status,
        info=info,
        iterations=iterations,
        residual=finite_or_none(residual),
        seconds=statistics.median(times),
        reps=len(times),
    )
    return record


def main():
    args = arguments(__doc__.splitlines()[0])
    with open(args.manifest) as f:
        manifest = json.load(f)
    solvers = {s["name"]: s for s in manifest["solvers"]}
    with open(args.out, "w") as out:
        for entry in manifest["problems"]:
            problem = read_lcp(entry["path"])
            if problem.size != entry["n"]:
                print(f"siconos_lcp: {entry['path']}: size {problem.size}, manifest says {entry['n']}", file=sys.stderr)
                continue
            for name in entry["solvers"]:
                record = run_pair(entry, problem, solvers[name], max(args.reps, 1), args.max_seconds)
                out.write(json.dumps(record) + "\n")
                out.flush()
                print(
                    f"siconos {name:>10} {entry['name']}/{entry['n']}: {record['status']}"
                    f" it={record['iterations']} res={record['residual']} t={record['seconds']}",
                    file=sys.stderr,
                )


if __name__ == "__main__":
    main()
