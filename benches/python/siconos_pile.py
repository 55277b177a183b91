#!/usr/bin/python3
"""A window of the sphere pile stepped by Siconos 4.4's own granular pipeline (Debian
`python3-siconos`, run with `/usr/bin/python3`), for the whole-life part of
`docs/benchmarks/mechanics.md`.

The scene is built as `siconos.io.mechanics_run` builds a Bullet scene, without its HDF5 layer:
  * one `RigidBodyDS` per sphere (mass m, inertia diag(2/5 m r^2), `setUseContactorInertia(False)`,
    weight [0, 0, -m g] through `setFExtPtr`), sharing one `SiconosSphere(r)` contactor (inside
    margin 0.02 r, outside margin 0, as mechanics_run sets them for primitives);
  * the open box as five static `SiconosBox` contactor sets (the ground below z = 0, the four walls
    outside [0, L]^2), thickness `--wall`, inside margin 0.02 x their smallest side;
  * `SiconosBulletCollisionManager` with `NewtonImpactFrictionNSL(e = 0, 0, mu = 0.3, 3)` between
    group 0 and itself, `contactBreakingThreshold` = `--breaking` (default r/10, our detection
    margin);
  * `MoreauJeanOSI(theta = 0.5)`, `FrictionContact(3)` with its default solver (NSGS, Siconos'
    default local solver), tolerance `--tol` (1e-4), at most `--maxit` sweeps, sparse-block storage,
    `setKeepLambdaAndYState(True)` (warm start from the previous step's reactions);
  * `TimeStepping` with the interaction manager and mechanics_run's Newton options
    (`SICONOS_TS_NONLINEAR`, at most 20 iterations, tolerance 1e-10).

The bodies start from a state file of ours (`--state`, written by `pile-life --export`): centres,
orientations, velocities and angular velocities of every sphere at one step; the window takes
`--steps` steps from there. Each step (`computeOneStep`, `clearNSDSChangeLog`, `nextStep`, the loop
of mechanics_run without its output) prints a `step` record (`pilelife.step_record`): wall time,
kinetic energy, NSGS iterations (`iparam[ITER_DONE]`), whether the FC3D solve ended at or below the
tolerance and its error (`dparam[RESIDU]`), the max penetration (`PileSpec::max_penetration`), the
mean height and the active contacts; then a `run` record.

Usage: /usr/bin/python3 siconos_pile.py --state FILE --steps K
Debian's build keeps its graph assertions (no NDEBUG), which walk the whole contact graph at every
insertion or removal; `LD_PRELOAD` of the shim in /work/shared/tools/perf removes that cost with
identical results (the report compiles it into target/ and says when it is used).
"""

import argparse
import json
import os
import sys
import time

os.environ.setdefault('OPENBLAS_NUM_THREADS', '1')
os.environ.setdefault('OMP_NUM_THREADS', '1')

import siconos.kernel as sk  # noqa: E402
import siconos.numerics as sn  # noqa: E402
from siconos.mechanics.collision import (RigidBodyDS, SiconosBox, SiconosContactor,  # noqa: E402
                                         SiconosContactorSet, SiconosSphere)
