"""Shared pieces of the whole-life pile scripts (`mujoco_pile.py`, `siconos_pile.py`).

The scene is the one of `benches/src/pile.rs` / `crates/mechanics/src/pile.rs`: N spheres of radius
r = 0.05 m, density 1000 kg/m^3, mu = 0.3, e = 0, in an open box [0, L]^2 x [0, inf), g = 9.81 m/s^2,
h = 1e-3 s. The bodies' start comes from a state file written by our `pile-life --export` (the
lattice at rest is its step 0): a header line `# n=.. seed=.. step=.. time=.. radius=.. box_side=..`
then one line per sphere, `x y z q0 q1 q2 q3 vx vy vz wx wy wz` (centre, unit quaternion with the
scalar first, velocity of the centre, angular velocity in the body frame), in Rust's shortest
round-trip formatting, so that Python reads back the same doubles.

Every script prints one JSON line per step, `{"record": "step", ...}` (the fields of
`step_record`), then one `{"record": "run", ...}` line describing the run; `cargo xtask bench-report
--only mechanics` reads them (`xtask/src/mechanics_report/life.rs`).
"""

import json
import math

RADIUS = 0.05
DENSITY = 1000.0
FRICTION = 0.3
RESTITUTION = 0.0
H = 1e-3
GRAVITY = 9.81


def mass(r=RADIUS, rho=DENSITY):
    """Mass of a sphere, rho 4/3 pi r^3."""
    return rho * 4.0 / 3.0 * math.pi * r ** 3


def inertia(r=RADIUS, rho=DENSITY):
    """Moment of inertia of a solid sphere about its centre, 2/5 m r^2."""
    return 0.4 * mass(r, rho) * r * r


def read_state(path):
    """(header dict, rows) of a state file; each row has the 13 numbers of one sphere."""
    header = {}
    rows = []
    with open(path) as f:
        for line in f:
            if line.startswith('#'):
                for tok in line[1:].split():
                    k, v = tok.split('=')
                    header[k] = float(v)
            elif line.strip():
                rows.append([float(x) for x in line.split()])
    if 'n' in header and int(header['n']) != len(rows):
        raise SystemExit(f'{path}: header n={int(header["n"])} but {len(rows)} spheres')
    for key in ('step', 'time', 'box_side'):
        if key not in header:
            raise SystemExit(f'{path}: no {key}= in the header')
    return header, rows


def kinetic_energy(v, w, m=None, i=None):
    """Translational + rotational kinetic energy of equal spheres: sum 1/2 m |v|^2 + 1/2 I |w|^2
    (isotropic inertia, so the frame of w does not matter); v, w are sequences of 3-vectors or
    (n, 3) arrays."""
    m = mass() if m is None else m
    i = inertia() if i is None else i
    tv = sum(a * a for row in v for a in row)
    tw = sum(a * a for row in w for a in row)
    return 0.5 * m * tv + 0.5 * i * tw


def walls(side):
    """(inward normal, offset) of the five walls: the inside is n.x >= d (`PileSpec::walls`)."""
    return [((0.0, 0.0, 1.0), 0.0), ((1.0, 0.0, 0.0), 0.0), ((-1.0, 0.0, 0.0), -side),
            ((0.0, 1.0, 0.0), 0.0), ((0.0, -1.0, 0.0), -side)]


def mean_height(pts):
    """Mean z of the centres (`PileSpec::mean_height`)."""
    return sum(p[2] for p in pts) / len(pts) if len(pts) else 0.0


def max_penetration(pts, side, r=RADIUS):
    """`PileSpec::max_penetration`: max(0, over pairs 2r - |xi - xj|, over spheres and walls
    r - (n.x - d)), in metres; pairs found with a grid of cell 2r; inf for a non-finite centre."""
    for p in pts:
        if not all(math.isfinite(v) for v in p):
            return math.inf
    worst = 0.0
    for p in pts:
        for n, d in walls(side):
            worst = max(worst, r - (n[0] * p[0] + n[1] * p[1] + n[2] * p[2] - d))
    cell = 2.0 * r
    grid = {}
    keys = []
    for i, p in enumerate(pts):
        k = (math.floor(p[0] / cell), math.floor(p[1] / cell), math.floor(p[2] / cell))
        keys.append(k)
        grid.setdefault(k, []).append(i)
    for i, p in enumerate(pts):
        cx, cy, cz = keys[i]
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                for dz in (-1, 0, 1):
                    for j in grid.get((cx + dx, cy + dy, cz + dz), ()):
                        if j > i:
                            q = pts[j]
                            dist = math.sqrt((p[0] - q[0]) ** 2 + (p[1] - q[1]) ** 2 + (p[2] - q[2]) ** 2)
                            worst = max(worst, 2.0 * r - dist)
    return worst


def step_record(step, ke, seconds, iterations, converged, residual, penetration, height, contacts):
    """The JSON line of one step: `step` (1 for the first step of the run, counted from the start
    state's step), `ke` (J, after the step), `seconds` (wall time of the step), `iterations` (the
    solver's), `converged` (whether it reached its tolerance; null when it has none), `residual`
    (its last error measure; null when none), `penetration` (max overlap after the step, m),
    `mean_height` (m), `contacts`."""
    return json.dumps({
        'record': 'step', 'step': step, 'ke': ke, 'seconds': seconds, 'iterations': iterations,
        'converged': converged, 'residual': residual, 'penetration': penetration, 'mean_height': height,
        'contacts': contacts,
    })


def emit(line):
    """Prints one line and flushes (the report reads the lines as they come)."""
    print(line, flush=True)
