#!/bin/sh
# Fuzz the frame decoder and core: fuzz/run.sh [SECONDS] (default 25).
# SECONDS=0 runs until stopped.  Findings land in build/fuzz/crash-*.
set -eu
cd "$(dirname "$0")/.."
seconds=${1:-25}
make -s fuzz-build
mkdir -p build/fuzz/corpus
exec build/host/fuzz-core -max_total_time="$seconds" -max_len=512 -print_final_stats=1 \
    -artifact_prefix=build/fuzz/ build/fuzz/corpus fuzz/corpus
