"""A private network namespace for the calling process, so that a demo or a test run makes its
links, switches and sockets where nothing else lives, and the kernel removes them all when the
last process in it exits."""
import ctypes
import os
import subprocess

from switch_process import SWITCH_GRPC_PORTS

CLONE_NEWNET = 0x40000000
_entered = False


def enter_private_namespace():
    """Moves this process into a fresh network namespace (once); raises with advice when it cannot."""
    global _entered
    if _entered:
        return
    if len(os.listdir("/proc/self/task")) != 1:
        raise RuntimeError("enter the private network namespace before any thread starts")
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(CLONE_NEWNET) != 0:
        err = ctypes.get_errno()
        raise RuntimeError(f"cannot create a network namespace ({os.strerror(err)}): "
                           "run as root (CAP_SYS_ADMIN and CAP_NET_ADMIN)")
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    # The switches' gRPC ports are never a connection's local port here (one left in TIME_WAIT by a
    # torn-down fabric refused the next fabric's switch its port).
    with open("/proc/sys/net/ipv4/ip_local_reserved_ports", "w") as f:
        f.write(f"{SWITCH_GRPC_PORTS.start}-{SWITCH_GRPC_PORTS.stop - 1}")
    _entered = True