from siconos.mechanics.collision.bullet import SiconosBulletCollisionManager, SiconosBulletOptions  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pilelife as pl  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--state', required=True, help='state file of ours (pile-life --export)')
    ap.add_argument('--steps', type=int, required=True, help='steps of the window')
    ap.add_argument('--tol', type=float, default=1e-4)
    ap.add_argument('--maxit', type=int, default=10000)
    ap.add_argument('--breaking', type=float, default=0.1 * pl.RADIUS)
    ap.add_argument('--wall', type=float, default=0.2)
    args = ap.parse_args()

    header, rows = pl.read_state(args.state)
    n = len(rows)
    r, h, g = pl.RADIUS, pl.H, pl.GRAVITY
    side, t0, start = header['box_side'], header['time'], int(header['step'])
    m, inertia = pl.mass(), pl.inertia()

    setup = time.perf_counter()
    options = SiconosBulletOptions()
    options.contactBreakingThreshold = args.breaking
    manager = SiconosBulletCollisionManager(options)
    manager.useEqualityConstraints(False)
    manager.insertNonSmoothLaw(sk.NewtonImpactFrictionNSL(pl.RESTITUTION, 0.0, pl.FRICTION, 3), 0, 0)
    nsds = sk.NonSmoothDynamicalSystem(t0, t0 + (args.steps + 0.5) * h)
    sphere = SiconosSphere(r)
    sphere.setInsideMargin(0.02 * r)
    sphere.setOutsideMargin(0.0)
    bodies = []
    diagonal = [[inertia, 0.0, 0.0], [0.0, inertia, 0.0], [0.0, 0.0, inertia]]
    for row in rows:
        body = RigidBodyDS(row[0:7], row[7:13], m, diagonal)
        body.setUseContactorInertia(False)
        contactors = SiconosContactorSet()
        contactors.append(SiconosContactor(sphere, [0, 0, 0, 1, 0, 0, 0], 0))
        body.setContactors(contactors)
        body.setFExtPtr([0.0, 0.0, -m * g])
        nsds.insertDynamicalSystem(body)
        bodies.append(body)
    # The box: the ground below z = 0 and the walls outside [0, L]^2, up to above the highest sphere.
    t = args.wall
    top = max(row[2] for row in rows) + 4 * r
    full = side + 2 * t
    keep = []
    for dims, centre in [
        ((full, full, t), (side / 2, side / 2, -t / 2)),
        ((t, full, top + t), (-t / 2, side / 2, (top - t) / 2)),
        ((t, full, top + t), (side + t / 2, side / 2, (top - t) / 2)),
        ((full, t, top + t), (side / 2, -t / 2, (top - t) / 2)),
        ((full, t, top + t), (side / 2, side + t / 2, (top - t) / 2)),
    ]:
        shape = SiconosBox(*dims)
        shape.setInsideMargin(0.02 * min(dims))
        shape.setOutsideMargin(0.0)
        contactors = SiconosContactorSet()
        contactors.append(SiconosContactor(shape, [0, 0, 0, 1, 0, 0, 0], 0))
        manager.insertStaticContactorSet(contactors, [centre[0], centre[1], centre[2], 1.0, 0.0, 0.0, 0.0])
        keep.append((shape, contactors))

    osi = sk.MoreauJeanOSI(0.5)
    osi.setConstraintActivationThreshold(0.0)
    problem = sk.FrictionContact(3)
    solver = problem.numericsSolverOptions()
    solver.dparam[sn.SICONOS_DPARAM_TOL] = args.tol
    solver.iparam[sn.SICONOS_IPARAM_MAX_ITER] = args.maxit
    problem.setMaxSize(0)
    problem.setMStorageType(sn.NM_SPARSE_BLOCK)
    problem.setNumericsVerboseMode(False)
    problem.setKeepLambdaAndYState(True)
    sim = sk.TimeStepping(nsds, sk.TimeDiscretisation(t0, h))
    sim.insertIntegrator(osi)
    sim.insertNonSmoothProblem(problem)
    sim.insertInteractionManager(manager)
    sim.setNewtonOptions(sk.SICONOS_TS_NONLINEAR)
    sim.setNewtonMaxIteration(20)
    sim.setNewtonTolerance(1e-10)
    setup_seconds = time.perf_counter() - setup

    k = 0
    while k < args.steps and sim.hasNextEvent():
        began = time.perf_counter()
        sim.computeOneStep()
        sim.clearNSDSChangeLog()
        iterations = int(solver.iparam[sn.SICONOS_IPARAM_ITER_DONE])
        residual = float(solver.dparam[sn.SICONOS_DPARAM_RESIDU])
        active = problem.getSizeOutput() // 3
        sim.nextStep()
        seconds = time.perf_counter() - began
        k += 1
        pts = [[float(x) for x in b.q()[0:3]] for b in bodies]
        v = [[float(x) for x in b.velocity()[0:3]] for b in bodies]
        w = [[float(x) for x in b.velocity()[3:6]] for b in bodies]
        solved = active > 0
        pl.emit(pl.step_record(start + k, pl.kinetic_energy(v, w), seconds, iterations if solved else None,
                               (residual <= args.tol) if solved else None, residual if solved else None,
                               pl.max_penetration(pts, side), pl.mean_height(pts), active))
    pl.emit(json.dumps({
        'record': 'run', 'engine': 'siconos', 'version': '4.4 (Debian python3-siconos)', 'precision': 'f64',
        'n': n, 'h': h, 'start_step': start, 'steps': k, 'solver': sn.solver_options_id_to_name(solver.solverId),
        'tolerance': args.tol, 'maxit': args.maxit, 'threads': 1, 'setup_seconds': setup_seconds,
        'ld_preload': os.environ.get('LD_PRELOAD', ''),
    }))


if __name__ == '__main__':
    main()
