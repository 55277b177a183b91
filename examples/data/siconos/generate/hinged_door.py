"""Generator of HingedDoor.ref: a Newton-Euler door on a pivot joint with two joint stops,
stepped by Siconos 4.4 (python3-siconos).

Model (y is up, gravity along -y): a box door of mass m = 20, width 0.8 (x), height 2 (y),
thickness 0.04 (z), inertia about its centre diag(m (2^2 + 0.04^2)/12, m (0.8^2 + 0.04^2)/12,
m (0.8^2 + 2^2)/12); centre at (0.4, 1, 0), orientation identity; twist: angular velocity
(0, 1.5, 0) (body frame) and the consistent centre velocity (0, 0, -0.6); F_ext = (0, -9.81 m, 0).
PivotJointR(P = (0, 1, 0), A = (0, 1, 0), absoluteRef = True, door) with EqualityConditionNSL(5);
two JointStopR on the pivot angle phi (the rotation of the world relative to the door,
phi = -theta for a door turned by theta about y), each with NewtonImpactNSL(0.5):
  JointStopR(pivot, -1.2, False, 0)   y = phi + 1.2 >= 0   (the door opens to theta <= 1.2)
  JointStopR(pivot,  0.3, True,  0)   y = 0.3 - phi >= 0   (the door closes to theta >= -0.3)
MoreauJeanOSI(0.5), MLCP() (ENUM, Siconos' default, tolerance 1e-12), TimeDiscretisation(0, 1e-3),
T = 3 (3000 steps), Newton tolerance 1e-10.

Output: 3001 rows (row 0 the initial state, row k after the k-th computeOneStep), 12 columns:
t, theta = 2 atan2(p2, p0), x, y, z, p0, p1, p2, p3, Omega_y, lambda(1) of the opening stop,
lambda(1) of the closing stop; each number as C "%.15e " (|x| < DBL_MIN as 0).

Usage: /usr/bin/python3 -s hinged_door.py OUTPUT_DIR
"""
import math
import os
import sys

import numpy as np
import siconos.kernel as sk
import siconos.mechanics.joints as sj

DBL_MIN = 2.2250738585072014e-308


def fmt(x):
    x = float(x)
    return "%.15e " % (0.0 if abs(x) < DBL_MIN else x)


def multiplier(inter):
    lam = inter.lambda_(1)
    return 0.0 if lam is None else lam[0]


def run():
    m, width, height, thickness, rate = 20.0, 0.8, 2.0, 0.04, 1.5
    inertia = np.diag([m * (height ** 2 + thickness ** 2) / 12, m * (width ** 2 + thickness ** 2) / 12,
                       m * (width ** 2 + height ** 2) / 12])
    door = sk.NewtonEulerDS([width / 2, 1.0, 0.0, 1.0, 0.0, 0.0, 0.0],
                            [0.0, 0.0, -rate * width / 2, 0.0, rate, 0.0], m, inertia)
    door.setFExtPtr([0.0, -9.81 * m, 0.0])
    nsds = sk.NonSmoothDynamicalSystem(0.0, 3.0)
    nsds.insertDynamicalSystem(door)
    pivot = sj.PivotJointR([0.0, 1.0, 0.0], [0.0, 1.0, 0.0], True, door)
    nsds.link(sk.Interaction(sk.EqualityConditionNSL(5), pivot), door)
    opening = sk.Interaction(sk.NewtonImpactNSL(0.5), sj.JointStopR(pivot, -1.2, False, 0))
    closing = sk.Interaction(sk.NewtonImpactNSL(0.5), sj.JointStopR(pivot, 0.3, True, 0))
    nsds.link(opening, door)
    nsds.link(closing, door)
    sim = sk.TimeStepping(nsds, sk.TimeDiscretisation(0.0, 1e-3), sk.MoreauJeanOSI(0.5), sk.MLCP())
    sim.setNewtonTolerance(1e-10)
    q, v = door.q(), door.twist()

    def row(t):
        return (t, 2.0 * math.atan2(q[5], q[3]), q[0], q[1], q[2], q[3], q[4], q[5], q[6], v[4],
                multiplier(opening), multiplier(closing))

    rows = [row(0.0)]
    while sim.hasNextEvent():
        sim.computeOneStep()
        rows.append(row(sim.nextTime()))
        sim.nextStep()
    return rows


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: hinged_door.py OUTPUT_DIR")
    with open(os.path.join(sys.argv[1], "HingedDoor.ref"), "w") as f:
        for r in run():
            f.write("".join(fmt(x) for x in r) + "\n")


if __name__ == "__main__":
    main()
