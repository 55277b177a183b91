#!/usr/bin/env python3
"""Times Siconos' global frictional contact solvers GFC3D_NSN_AC and GFC3D_ADMM.

Run by `cargo xtask bench-report --only gfc3d` with the system interpreter (`/usr/bin/python3 -s`,
which has the Debian package python3-siconos):

    siconos_gfc3d.py MANIFEST --out RESULTS.jsonl [--reps 5] [--max-seconds 20]

MANIFEST is a JSON file written by the report: {"tolerance": 1e-8, "problems": [{"name", "path"}],
"solvers": [{"name", "siconos_id", "max_iterations"}]} (`siconos_id` the name of the constant in
siconos.numerics, e.g. "SICONOS_GLOBAL_FRICTION_3D_NSN_AC"). For every (file, solver) pair the
script writes one JSON line to RESULTS.jsonl:

    {"problem", "solver", "siconos_id", "status", "info", "iterations", "residual", "seconds",
     "reps", "contacts"}

Every repetition reads the file again (`globalFrictionContact_new_from_filename`, untimed), makes
new SolverOptions (Siconos' defaults but the tolerance `dparam[SICONOS_DPARAM_TOL]` and the cap
`iparam[SICONOS_IPARAM_MAX_ITER]`), starts from r = u = v = 0, and times only `gfc3d_driver` with
`time.perf_counter`. `seconds` is the median over the repetitions (at least one; more while the
spent time stays below --max-seconds). `residual` is `gfc3d_compute_error` at the returned
(r, u, v) with norm_q = ||q||, norm_b = ||b|| (Siconos' global error). `status` is `converged` when
info == 0, the vectors are finite and residual <= tol; `nonfinite` when they are not finite;
`unreadable` when Siconos cannot read the file (its Debian build has no FCLIB reader); otherwise
`failed`.
"""

import json
import math
import statistics
import sys
import time

import numpy as np
import siconos.numerics as sn

from siconos_common import arguments, finite_or_none, repeat_timed


def solve_once(path, solver, tol):
    """One solve from zero on a freshly read problem; returns
    (info, iterations, residual, seconds, finite, contacts)."""
    problem = sn.globalFrictionContact_new_from_filename(path)
    nc = problem.numberOfContacts
    m = problem.dimension * nc
    n = len(problem.q)
    options = sn.SolverOptions(getattr(sn, solver["siconos_id"]))
    options.dparam[sn.SICONOS_DPARAM_TOL] = tol
    options.iparam[sn.SICONOS_IPARAM_MAX_ITER] = solver["max_iterations"]
    r, u, v = np.zeros(m), np.zeros(m), np.zeros(n)
    start = time.perf_counter()
    info = sn.gfc3d_driver(problem, r, u, v, options)
    seconds = time.perf_counter() - start
    iterations = int(options.iparam[sn.SICONOS_IPARAM_ITER_DONE])
    finite = bool(np.all(np.isfinite(r)) and np.all(np.isfinite(v)))
    norm_q = float(np.linalg.norm(problem.q))
    norm_b = float(np.linalg.norm(problem.b))
    _, residual = sn.gfc3d_compute_error(problem, r, u, v, tol, options, norm_q, norm_b)
    return int(info), iterations, float(residual), seconds, finite, nc


def run_pair(name, path, solver, tol, reps, max_seconds):
    record = {"problem": name, "solver": solver["name"], "siconos_id": solver["siconos_id"]}
    try:
        (info, iterations, residual, _, finite, nc), times = repeat_timed(
            lambda: solve_once(path, solver, tol), reps, max_seconds
        )
    except RuntimeError as e:
        first = str(e).replace("\n", " ").strip()
        record.update(status="unreadable", info=None, iterations=None, residual=None, seconds=None, reps=0,
                      contacts=None, reason=first[:200])
        return record
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
    with open(args.out, "w") as out:
        for problem in sorted(manifest["problems"], key=lambda p: p["name"]):
            for solver in manifest["solvers"]:
                record = run_pair(problem["name"], problem["path"], solver, tol, max(args.reps, 1), args.max_seconds)
                out.write(json.dumps(record) + "\n")
                out.flush()
                print(
                    f"siconos {solver['name']:>13} {problem['name']}: {record['status']}"
                    f" it={record['iterations']} res={record['residual']} t={record['seconds']}",
                    file=sys.stderr,
                )


if __name__ == "__main__":
    main()
