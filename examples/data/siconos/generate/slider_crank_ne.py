"""Generator of SliderCrankNE.ref: a slider-crank of three Newton-Euler bodies with joints and a
stop on the slider, stepped by Siconos 4.4 (python3-siconos).

Model (the plane x-z, gravity along -z, every joint axis along y): lengths l1 = 0.153 (crank),
l2 = 0.306 (rod), masses m1 = m2 = 0.038, m3 = 0.076 (slider), isotropic inertias J1 = 7.4e-5,
J2 = 5.9e-4, J3 = 2.7e-6 (the parameters of Siconos' SliderCrank example). A body turned by beta
about y has the quaternion (cos beta/2, 0, sin beta/2, 0) and its x axis along
(cos beta, 0, -sin beta). Initially the crank is vertical (beta1 = -pi/2: tip B = (0, 0, l1)),
the rod goes from B to the slider centre C = (l2 cos beta2, 0, 0) (beta2 = asin(l1/l2)), the
crank turns at d(beta1)/dt = 10 rad/s, the rod translates at the tip velocity (1.53, 0, 0) (the
consistent velocities), the slider moves with it. Joints:
  PivotJointR(P = (0, 0, 0), A = (0, 1, 0), True, crank)        5 rows, crank to the world
  KneeJointR(P = B, True, crank, rod)                            3 rows
  KneeJointR(P = C, True, rod, slider)                           3 rows
  PrismaticJointR(A = (1, 0, 0), True, slider)                   5 rows, slider to the world
  JointStopR(prismatic, -0.135, False, 0), NewtonImpactNSL(0.5): the prismatic coordinate
      d = x_C(0) - x_C >= -0.135 (the slider stops at x = x_C(0) + 0.135)
The two ball (knee) joints make the 16 equality rows independent; with pivots at both ends of
the rod the rows of the closed planar loop are dependent (3 of the 20 rows), the MLCP matrix
is singular and ENUM fails on part of the steps (Siconos prints "MLCP solver failed", numerics
info 1, and goes on with that step's failed solution). The argument `pivots` runs that variant
too and prints its difference to the ball-joint run (count Siconos' "MLCP solver failed" lines
in its output for the failed steps).
MoreauJeanOSI(0.5), MLCP() (ENUM, tolerance 1e-12), TimeDiscretisation(0, 1e-3), T = 1
(1000 steps), Newton tolerance 1e-10.

Output: 1001 rows (row 0 the initial state, row k after the k-th computeOneStep), 14 columns:
t, crank x, z, p0, p2, rod x, z, p0, p2, slider x, crank Omega_y, rod Omega_y, slider v_x,
lambda(1) of the stop; each number as C "%.15e " (|x| < DBL_MIN as 0).

Usage: /usr/bin/python3 -s slider_crank_ne.py OUTPUT_DIR [pivots]
"""
import math
import os
import sys

import numpy as np
import siconos.kernel as sk
import siconos.mechanics.joints as sj

DBL_MIN = 2.2250738585072014e-308
L1, L2 = 0.153, 0.306
M1, M2, M3 = 0.038, 0.038, 0.076
J1, J2, J3 = 7.4e-5, 5.9e-4, 2.7e-6
G = 9.81


def fmt(x):
    x = float(x)
    return "%.15e " % (0.0 if abs(x) < DBL_MIN else x)


def run(pivots, steps):
    beta1 = -math.pi / 2.0
    beta2 = math.asin(L1 / L2)
    rate = 10.0
    b = [L1 * math.cos(beta1), 0.0, -L1 * math.sin(beta1)]
    c = [b[0] + L2 * math.cos(beta2), 0.0, b[2] - L2 * math.sin(beta2)]
    c[2] = 0.0
    vb = [L1 * rate * -math.sin(beta1), 0.0, L1 * rate * -math.cos(beta1)]

    def quat(beta):
        return [math.cos(beta / 2.0), 0.0, math.sin(beta / 2.0), 0.0]

    crank = sk.NewtonEulerDS([b[0] / 2.0, 0.0, b[2] / 2.0] + quat(beta1),
                             [vb[0] / 2.0, 0.0, vb[2] / 2.0, 0.0, rate, 0.0], M1, J1 * np.eye(3))
    rod = sk.NewtonEulerDS([(b[0] + c[0]) / 2.0, 0.0, (b[2] + c[2]) / 2.0] + quat(beta2),
                           [vb[0], 0.0, vb[2], 0.0, 0.0, 0.0], M2, J2 * np.eye(3))
    slider = sk.NewtonEulerDS(c + [1.0, 0.0, 0.0, 0.0], [vb[0], 0.0, vb[2], 0.0, 0.0, 0.0], M3, J3 * np.eye(3))
    for body, m in ((crank, M1), (rod, M2), (slider, M3)):
        body.setFExtPtr([0.0, 0.0, -m * G])
    nsds = sk.NonSmoothDynamicalSystem(0.0, steps * 1e-3)
    for body in (crank, rod, slider):
        nsds.insertDynamicalSystem(body)
    if pivots:
        elbow = sj.PivotJointR(b, [0.0, 1.0, 0.0], True, crank, rod)
        wrist = sj.PivotJointR(c, [0.0, 1.0, 0.0], True, rod, slider)
    else:
        elbow = sj.KneeJointR(b, True, crank, rod)
        wrist = sj.KneeJointR(c, True, rod, slider)
    prismatic = sj.PrismaticJointR([1.0, 0.0, 0.0], True, slider)
    for joint, bodies in ((sj.PivotJointR([0.0, 0.0, 0.0], [0.0, 1.0, 0.0], True, crank), [crank]),
                          (elbow, [crank, rod]), (wrist, [rod, slider]), (prismatic, [slider])):
        nsds.link(sk.Interaction(sk.EqualityConditionNSL(joint.numberOfConstraints()), joint), *bodies)
    stop = sk.Interaction(sk.NewtonImpactNSL(0.5), sj.JointStopR(prismatic, -0.135, False, 0))
    nsds.link(stop, slider)
    sim = sk.TimeStepping(nsds, sk.TimeDiscretisation(0.0, 1e-3), sk.MoreauJeanOSI(0.5), sk.MLCP())
    sim.setNewtonTolerance(1e-10)
    q1, q2, q3 = crank.q(), rod.q(), slider.q()
    v1, v2, v3 = crank.twist(), rod.twist(), slider.twist()

    def row(t):
        lam = stop.lambda_(1)
        return (t, q1[0], q1[2], q1[3], q1[5], q2[0], q2[2], q2[3], q2[5], q3[0], v1[4], v2[4], v3[0],
                0.0 if lam is None else lam[0])

    rows = [row(0.0)]
    while sim.hasNextEvent():
        sim.computeOneStep()
        rows.append(row(sim.nextTime()))
        sim.nextStep()
    return rows


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit("usage: slider_crank_ne.py OUTPUT_DIR [pivots]")
    if len(sys.argv) == 3:
        balls = np.array(run(False, 1000))
        pivots = np.array(run(True, 1000))
        sys.stdout.flush()
        print("pivots at both rod ends: max |difference| to the ball-joint run per column: %s"
              % np.abs(pivots - balls).max(axis=0))
        return
    with open(os.path.join(sys.argv[1], "SliderCrankNE.ref"), "w") as f:
        for r in run(False, 1000):
            f.write("".join(fmt(x) for x in r) + "\n")


if __name__ == "__main__":
    main()
