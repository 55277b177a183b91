"""Generator of PendulumChain.ref: a chain of five Newton-Euler links on pivot joints, the first
hanging from the world, released from horizontal onto a frictional floor, stepped by Siconos 4.4
(python3-siconos) with the GenericMechanical one-step problem.

Model (z is up, gravity along -z): five box links k = 0..4 of mass m = 1, length 0.5 (x),
section 0.05 x 0.05, inertia about the centre diag(m (0.05^2 + 0.05^2)/12,
m (0.5^2 + 0.05^2)/12, m (0.5^2 + 0.05^2)/12); centre of link k at ((k + 1/2) 0.5, 0, 0),
orientation identity, at rest; F_ext = (0, 0, -9.81 m).
Joints: PivotJointR(P = (0, 0, 0), A = (0, 1, 0), True, link 0) and
PivotJointR(P = (0.5 k, 0, 0), A = (0, 1, 0), True, link k-1, link k) for k = 1..4, each with
EqualityConditionNSL(5).
Contacts: the far end of each link (body point (0.25, 0, 0)) against the floor z = -0.6, a
NewtonEuler3DR whose h sets y = z_P + 0.6 (P = G + R (0.25, 0, 0)), normal (0, 0, 1), contact
point P; NewtonImpactFrictionNSL(0, 0, 0.3, 3) (no restitution: see the data README).
MoreauJeanOSI(0.5), GenericMechanical() with its NSGS at tolerance 1e-10 and 100000 sweeps,
TimeDiscretisation(0, 1e-3), T = 2 (2000 steps), Newton tolerance 1e-10.

Output: 2001 rows (row 0 the initial state, row k after the k-th computeOneStep), 1 + 5 x 13
columns: t, then for each link q (x, y, z, p0, p1, p2, p3) and the twist (v_x, v_y, v_z,
Omega_x, Omega_y, Omega_z); each number as C "%.15e " (|x| < DBL_MIN as 0).

Usage: /usr/bin/python3 -s pendulum_chain.py OUTPUT_DIR
"""
import os
import sys

import numpy as np
import siconos.kernel as sk
import siconos.mechanics.joints as sj

DBL_MIN = 2.2250738585072014e-308
LINKS, LENGTH, SECTION, MASS, FLOOR = 5, 0.5, 0.05, 1.0, -0.6


def fmt(x):
    x = float(x)
    return "%.15e " % (0.0 if abs(x) < DBL_MIN else x)


def rotate(p, v):
    """The rotation of v by the unit quaternion p = (p0, p1, p2, p3)."""
    p0, pv = p[0], np.array(p[1:4])
    v = np.array(v)
    return (p0 * p0 - pv.dot(pv)) * v + 2.0 * p0 * np.cross(pv, v) + 2.0 * pv.dot(v) * pv


class EndOnFloor(sk.NewtonEuler3DR):
    """The body point `point` against the floor z = FLOOR: y = z_P - FLOOR, normal e_z."""

    def __init__(self, point):
        self.point = point
        sk.NewtonEuler3DR.__init__(self)

    def computeh(self, time, q, y):
        pc = np.array(q[0:3]) + rotate(q[3:7], self.point)
        y[0] = pc[2] - FLOOR
        nc = self.nc()
        nc[0], nc[1], nc[2] = 0.0, 0.0, 1.0
        p1 = self.pc1()
        p1[0], p1[1], p1[2] = pc[0], pc[1], pc[2]


def run():
    inertia = np.diag([MASS * 2 * SECTION ** 2 / 12, MASS * (LENGTH ** 2 + SECTION ** 2) / 12,
                       MASS * (LENGTH ** 2 + SECTION ** 2) / 12])
    nsds = sk.NonSmoothDynamicalSystem(0.0, 2.0)
    links = []
    for k in range(LINKS):
        link = sk.NewtonEulerDS([(k + 0.5) * LENGTH, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0], [0.0] * 6, MASS, inertia)
        link.setFExtPtr([0.0, 0.0, -9.81 * MASS])
        nsds.insertDynamicalSystem(link)
        links.append(link)
    relations = []
    for k in range(LINKS):
        if k == 0:
            joint = sj.PivotJointR([0.0, 0.0, 0.0], [0.0, 1.0, 0.0], True, links[0])
            nsds.link(sk.Interaction(sk.EqualityConditionNSL(5), joint), links[0])
        else:
            joint = sj.PivotJointR([k * LENGTH, 0.0, 0.0], [0.0, 1.0, 0.0], True, links[k - 1], links[k])
            nsds.link(sk.Interaction(sk.EqualityConditionNSL(5), joint), links[k - 1], links[k])
        relations.append(joint)
    for k in range(LINKS):
        end = EndOnFloor([LENGTH / 2, 0.0, 0.0])
        relations.append(end)
        nsds.link(sk.Interaction(sk.NewtonImpactFrictionNSL(0.0, 0.0, 0.3, 3), end), links[k])
    osnspb = sk.GenericMechanical()
    options = osnspb.numericsSolverOptions()
    options.dparam[0] = 1e-10
    options.iparam[0] = 100000
    sim = sk.TimeStepping(nsds, sk.TimeDiscretisation(0.0, 1e-3), sk.MoreauJeanOSI(0.5), osnspb)
    sim.setNewtonTolerance(1e-10)

    def row(t):
        out = [t]
        for link in links:
            out.extend(link.q())
            out.extend(link.twist())
        return out

    rows = [row(0.0)]
    while sim.hasNextEvent():
        sim.computeOneStep()
        rows.append(row(sim.nextTime()))
        sim.nextStep()
    return rows


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: pendulum_chain.py OUTPUT_DIR")
    rows = run()
    with open(os.path.join(sys.argv[1], "PendulumChain.ref"), "w") as f:
        for r in rows:
            f.write("".join(fmt(x) for x in r) + "\n")


if __name__ == "__main__":
    main()
