#!/bin/sh
# The firmware's single test entry point (called by the project's test
# command).  Installs nothing: Firmware/apt-packages.txt lists what it needs.
#   host unit tests -> bounded fuzz run -> AVR build + budget -> simavr tests
# Last line: "N passed, N failed".  Exit status non-zero on any failure.
# FUZZ_SECONDS (default 25) bounds the fuzz run; --no-fuzz skips it (the
# coverage check then replays the corpus as it stands: `make check`).
set -u
cd "$(dirname "$0")"
fuzz=yes
[ "${1:-}" = "--no-fuzz" ] && fuzz=no

passed=0
failed=0
log=build/test-logs
mkdir -p "$log"

step() { # step NAME COMMAND...: one test case from a command's exit status
    name=$1
    shift
    if "$@" >"$log/step.out" 2>&1; then
        echo "ok - $name"
        passed=$((passed + 1))
    else
        echo "not ok - $name"
        sed 's/^/#   /' "$log/step.out" | tail -40
        failed=$((failed + 1))
    fi
}

suite() { # suite NAME COMMAND...: a runner that prints its own ok/not ok lines
    name=$1
    shift
    "$@" >"$log/$name.out" 2>&1
    status=$?
    grep -E '^(ok|not ok|#)' "$log/$name.out"
    summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$log/$name.out" | tail -1)
    if [ -z "$summary" ]; then
        echo "not ok - $name: runner did not finish (exit $status)"
        tail -20 "$log/$name.out" | sed 's/^/#   /'
        failed=$((failed + 1))
        return
    fi
    p=${summary%% passed*}
    f=${summary#*passed, }
    f=${f%% failed*}
    passed=$((passed + p))
    failed=$((failed + f))
    if [ "$status" -ne 0 ] && [ "$f" -eq 0 ]; then
        echo "not ok - $name: exit status $status"
        failed=$((failed + 1))
    fi
}

core_standalone() {
    for f in core/*.c; do
        cc -std=c11 -pedantic -Wall -Wextra -Werror -Wconversion -Icore/include -Iprotocol/include -c "$f" -o /dev/null || return 1
    done
    # The directory becomes a SwiftPM C target as-is: only portable sources.
    ! grep -l -E '^\s*int\s+main\s*\(|#include\s*<avr/' core/*.c core/include/hapbridge/*.h
}

budget_rejects_oversized_image() {
    ! make -s size-check FLASH_BUDGET=4096
}

step "core: compiles alone as pedantic C11, no main, no chip headers" core_standalone
if make -s unit >"$log/unit-build.out" 2>&1; then
    suite unit build/host/unit-tests
else
    echo "not ok - unit: build"; sed 's/^/#   /' "$log/unit-build.out" | tail -30
    failed=$((failed + 1))
fi

if [ "$fuzz" = yes ]; then
    step "fuzz: decoder and core for ${FUZZ_SECONDS:-25} s without findings" ./fuzz/run.sh "${FUZZ_SECONDS:-25}"
    grep -E '^stat::number_of_executed_units' "$log/step.out" | sed 's/^/# fuzz /'
fi
step "fuzz: the corpus reaches every stop the core makes on its own" ./fuzz/coverage.sh
grep -E '^# ' "$log/step.out"

step "build: ATmega32U4 firmware within 24 KiB flash / 2 KiB RAM" make -s firmware
grep -E '^(flash:|Program:|Data:)' "$log/step.out" | sed 's/^/# /'
step "build: budget check rejects an image over budget" budget_rejects_oversized_image

# Serve mode (what the Swift SimavrBridgeDevice drives): boots, enumerates, and a
# 1.0 host's HELLO (PROTOCOL.md's example frame) comes back as the 18-byte
# HELLO_REPLY within 10 ms of "ready" (boot takes up to ~20 ms of it).
serve_answers_hello() {
    printf 'send a50600010100f4010000b7dd\nrun 60000\nquit\n' |
        build/host/sim-harness --serve build/hapbridge-32u4.elf >"$log/serve.out" 2>&1 &&
        awk '/^ready /{r=$2} /^frame [0-9.]* a5120081/{f=$2} END{exit !(r && f && f - r < 10000)}' \
            "$log/serve.out" &&
        tail -1 "$log/serve.out" | grep -qx bye
}

if make -s sim >"$log/sim-build.out" 2>&1; then
    suite sim build/host/sim-harness build/hapbridge-32u4.elf
    step "sim: --serve boots, enumerates and answers HELLO" serve_answers_hello
else
    echo "not ok - sim: build"; sed 's/^/#   /' "$log/sim-build.out" | tail -30
    failed=$((failed + 1))
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
