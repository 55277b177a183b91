#!/usr/bin/env python3
"""Times Siconos' FC3D solvers on the FC3D benchmark problems of nonsmooth.

Run by `cargo xtask bench-report` with the system interpreter (`/usr/bin/python3`, which has the
Debian package python3-siconos):

    siconos_fc3d.py MANIFEST --out RESULTS.jsonl [--reps 5] [--max-seconds 20]

MANIFEST is the JSON file `benches/benches/fc3d.rs` writes (env NONSMOOTH_BENCH_FC3D_MANIFEST):
the problems (name, path, contacts), the files nonsmooth could not read (tried here too), the
tolerance and the solvers with their Siconos id and iteration cap. For every (file, solver) pair
the script writes one JSON line to RESULTS.jsonl:

    {"problem", "solver", "siconos_id", "status", "info", "iterations", "residual", "seconds",
     "reps", "contacts"}

Every repetition reads the file again (`frictionContact_new_from_filename`, untimed): PROX adds
alpha to the diagonal of W and subtracts it afterwards, which is not exact in floating point, so a
reused problem object drifts (siconos44.md, "Surprises" 2). Then new SolverOptions (tolerance
`dparam[SICONOS_DPARAM_TOL]`, cap `iparam[SICONOS_IPARAM_MAX_ITER]`; for NSGS also
`iparam[SICONOS_FRICTION_3D_IPARAM_ERROR_EVALUATION] = FULL`, the full error every sweep, so the
sweep counts compare with ours), r = u = 0, and only `fc3d_driver` is timed with
`time.perf_counter`. `seconds` is the median over the repetitions (at least one; more while the
spent time stays below --max-seconds). `residual` is `fc3d_compute_error` at the returned r with
norm ||q|| (Siconos' FC3D error). `status` is `converged` when info == 0, r is finite and
residual <= tol; `nonfinite` when r has NaN or infinite entries; `unreadable` when Siconos cannot
read the file (e.g. HDF5 without FCLIB support); otherwise `failed`.
"""

import json
import math
import statistics
import sys
import time

import numpy as np
import siconos.numerics as sn

from siconos_common import arguments, finite_or_none, repeat_timed

# iparam index and value of NSGS' error evaluation mode (fc3d_cst.h, Siconos 4.4.0).
ERROR_EVALUATION = getattr(sn, "SICONOS_FRICTION_3D_IPARAM_ERROR_EVALUATION", 7)
ERROR_EVALUATION_FULL = getattr(sn, "SICONOS_FRICTION_3D_NSGS_ERROR_EVALUATION_FULL", 0)
NSGS_ID = 500


def read_fc3d(path):
    return sn.frictionContact_new_from_filename(path)


def solve_once(path, solver, tol):
    """One solve from r = u = 0 on a freshly read problem; returns
    (info, iterations, residual, seconds, r, contacts)."""
    problem = read_fc3d(path)
    nc = problem.numberOfContacts
    n = problem.dimension * nc
    options = sn.SolverOptions(solver["siconos_id"])
    options.dparam[sn.SICONOS_DPARAM_TOL] = tol
    options.iparam[sn.SICONOS_IPARAM_MAX_ITER] = solver["max_iterations"]
    if solver["siconos_id"] == NSGS_ID:
        options.iparam[ERROR_EVALUATION] = ERROR_EVALUATION_FULL
    r = np.zeros(n)
    u = np.zeros(n)
    start = time.perf_counter()
    info = sn.fc3d_driver(problem, r, u, options)
    seconds = time.perf_counter() - start
    iterations = int(options.iparam[sn.SICONOS_IPARAM_ITER_DONE])
    w = np.zeros(n)
    norm_q = float(np.linalg.norm(problem.q))
    _, residual = sn.fc3d_compute_error(problem, r, w, tol, options, norm_q)
    return int(info), iterations, float(residual), seconds, r, nc


def run_pair(name, path, solver, tol, reps, max_seconds):
    record = {"problem": name, "solver": solver["name"], "siconos_id": solver["siconos_id"]}
    try:
        (info, iterations, residual, _, r, nc), times = repeat_timed(
            lambda: solve_once(path, solver, tol), reps, max_seconds
        )
    except RuntimeError as e:
        first = str(e).replace("\n", " ").strip()
        record.update(status="unreadable", info=None, iterations=None, residual=None, seconds=None, reps=0,
                      contacts=None, reason=first[:200])
        return record
    finite = bool(np.all(np.isfinite(r)))
    if info == 0 and finite and math.isfinite(residual) and residual <= tol:
        status = "converged"
    elif not finite:
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
        contacts=nc,
    )
    return record


def main():
    args = arguments(__doc__.splitlines()[0])
    with open(args.manifest) as f:
        manifest = json.load(f)
    tol = manifest["tolerance"]
    files = [(p["name"], p["path"]) for p in manifest["problems"]]
    files += [(p["name"], p["path"]) for p in manifest.get("unreadable", [])]
    with open(args.out, "w") as out:
        for name, path in sorted(files):
            for solver in manifest["solvers"]:
                record = run_pair(name, path, solver, tol, max(args.reps, 1), args.max_seconds)
                out.write(json.dumps(record) + "\n")
                out.flush()
                print(
                    f"siconos {solver['name']:>7} {name}: {record['status']}"
                    f" it={record['iterations']} res={record['residual']} t={record['seconds']}",
                    file=sys.stderr,
                )


if __name__ == "__main__":
    main()
