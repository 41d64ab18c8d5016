"""The test process's own network namespace.

Packet tests move the pytest process into a new, private network namespace before any gRPC
thread exists. Every veth pair, switch process and socket they make lives there, switches are
reached on its loopback, and the kernel deletes it all when the last process in it exits.
"""
import subprocess

from private_netns import enter_private_namespace  # noqa: F401 (mininet/ is on the path)


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
