"""What the test servers in scripts/ share: whether the process that started them still lives.

Each server polls `parent_alive` and exits when its parent is gone, so a crashed test run never
leaves a server behind. Imported by path-run scripts (their directory is on sys.path)."""
import json
import os
import sys
import time


def parent_alive(pid, original_parent):
    """Whether the watched process still runs. A dead process can linger as a zombie when nothing
    reaps it (PID 1 of some sandboxes does not), so kill(pid, 0) alone is not enough: check that we
    were not reparented and that /proc does not show the process as a zombie."""
    if pid == original_parent and os.getppid() != original_parent:
        return False
    try:
        os.kill(pid, 0)
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def announce_and_wait(ports, parent_pid):
    """Prints `ports` as the server's one line of JSON, closes stdout, and returns once `parent_pid`
    has exited (never, without one): the end of every test server's `main`."""
    print(json.dumps(ports), flush=True)
    sys.stdout.close()
    original_parent = os.getppid()
    while True:
        time.sleep(0.5)
        if parent_pid and not parent_alive(parent_pid, original_parent):
            return
