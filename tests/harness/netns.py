"""The test process's own network namespace.

Packet tests move the pytest process into a new, private network namespace before any gRPC
thread exists. Every veth pair, switch process and socket they make lives there, switches are
reached on its loopback, and the kernel deletes it all when the last process in it exits.
"""
import contextlib
import ctypes
import os
import subprocess

from private_netns import CLONE_NEWNET, enter_private_namespace  # noqa: F401 (mininet/ is on the path)


def run(*cmd):
    """Runs a command inside the namespace; raises with its stderr when it fails."""
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed: {proc.stderr.strip()}")
    return proc.stdout


def quiet_interface(name):
    """No IPv6 (no router or neighbour solicitations), no offloads: only the test's frames cross it."""
    run("sysctl", "-q", "-w", f"net.ipv6.conf.{name}.disable_ipv6=1")
    run("ethtool", "-K", name, "tx", "off", "rx", "off", "tso", "off", "gso", "off", "gro", "off")
    run("ip", "link", "set", name, "up")


def add_veth_pair(switch_side, test_side):
    run("ip", "link", "add", switch_side, "type", "veth", "peer", "name", test_side)
    for name in (switch_side, test_side):
        quiet_interface(name)


def delete_link(name):
    subprocess.run(["ip", "link", "del", name], capture_output=True)


def move_to_namespace(link, ns):
    """Moves a test-side veth end into namespace `ns` (made here; `delete_namespace` removes it and
    the veth pair with it), quiet as `quiet_interface` makes it."""
    run("ip", "netns", "add", ns)
    run("ip", "link", "set", link, "netns", ns)
    inside = ("ip", "netns", "exec", ns)
    run(*inside, "sysctl", "-q", "-w", f"net.ipv6.conf.{link}.disable_ipv6=1")
    run(*inside, "ethtool", "-K", link, "tx", "off", "rx", "off", "tso", "off", "gso", "off", "gro", "off")
    run(*inside, "ip", "link", "set", link, "up")


def delete_namespace(ns):
    subprocess.run(["ip", "netns", "del", ns], capture_output=True)


@contextlib.contextmanager
def inside(ns):
    """This thread in namespace `ns` meanwhile (None: where it is): a socket made here stays in `ns`."""
    if ns is None:
        yield
        return
    libc = ctypes.CDLL(None, use_errno=True)
    with open("/proc/thread-self/ns/net") as own, open(f"/run/netns/{ns}") as other:
        if libc.setns(other.fileno(), CLONE_NEWNET) != 0:
            raise OSError(ctypes.get_errno(), f"cannot enter network namespace {ns}: {os.strerror(ctypes.get_errno())}")
        try:
            yield
        finally:
            if libc.setns(own.fileno(), CLONE_NEWNET) != 0:
                raise OSError(ctypes.get_errno(), "cannot return to the tests' network namespace")
