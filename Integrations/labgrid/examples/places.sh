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
labgrid-client -p bench-a-1 add-match "bench-a/bench-a-port-1/NetworkUSBPowerPort"
