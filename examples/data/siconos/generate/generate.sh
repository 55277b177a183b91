#!/usr/bin/env bash
# Regenerates the three Siconos 4.4 reference trajectories of examples/data/siconos/:
#   BouncingBallSchatzmanPaoli.ref      (C++: SchatzmanPaoliOSI is not wrapped in python3-siconos 4.4)
#   BouncingBallDirectProjection.ref    (python3-siconos)
#   BouncingBallCombinedProjection.ref  (python3-siconos)
#   TwoBouncingBallsGlobal.ref          (python3-siconos: MoreauJeanGOSI, GlobalFrictionContact)
#   NewtonEulerRotation.txt, NewtonEulerRotationSlow.txt (C++: NewtonEulerDS free flight)
#   BouncingBallNETSDirectProjection.ref, BouncingBallNETSCombinedProjection.ref (python3-siconos)
#   HingedDoor.ref, SliderCrankNE.ref (python3-siconos: Newton-Euler joints and joint stops)
#   PendulumChain.ref (python3-siconos: pivots and frictional contacts, GenericMechanical)
#   LinearOscillatorED.ref (python3-siconos: EventDriven + LsodarOSI; Siconos stops at t = 0.335)
#   BouncingBallEDTwoContacts.ref, PendulumED.ref (python3-siconos: EventDriven with LsodarOSI)
# Needs the Debian packages libsiconos-kernel-dev, libsiconos-numerics-dev (4.4.0), g++ and
# python3-siconos (4.4.0, used through the system /usr/bin/python3).
# Usage (from anywhere): bash examples/data/siconos/generate/generate.sh
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
outdir="$(dirname "$here")"
build="$(mktemp -d)"
trap 'rm -rf "$build"' EXIT

g++ -std=c++17 -I/usr/include/siconos/kernel -I/usr/include/siconos/numerics -I/usr/include/siconos \
    "$here/bouncing_ball_sp.cpp" -o "$build/bouncing_ball_sp" -lsiconos_kernel -lsiconos_numerics
# Siconos prints its own progress/warnings on stdout/stderr: keep them out of the way.
"$build/bouncing_ball_sp" "$outdir/BouncingBallSchatzmanPaoli.ref" > "$build/sp.log" 2>&1 \
    || { cat "$build/sp.log" >&2; exit 1; }
/usr/bin/python3 -s "$here/bouncing_ball_projection.py" "$outdir" > "$build/proj.log" 2>&1 \
    || { cat "$build/proj.log" >&2; exit 1; }
/usr/bin/python3 -s "$here/two_bouncing_balls_global.py" "$outdir" > "$build/global.log" 2>&1 \
    || { cat "$build/global.log" >&2; exit 1; }

# The Newton-Euler ball of BouncingBallNETS under both projections; `plain` first checks the
# driver against the BouncingBallNETS.ref of the Siconos examples (in $NONSMOOTH_DATA/reference).
/usr/bin/python3 -s "$here/bouncing_ball_nets_projection.py" "$outdir" plain > "$build/nets.log" 2>&1 \
    || { cat "$build/nets.log" >&2; exit 1; }
cat "$build/nets.log"

g++ -std=c++17 -I/usr/include/siconos/kernel -I/usr/include/siconos/numerics -I/usr/include/siconos \
    "$here/newton_euler_rotation.cpp" -o "$build/newton_euler_rotation" -lsiconos_kernel -lsiconos_numerics
"$build/newton_euler_rotation" 1.0 "$outdir/NewtonEulerRotation.txt" > "$build/ne.log" 2>&1 \
    || { cat "$build/ne.log" >&2; exit 1; }
"$build/newton_euler_rotation" 0.05 "$outdir/NewtonEulerRotationSlow.txt" >> "$build/ne.log" 2>&1 \
    || { cat "$build/ne.log" >&2; exit 1; }

# Newton-Euler joints: a door on a pivot with two stops; a slider-crank (pivot, two ball joints,
# prismatic, a stop). `pivots` also runs the slider-crank with pivots at both rod ends, whose
# dependent rows make ENUM fail: count Siconos' "MLCP solver failed" lines.
/usr/bin/python3 -s "$here/hinged_door.py" "$outdir" > "$build/door.log" 2>&1 \
    || { cat "$build/door.log" >&2; exit 1; }
/usr/bin/python3 -s "$here/slider_crank_ne.py" "$outdir" > "$build/crank.log" 2>&1 \
    || { cat "$build/crank.log" >&2; exit 1; }
/usr/bin/python3 -s "$here/slider_crank_ne.py" "$outdir" pivots > "$build/pivots.log" 2>&1 \
    || { cat "$build/pivots.log" >&2; exit 1; }
echo "slider-crank with pivots at both rod ends: $(grep -c 'MLCP solver failed' "$build/pivots.log") failed MLCPs of 1000"
grep -v '^\[kernel\]' "$build/pivots.log"

# A chain of five links on pivots falling onto a frictional floor (GenericMechanical): count the
# steps whose Gauss-Seidel stops at its sweep cap (Siconos warns "output message ... equal to 1").
/usr/bin/python3 -s "$here/pendulum_chain.py" "$outdir" > "$build/chain.log" 2>&1 \
    || { cat "$build/chain.log" >&2; exit 1; }
echo "pendulum chain: $(grep -c "equal to 1" "$build/chain.log" || true) unconverged GenericMechanical steps of 2000"

# The LinearOscillatorED tutorial, event-driven with LsodarOSI: Siconos 4.4 throws at t = 0.335
# (the script keeps the rows computed before and prints where it stopped).
/usr/bin/python3 -s "$here/linear_oscillator_ed.py" "$outdir" > "$build/oscillator.log" 2>&1 \
    || { cat "$build/oscillator.log" >&2; exit 1; }
grep -v 'memory leak' "$build/oscillator.log"

for f in BouncingBallSchatzmanPaoli BouncingBallDirectProjection BouncingBallCombinedProjection \
    TwoBouncingBallsGlobal BouncingBallNETSDirectProjection BouncingBallNETSCombinedProjection \
    HingedDoor SliderCrankNE PendulumChain LinearOscillatorED; do
    echo "$f.ref: $(wc -l < "$outdir/$f.ref") rows, sha256 $(sha256sum < "$outdir/$f.ref" | cut -d' ' -f1)"
done
for f in NewtonEulerRotation NewtonEulerRotationSlow; do
    echo "$f.txt: $(wc -l < "$outdir/$f.txt") rows, sha256 $(sha256sum < "$outdir/$f.txt" | cut -d' ' -f1)"
done

/usr/bin/python3 -s "$here/event_driven_examples.py" "$outdir" > "$build/ed.log" 2>&1 \
    || { cat "$build/ed.log" >&2; exit 1; }
