#!/bin/sh
# How much of the safety code the fuzz corpus reaches: fuzz/coverage.sh
# Replays build/fuzz/corpus and fuzz/corpus through the target built with
# clang's source-based coverage, then prints (lines starting "# "):
#   line and branch coverage of core/safety.c (fault, drive-limit and
#   host-silence stops) and of the core's other files, and how often each
#   call of the stop path (hbi_stop_and_report) ran, by stop reason.
# Needs llvm-profdata and llvm-cov next to the fuzzing clang.
set -eu
cd "$(dirname "$0")/.."
make -s fuzz-coverage-build
bin=build/host/fuzz-core-cov
tools=$(dirname "$(make -s --no-print-directory print-fuzz-cc)")
out=build/cov
rm -rf "$out" && mkdir -p "$out"
mkdir -p build/fuzz/corpus
LLVM_PROFILE_FILE="$out/fuzz.profraw" "$bin" -runs=0 build/fuzz/corpus fuzz/corpus >"$out/replay.log" 2>&1
inputs=$(grep -Eo 'Done [0-9]+ runs' "$out/replay.log" | grep -Eo '[0-9]+' || echo '?')
"$tools/llvm-profdata" merge -sparse "$out/fuzz.profraw" -o "$out/fuzz.profdata"
"$tools/llvm-cov" report "$bin" -instr-profile="$out/fuzz.profdata" core/*.c >"$out/report.txt"
echo "# fuzz coverage over $inputs corpus inputs (lines, branches: covered/total):"
awk '$1 ~ /\.c$/ || $1 == "TOTAL" {
        lines = $8; lmiss = $9; br = $11; bmiss = $12
        printf "#   %-18s lines %6s (%d/%d)  branches %6s (%d/%d)\n", $1, $10, lines - lmiss, lines, $13, br - bmiss, br
     }' "$out/report.txt"
echo "# stop path (hbi_stop_and_report) calls reached, by reason:"
"$tools/llvm-cov" show "$bin" -instr-profile="$out/fuzz.profdata" core/safety.c core/dispatch.c core/exec.c \
    -show-line-counts >"$out/show.txt"
grep -E 'hbi_stop_and_report\(core, HB_STOP_[A-Z_]+\)' "$out/show.txt" |
    awk -F'|' '{ gsub(/ /, "", $2); match($3, /HB_STOP_[A-Z_]+/); printf "#   %-22s %s times\n", substr($3, RSTART, RLENGTH), ($2 == "" ? "0" : $2) }'
# Every stop reason the core raises on its own must have been reached.
! grep -E 'hbi_stop_and_report\(core, HB_STOP_[A-Z_]+\)' "$out/show.txt" | awk -F'|' '{ gsub(/ /, "", $2) } $2 == "0" || $2 == "" { bad = 1 } END { exit !bad }'
