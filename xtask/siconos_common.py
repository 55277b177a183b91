"""Helpers shared by the Siconos drivers of `cargo xtask bench-report` (siconos_lcp.py, siconos_fc3d.py)."""

import argparse
import math


def arguments(description):
    """The command line both drivers take: the bench manifest, the output file, the repetitions."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("manifest")
    parser.add_argument("--out", required=True)
    parser.add_argument("--reps", type=int, default=5, help="timed repetitions per pair (default 5)")
    parser.add_argument(
        "--max-seconds",
        type=float,
        default=20.0,
        help="stop repeating a pair once its solves took this long (default 20)",
    )
    return parser.parse_args()


def finite_or_none(x):
    """x, or None when it is missing or not finite (JSON has no NaN)."""
    return x if x is not None and math.isfinite(x) else None


def repeat_timed(solve_once, reps, max_seconds):
    """Calls solve_once() (which returns a tuple whose 4th item is its time in seconds) at most
    `reps` times, stopping early once the solves took `max_seconds`; returns the last result and
    the list of times."""
    times, result, spent = [], None, 0.0
    while len(times) < reps and (not times or spent < max_seconds):
        result = solve_once()
        times.append(result[3])
        spent += result[3]
    return result, times
