#!/bin/sh
# One "exporter host" of the loopback farm, run as `hapbridge emulate bridge`'s COMMAND so
# that it sees the emulated boards (umockdev's preload, the emulation's uevents): a
# throwaway key-only sshd on 127.0.0.1 (labgrid's remote execution reaches this "host"
# through it) and hapbridge-labgrid-exporter. Killing the exporter leaves the host up (its
# sshd and boards), as an exporter process dying on a real host does.
# Arguments: DIR NAME SSH_PORT COORDINATOR EXPORTER_YAML
set -u
dir=$1 name=$2 port=$3 coordinator=$4 config=$5
# The session of every ssh login gets the emulation's environment: the "host" is the
# emulation, so what runs on it must see its boards; and a scratch configuration.
cat >"$dir/sshd-$name.conf" <<CONF
ListenAddress 127.0.0.1
Port $port
HostKey $dir/host_key
AuthorizedKeysFile $dir/authorized_keys
PidFile $dir/sshd-$name.pid
PasswordAuthentication no
KbdInteractiveAuthentication no
PubkeyAuthentication yes
PermitRootLogin prohibit-password
UsePAM no
StrictModes no
Subsystem sftp internal-sftp
SetEnv "LD_PRELOAD=${LD_PRELOAD:-}" "UMOCKDEV_DIR=${UMOCKDEV_DIR:-}" "HAPBRIDGE_EMULATE_CONTROL=${HAPBRIDGE_EMULATE_CONTROL:-}" "XDG_CONFIG_HOME=$dir/config-$name"
CONF
mkdir -p "$dir/config-$name"
/usr/sbin/sshd -D -e -f "$dir/sshd-$name.conf" 2>"$dir/sshd-$name.log" &
sshd_pid=$!
trap 'kill $sshd_pid 2>/dev/null' EXIT INT TERM
hapbridge-labgrid-exporter --coordinator "$coordinator" --name "$name" --hostname "$name" "$config" \
    >"$dir/exporter-$name.log" 2>&1 &
echo $! >"$dir/exporter-$name.pid"
wait $!
echo "exporter exited $?" >>"$dir/exporter-$name.log"
# The host stays up until the farm ends it (SIGTERM from hapbridge emulate).
wait $sshd_pid
