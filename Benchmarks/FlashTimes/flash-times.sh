#!/usr/bin/env bash
# Flash times through the emulated bootloaders (scripts/bench runs it): a full 28 KiB
# application erased, written and verified by hapbridge flash and by the public
# clients, each in the same emulation session, beside two figures of this run:
#   - this machine's baseline: the emulation started and stopped around `true`
#     (umockdev, the preload, the testbed), which every flash below pays once;
#   - the chip's share: what the emulation says its flash was busy for ("flash busy"),
#     the part's self-programming time for every page erase and write it modelled
#     (AVRPart.selfProgrammingMicroseconds), which no host can go below.
# Figures are medians over ROUNDS sessions, in ms.
#
# usage: Benchmarks/FlashTimes/flash-times.sh HAPBRIDGE [ROUNDS]
set -euo pipefail
[ -x "${1:-}" ] || { echo "usage: $0 HAPBRIDGE [ROUNDS]" >&2; exit 2; }
hb=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
rounds=${2:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

# The image: every byte of the 32U4's application section, no page 0xFF only.
python3 - <<'PY'
data = bytes((((i * 2654435761) & 0xFFFFFFFF) >> 13) & 0xFF for i in range(28 * 1024))
with open("full.hex", "w") as f:
    for at in range(0, len(data), 16):
        rec = bytes([16, at >> 8, at & 0xFF, 0]) + data[at:at + 16]
        f.write(":" + (rec + bytes([(-sum(rec)) & 0xFF])).hex().upper() + "\n")
    f.write(":00000001FF\n")
PY

now() { date +%s%N; }
# One timed COMMAND inside the session: "NAME ms=N" on standard output.
cat > timed.sh <<'SH'
name=$1; shift
t0=$(date +%s%N)
"$@" >/dev/null 2>"$name.err" || { tail -3 "$name.err" >&2; exit 1; }
echo "$name ms=$(( ($(date +%s%N) - t0) / 1000000 ))"
SH

median() { sort -n | awk '{ a[NR] = $1 } END { if (NR == 0) print "?"; else print a[int((NR + 1) / 2)] }'; }

: > results.txt
# One session of `emulate KIND` around one timed COMMAND; its summary line (with
# "flash busy") kept for the chip's share.
session() {
    local kind=$1 name=$2; shift 2
    if ! "$hb" emulate "$kind" -- sh timed.sh "$name" "$@" >> results.txt 2> session.err; then
        echo "$name: failed" >&2
        tail -5 session.err >&2
        exit 1
    fi
    cat session.err >> "busy-$name.txt"
}
for _ in $(seq "$rounds"); do
    t0=$(now)
    "$hb" emulate dfu -- true 2> session.err || { echo "emulate dfu: failed" >&2; tail -5 session.err >&2; exit 1; }
    echo "baseline ms=$(( ($(now) - t0) / 1000000 ))" >> results.txt
    # Each tool in a session of its own: each meets a fresh bootloader (Atmel's in its
    # security mode until the erase).
    session dfu hapbridge-dfu "$hb" flash full.hex
    session dfu dfu-programmer sh -c 'dfu-programmer atmega32u4 erase && dfu-programmer atmega32u4 flash full.hex'
    session dfu avrdude-flip1 avrdude -c flip1 -p m32u4 -U flash:w:full.hex:i
    session caterina hapbridge-caterina "$hb" flash --port /dev/ttyACM0 full.hex
    session caterina avrdude-avr109 avrdude -c avr109 -p m32u4 -P /dev/ttyACM0 -U flash:w:full.hex:i
done

echo "== flashing 28 KiB (erase, write, verify) through the emulated bootloaders, median of $rounds, ms"
base=$(grep '^baseline ' results.txt | sed 's/.*ms=//' | median)
echo "   baseline (emulate dfu -- true: the session's own start and stop): $base"
for tool in hapbridge-dfu dfu-programmer avrdude-flip1 hapbridge-caterina avrdude-avr109; do
    total=$(grep "^$tool " results.txt | sed 's/.*ms=//' | median)
    busy=$(grep -o 'flash busy [0-9.]* s' "busy-$tool.txt" | awk '{ printf "%d\n", $3 * 1000 }' | median)
    printf '   %-20s %6s   (the chip programming: %s; the rest: the host, USB and the emulation)\n' "$tool" "$total" "$busy"
done
