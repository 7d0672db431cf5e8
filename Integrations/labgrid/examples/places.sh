#!/bin/sh
# The farm's places, made once with labgrid's own client (LG_COORDINATOR set):
# one place per board, matched to its exporter's group, tagged for reservations.
set -e
for host in bench-a bench-b; do
    for port in 1 2; do
        place=$host-$port
        labgrid-client -p "$place" create
        labgrid-client -p "$place" add-match "$host/$host-port-$port/NetworkHapbridgeBoard"
        labgrid-client -p "$place" set-tags board=hapbridge-32u4 host="$host"
    done
done
# bench-b's boards hang on a hub that switches each port's power (USBPowerDriver).
for port in 1 2; do
    labgrid-client -p "bench-b-$port" add-match "bench-b/bench-b-port-$port/NetworkUSBPowerPort"
done
