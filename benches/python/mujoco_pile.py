#!/usr/bin/env python3
"""The sphere pile stepped by MuJoCo (pip package `mujoco`) over its whole life, for the whole-life
part of `docs/benchmarks/mechanics.md`.

Scene (MJCF written here): one body per sphere with a free joint and a sphere geom of radius r and
density 1000 (MuJoCo's mass 4/3 pi r^3 rho and inertia 2/5 m r^2, checked against ours), friction
"0.3 0 0" on every geom (condim 3, sliding friction only; two geoms combine by max, so every contact
gets 0.3), no restitution (MuJoCo's contacts are soft, solref/solimp at their defaults), the box as
five plane geoms on the world body (ground z = 0 and the walls x = 0, x = L, y = 0, y = L, normals
inward), gravity (0, 0, -9.81), timestep 1e-3, `opt.cone = mjCONE_ELLIPTIC`, and every other
option at MuJoCo's default: Newton solver (`opt.iterations` 100, `opt.tolerance` 1e-8), Euler
integrator, single-threaded `mj_step`.

The bodies start from a state file of ours (`--state`, written by `pile-life --export`; its step 0
is the lattice at rest). Per step it prints a `step` record (`pilelife.step_record`): wall time of
`mj_step`, the kinetic energy (translational + rotational), the solver iterations (`solver_niter`,
the largest over the islands), whether the solver stopped before `opt.iterations` (MuJoCo stops
early when the cost improvement or the gradient falls below `opt.tolerance`), the largest contact
penetration (`-min(contact.dist)`, the same overlap as `PileSpec::max_penetration` since MuJoCo's
margin is 0: every overlapping pair or sphere-plane pair is a contact), the mean height and the
contact count; then a `run` record.

Usage: mujoco_pile.py --state FILE --steps S [--cone elliptic|pyramidal] [--max-seconds T]
(`--max-seconds`: stop after the first step that ends more than T seconds after the first began; the
`run` record's `steps` says how many were taken.)
"""

import argparse
import os
import sys
import time

os.environ.setdefault('OPENBLAS_NUM_THREADS', '1')
os.environ.setdefault('OMP_NUM_THREADS', '1')

import mujoco  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pilelife as pl  # noqa: E402


def mjcf(pts, side):
    """The MJCF of the pile whose centres are `pts` in a box of side `side`."""
    r, f = pl.RADIUS, pl.FRICTION
    big = 10.0 * side
    planes = [
        ('ground', f'{side / 2!r} {side / 2!r} 0', '0 0 1'),
        ('wx0', f'0 {side / 2!r} 0', '1 0 0'),
        ('wx1', f'{side!r} {side / 2!r} 0', '-1 0 0'),
        ('wy0', f'{side / 2!r} 0 0', '0 1 0'),
        ('wy1', f'{side / 2!r} {side!r} 0', '0 -1 0'),
    ]
    lines = [
        '<mujoco model="pile">',
        f'  <option timestep="{pl.H!r}" gravity="0 0 {-pl.GRAVITY!r}"/>',
        # The arena: about 2 kB of constraint data per sphere and a floor of 256 MB.
        f'  <size memory="{max(256, len(pts) // 2)}M"/>',
        '  <worldbody>',
    ]
    for name, pos, z in planes:
        lines.append(f'    <geom name="{name}" type="plane" pos="{pos}" zaxis="{z}" size="{big} {big} 1" '
                     f'friction="{f} 0 0"/>')
    for i, p in enumerate(pts):
        lines.append(f'    <body name="s{i}" pos="{p[0]!r} {p[1]!r} {p[2]!r}"><freejoint/>'
                     f'<geom type="sphere" size="{r!r}" density="{pl.DENSITY!r}" friction="{f} 0 0"/></body>')
    lines += ['  </worldbody>', '</mujoco>']
    return '\n'.join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--state', required=True, help='state file of ours (pile-life --export)')
    ap.add_argument('--steps', type=int, required=True)
    ap.add_argument('--cone', default='elliptic', choices=['elliptic', 'pyramidal'])
    ap.add_argument('--max-seconds', type=float, default=None, help='wall-time budget of the steps')
    args = ap.parse_args()

    header, rows = pl.read_state(args.state)
    n = len(rows)
    side = header['box_side']
    setup = time.perf_counter()
    model = mujoco.MjModel.from_xml_string(mjcf([row[0:3] for row in rows], side))
    model.opt.cone = mujoco.mjtCone.mjCONE_ELLIPTIC if args.cone == 'elliptic' else mujoco.mjtCone.mjCONE_PYRAMIDAL
    data = mujoco.MjData(model)
    # Free joints: qpos = centre and quaternion (scalar first), qvel = linear velocity in the world
    # frame and angular velocity in the body frame, as in our state files.
    data.qpos[:] = np.array([row[0:7] for row in rows]).reshape(-1)
    data.qvel[:] = np.array([row[7:13] for row in rows]).reshape(-1)
    data.time = header['time']
    mujoco.mj_forward(model, data)
    setup_seconds = time.perf_counter() - setup
    m, inertia = float(model.body_mass[1]), float(model.body_inertia[1][0])
    if abs(m - pl.mass()) > 1e-9 * pl.mass() or abs(inertia - pl.inertia()) > 1e-9 * pl.inertia():
        raise SystemExit(f'MuJoCo mass {m} / inertia {inertia} differ from ours {pl.mass()} / {pl.inertia()}')

    max_iterations = int(model.opt.iterations)
    start = int(header['step'])
    began = time.perf_counter()
    taken = 0
    for k in range(args.steps):
        t0 = time.perf_counter()
        mujoco.mj_step(model, data)
        seconds = time.perf_counter() - t0
        qvel = np.asarray(data.qvel).reshape(n, 6)
        ke = 0.5 * m * float(np.sum(qvel[:, 0:3] ** 2)) + 0.5 * inertia * float(np.sum(qvel[:, 3:6] ** 2))
        islands = max(1, int(data.nisland))
        iterations = int(np.max(data.solver_niter[:islands]))
        ncon = int(data.ncon)
        penetration = max(0.0, -float(np.min(data.contact.dist[:ncon]))) if ncon else 0.0
        height = float(np.mean(np.asarray(data.qpos).reshape(n, 7)[:, 2]))
        pl.emit(pl.step_record(start + k + 1, ke, seconds, iterations, iterations < max_iterations, None,
                               penetration, height, ncon))
        taken = k + 1
        if args.max_seconds is not None and time.perf_counter() - began > args.max_seconds:
            break

    end = np.asarray(data.qpos).reshape(n, 7)[:, 0:3].tolist()
    pl.emit(__import__('json').dumps({
        'record': 'run', 'engine': 'mujoco', 'version': mujoco.__version__, 'precision': 'f64', 'n': n,
        'h': float(model.opt.timestep), 'start_step': start, 'steps': taken,
        'solver': ['PGS', 'CG', 'Newton'][int(model.opt.solver)],
        'cone': ['pyramidal', 'elliptic'][int(model.opt.cone)],
        'iterations_max': max_iterations, 'tolerance': float(model.opt.tolerance), 'threads': 1,
        'max_penetration': pl.max_penetration(end, side), 'mean_height': pl.mean_height(end),
        'setup_seconds': setup_seconds,
    }))


if __name__ == '__main__':
    main()
