#!/bin/sh
# run_fixed.sh CORPUS PROGRAM ARGS...: a fixed fuzz run (tests/fuzz/CMakeLists.txt). CORPUS is
# emptied first, and PROGRAM runs with address-space randomization off where the kernel allows it
# (setarch -R): libFuzzer keys its table of recent comparisons by code address, so with ASLR on
# the same seed tries different inputs from one run to the next.
set -eu
corpus=$1
shift
rm -rf "$corpus"
mkdir -p "$corpus"
if setarch -R true 2>/dev/null; then
  exec setarch -R "$@"
fi
echo "run_fixed.sh: setarch -R is refused here; this run's inputs differ from a run where it is not" >&2
exec "$@"
