"""Watches one resource as a labgrid client session sees it and writes a JSON line each
time what it sees changes: {"t": time.monotonic(), "present", "avail", "identity"}.
The first line is written once the session is up. Runs until SIGTERM.

A process of its own: labgrid keeps one coordinator session per process, and a second
session beside a labgrid Environment's in the same process is not supported.

Arguments: COORDINATOR EXPORTER GROUP CLASS OUT_FILE
"""

from __future__ import annotations

import json
import signal
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from farm import ResourceWatch  # noqa: E402


def main() -> None:
    coordinator, exporter, group, cls, out = sys.argv[1:6]
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(True))
    watch = ResourceWatch(coordinator)
    last = None
    with open(out, "w", encoding="utf-8") as f:
        while not stop:
            entry = watch.entry(exporter, group, cls)  # pumps the session ~20 ms
            params = entry.get("params") or {}
            seen = {"present": bool(entry), "avail": bool(entry.get("avail")),
                    "identity": params.get("identity") if isinstance(params, dict) else None}
            if seen != last:
                f.write(json.dumps({"t": time.monotonic(), **seen}) + "\n")
                f.flush()
                last = seen
    watch.close()


if __name__ == "__main__":
    main()
