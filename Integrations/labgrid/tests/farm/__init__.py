"""A labgrid farm on loopback: a real labgrid coordinator on a free 127.0.0.1 port, and
exporter "hosts", each a ``hapbridge emulate bridge`` with boards whose COMMAND is an
sshd (key-only, throwaway, 127.0.0.1) and ``hapbridge-labgrid-exporter``. Nothing here
schedules or coordinates: labgrid's own coordinator and client do.

The client side reaches a host by its name (``bench-a``) through an ssh configuration
of the farm's own, put in front of ssh, scp and rsync by small wrappers on PATH
(labgrid runs ``ssh HOST`` and has no option for a configuration file).
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable

HERE = Path(__file__).resolve().parent
ID_PATH = "pci-0000:00:14.0-usb-0:{port}"  # what the emulation's udev record says for port N


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def hapbridge_executable() -> str:
    explicit = os.environ.get("HAPBRIDGE")
    found = explicit or shutil.which("hapbridge")
    if not found:
        raise RuntimeError("no hapbridge: set $HAPBRIDGE or put hapbridge on PATH "
                           "(scripts/test sets it to the checkout's .build/release/hapbridge)")
    return found


def missing_tool() -> str | None:
    """The first tool the loopback farm needs that is not installed, if any."""
    for tool in ("/usr/sbin/sshd", "ssh", "ssh-keygen", "rsync", "timeout", "labgrid-coordinator"):
        if shutil.which(tool) is None:
            return tool
    return None


def poll(condition: Callable[[], bool], bound: float, what: str, interval: float = 0.05) -> float:
    """Wait for condition() (generously bounded; never a fixed sleep); seconds taken."""
    start = time.monotonic()
    while True:
        if condition():
            return time.monotonic() - start
        if time.monotonic() - start > bound:
            raise TimeoutError(f"{what}: not within {bound:g} s")
        time.sleep(interval)


class LoopbackFarm:
    def __init__(self, root: Path, hosts: dict[str, int], actuator: str = "pmd-c10-100",
                 ft232h_hosts: dict[str, str] | None = None) -> None:
        self.root = root
        self.hosts = hosts
        # host name → the serial of the one FT232H `hapbridge emulate ft232h` plugs in there
        self.ft232h_hosts = ft232h_hosts or {}
        self.actuator = actuator
        self.hapbridge = hapbridge_executable()
        self.coordinator_port = free_port()
        self.coordinator = f"127.0.0.1:{self.coordinator_port}"
        self.ssh_ports = {name: free_port() for name in [*hosts, *self.ft232h_hosts]}
        self.processes: dict[str, subprocess.Popen[bytes]] = {}
        self.bin = root / "bin"
        self.env = dict(os.environ)

    # -- set-up ---------------------------------------------------------------------

    def _ssh_setup(self) -> None:
        for key in ("client_key", "host_key"):
            subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(self.root / key)], check=True)
        shutil.copy(self.root / "client_key.pub", self.root / "authorized_keys")
        host_pub = (self.root / "host_key.pub").read_text().split()
        known = "".join(f"{name} {host_pub[0]} {host_pub[1]}\n" for name in self.ssh_ports)
        (self.root / "known_hosts").write_text(known)
        config = []
        for name, port in self.ssh_ports.items():
            config += [f"Host {name}", "  HostName 127.0.0.1", f"  Port {port}", f"  HostKeyAlias {name}",
                       f"  IdentityFile {self.root / 'client_key'}", "  IdentitiesOnly yes",
                       f"  UserKnownHostsFile {self.root / 'known_hosts'}", "  StrictHostKeyChecking yes",
                       "  BatchMode yes", ""]
        (self.root / "ssh_config").write_text("\n".join(config))
        self.bin.mkdir()
        for tool in ("ssh", "scp"):
            wrapper = self.bin / tool
            wrapper.write_text(f"#!/bin/sh\nexec /usr/bin/{tool} -F {self.root / 'ssh_config'} \"$@\"\n")
            wrapper.chmod(0o755)
        # sshd started as root wants its privilege separation directory (Debian's service
        # makes it at boot).
        if os.geteuid() == 0:
            Path("/run/sshd").mkdir(mode=0o755, exist_ok=True)
        venv_bin = str(Path(sys.executable).parent)
        self.env["PATH"] = f"{self.bin}:{venv_bin}:{self.env.get('PATH', '/usr/bin:/bin')}"
        self.env["LG_COORDINATOR"] = self.coordinator
        self.env["HAPBRIDGE"] = self.hapbridge
        self.env.pop("LG_ENV", None)

    def _exporter_yaml(self, name: str, boards: int) -> Path:
        lines = []
        for port in range(1, boards + 1):
            lines += [f"port-{port}:", "  HapbridgeBoard:",
                      f"    match: {{ID_PATH: \"{ID_PATH.format(port=port)}\"}}",
                      f"    actuator: {self.actuator}", "    accelerometer_axis: x",
                      f"    hapbridge: {self.hapbridge}"]
        path = self.root / f"exporter-{name}.yaml"
        path.write_text("\n".join(lines) + "\n")
        return path

    def start(self) -> "LoopbackFarm":
        self._ssh_setup()
        log = open(self.root / "coordinator.log", "wb")
        self.processes["coordinator"] = subprocess.Popen(
            ["labgrid-coordinator", "--listen", self.coordinator], env=self.env, cwd=self.root,
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        poll(self._coordinator_listening, 30, "labgrid-coordinator listening on " + self.coordinator)
        for name, boards in self.hosts.items():
            self.start_host(name, boards)
        for name, serial in self.ft232h_hosts.items():
            self.start_ft232h_host(name, serial)
        for name, boards in self.hosts.items():
            for port in range(1, boards + 1):
                place = self.place(name, port)
                self.client("-p", place, "create")
                self.client("-p", place, "add-match", f"{name}/port-{port}/NetworkHapbridgeBoard")
        for name in self.ft232h_hosts:
            self.client("-p", f"{name}-ftdi", "create")
            self.client("-p", f"{name}-ftdi", "add-match", f"{name}/ftdi/NetworkHapbridgeFT232H")
        watch = ResourceWatch(self.coordinator)
        try:
            poll(lambda: all(watch.available(h, f"port-{p}") for h, b in self.hosts.items() for p in range(1, b + 1))
                 and all(watch.available(h, "ftdi", "HapbridgeFT232H") for h in self.ft232h_hosts),
                 60, "every board exported and available")
        finally:
            watch.close()
        return self

    def start_host(self, name: str, boards: int) -> None:
        config = self._exporter_yaml(name, boards)
        log = open(self.root / f"emulate-{name}.log", "wb")
        self.processes[name] = subprocess.Popen(
            [self.hapbridge, "emulate", "bridge", "--boards", str(boards), "--actuator", self.actuator,
             "--accelerometer", "--control-socket", str(self.control_socket(name)), "--",
             str(HERE / "host.sh"), str(self.root), name, str(self.ssh_ports[name]), self.coordinator, str(config)],
            env=self.env, cwd=self.root, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)

    def start_ft232h_host(self, name: str, serial: str) -> None:
        config = self.root / f"exporter-{name}.yaml"
        config.write_text("ftdi:\n  HapbridgeFT232H:\n"
                          f"    match: {{ID_SERIAL_SHORT: \"{serial}\"}}\n"
                          f"    actuator: {self.actuator}\n    hapbridge: {self.hapbridge}\n")
        log = open(self.root / f"emulate-{name}.log", "wb")
        self.processes[name] = subprocess.Popen(
            [self.hapbridge, "emulate", "ft232h", "--serial", serial, "--actuator", self.actuator, "--",
             str(HERE / "host.sh"), str(self.root), name, str(self.ssh_ports[name]), self.coordinator, str(config)],
            env=self.env, cwd=self.root, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)

    def _coordinator_listening(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.coordinator_port), timeout=0.5):
                return True
        except OSError:
            return False

    # -- use ----------------------------------------------------------------------------

    @staticmethod
    def place(host: str, port: int) -> str:
        return f"{host}-{port}"

    def control_socket(self, host: str) -> Path:
        return self.root / f"control-{host}.sock"

    def client(self, *args: str, user: str | None = None, check: bool = True,
               timeout: float = 60) -> subprocess.CompletedProcess[str]:
        env = dict(self.env)
        if user is not None:
            env["LG_USERNAME"] = user
        done = subprocess.run(["labgrid-client", *args], env=env, capture_output=True, text=True,
                              timeout=timeout, check=False)
        if check and done.returncode != 0:
            raise RuntimeError(f"labgrid-client {' '.join(args)} exited {done.returncode}: {done.stderr.strip()}")
        return done

    def emulate_control(self, host: str, *command: str) -> str:
        done = subprocess.run([self.hapbridge, "emulate", "control", "--socket", str(self.control_socket(host)),
                               *command], env=self.env, capture_output=True, text=True, timeout=30, check=True)
        return done.stdout

    def exporter_pid(self, host: str) -> int:
        return int((self.root / f"exporter-{host}.pid").read_text())

    def kill_exporter(self, host: str) -> None:
        os.kill(self.exporter_pid(host), signal.SIGKILL)

    def env_yaml(self, places: list[str]) -> Path:
        lines = ["targets:"]
        for place in places:
            lines += [f"  {place}:", "    resources:", f"      RemotePlace: {{name: {place}}}",
                      # detect_nfs off: the "hosts" share this file system, and files
                      # must still go over as they do to a real exporter's host.
                      "    drivers:", "      HapbridgeDriver: {detect_nfs: false}", "      HapbridgeStrategy: {}"]
        lines += ["imports:", "  - hapbridge_labgrid", "options:", f"  coordinator_address: {self.coordinator}"]
        path = self.root / "env.yaml"
        path.write_text("\n".join(lines) + "\n")
        return path

    def stop(self) -> None:
        for name, proc in reversed(list(self.processes.items())):
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        for name, proc in self.processes.items():
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=10)


class ResourceWatch:
    """labgrid's own client session (``labgrid.remote.client.start_session``), kept up to
    date by the coordinator's stream: what any labgrid client sees of a resource."""

    def __init__(self, coordinator: str) -> None:
        from labgrid.remote.client import start_session
        self.session = start_session(coordinator)

    def _pump(self) -> None:
        import asyncio
        self.session.loop.run_until_complete(asyncio.sleep(0.02))

    def entry(self, exporter: str, group: str, name: str = "HapbridgeBoard") -> dict[str, object]:
        self._pump()
        found = self.session.resources.get(exporter, {}).get(group, {}).get(name)
        return {} if found is None else dict(found.data)

    def available(self, exporter: str, group: str, name: str = "HapbridgeBoard") -> bool:
        return bool(self.entry(exporter, group, name).get("avail"))

    def close(self) -> None:
        import asyncio
        try:
            self.session.loop.run_until_complete(self.session.stop())
            self.session.loop.run_until_complete(self.session.close())
        except Exception:  # the coordinator may be gone at the end
            pass
        del asyncio
