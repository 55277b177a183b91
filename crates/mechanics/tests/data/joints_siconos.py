"""Outputs h(q) of Siconos 4.4's joints for the poses of
`crates/mechanics/tests/joints.rs::rows_equal_siconos_where_they_should`.

Run with Debian's python3-siconos: `/usr/bin/python3 -s joints_siconos.py`. Prints one line
per joint, pasted into the test. One body with the world only: with two bodies, Siconos 4.4's
`KneeJointR::checkInitPos` asserts `h < DBL_EPSILON` without an absolute value and aborts on
round-off.
"""
import math

import numpy as np
import siconos.kernel as sk
import siconos.mechanics.joints as joints


def pose(x, axis, angle):
    a = np.array(axis, float)
    a /= np.linalg.norm(a)
    return list(x) + [math.cos(angle / 2)] + list(math.sin(angle / 2) * a)


def output(joint, size, q):
    positions = sk.BlockVector()
    positions.insertPtr(sk.SiconosVector(q))
    y = sk.SiconosVector(size)
    joint.computeh(0.0, positions, y)
    return [y.getValue(i) for i in range(size)]


q0 = pose([0.1, 0.2, 0.3], [1, 2, 3], 0.5)
q = pose([0.15, 0.1, 0.35], [1, 2, 2.5], 0.6)
point = [0.2, 0.0, 0.1]
axis = list(np.array([0.8, 0.3, 0.4]) / np.linalg.norm([0.8, 0.3, 0.4]))


def body():
    return sk.NewtonEulerDS(q0, [0.0] * 6, 1.0, np.eye(3))


for name, joint, size in [
    ("ball", joints.KneeJointR(point, False, body()), 3),
    ("pivot", joints.PivotJointR(point, axis, False, body()), 5),
    ("cylindrical", joints.CylindricalJointR(point, axis, False, body()), 4),
]:
    print(name, ", ".join(repr(v) for v in output(joint, size, q)))
