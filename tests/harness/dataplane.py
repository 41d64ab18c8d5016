"""The test side of the veth pairs: send frames into switch ports, verify what comes out."""
import errno
import select
import socket
import time

from scapy.layers.inet import IP
from scapy.layers.l2 import Ether

from . import netns

ETH_P_ALL = 0x0003
DEFAULT_TIMEOUT = 2.0
# How long a port must stay silent before "no other packets" is believed.
QUIET_TIME = 0.3


def _describe(frame):
    return Ether(frame).summary() if frame else "(nothing)"


class DrawnIdentification:
    """An expected frame whose outer IPv4 Identification the switch draws itself (RFC 7915 5.1: a
    packet translated from IPv6 without a Fragment header, or an ICMP error the switch sends). It
    matches a frame that is `packet` but for that field, with the header checksum right for the
    value drawn; layers are looked up in `packet` (expected[ICMP])."""

    def __init__(self, packet):
        self.packet = packet

    def __getitem__(self, layer):
        return self.packet[layer]

    def __contains__(self, layer):
        return layer in self.packet

    def as_received(self, frame):
        """The bytes `frame` must be: `packet` with the Identification `frame` carries."""
        p = self.packet.copy()
        at = len(p) - len(p[IP]) + 4
        p[IP].id = int.from_bytes(frame[at:at + 2], "big") if len(frame) >= at + 2 else 0
        p[IP].chksum = None
        return bytes(p)


def expected_bytes(expected, frame):
    """The bytes `frame` must be to match `expected` (a packet, bytes or a DrawnIdentification)."""
    if isinstance(expected, DrawnIdentification):
        return expected.as_received(frame or b"")
    return bytes(expected)


class Dataplane:
    """One raw socket per switch port, on the test-side interface of that port's veth pair; in
    `namespaces[port]` where that end is in a namespace of its own."""

    def __init__(self, interfaces, namespaces=None):
        self.sockets = {}
        for port, name in interfaces.items():
            # Protocol 0 until bound: a socket opened for ETH_P_ALL sees every interface's frames
            # (loopback gRPC included) until bind() narrows it to one.
            with netns.inside((namespaces or {}).get(port)):
                s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0)
                s.bind((name, ETH_P_ALL))
            s.setblocking(False)
            self.sockets[port] = s
        self.pending = {port: [] for port in interfaces}

    def close(self):
        for s in self.sockets.values():
            s.close()

    def send(self, port, packet):
        self.sockets[port].send(bytes(packet))

    def _drain(self, timeout):
        """Moves frames that arrive within `timeout` into the pending queues; True if any came."""
        ready, _, _ = select.select(list(self.sockets.values()), [], [], timeout)
        for s in ready:
            port = next(p for p, x in self.sockets.items() if x is s)
            while True:
                try:
                    frame, addr = s.recvfrom(65535)
                except BlockingIOError:
                    break
                except OSError as e:
                    if e.errno != errno.ENETDOWN:   # a test took the link down: nothing to read
                        raise
                    break
                if addr[2] != socket.PACKET_OUTGOING:
                    self.pending[port].append(frame)
        return bool(ready)

    def poll(self, port, timeout=DEFAULT_TIMEOUT):
        """The next frame that left the switch on `port`, or None after `timeout` seconds."""
        deadline = time.monotonic() + timeout
        while not self.pending[port]:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            self._drain(left)
        return self.pending[port].pop(0)

    def verify_packet(self, expected, port, timeout=DEFAULT_TIMEOUT):
        """The next frame on `port` is byte for byte `expected` (see expected_bytes)."""
        got = self.poll(port, timeout)
        want = expected_bytes(expected, got)
        if got != want:
            detail = ""
            if got:
                first = next((i for i, (a, b) in enumerate(zip(want, got)) if a != b), min(len(want), len(got)))
                detail = (f"\nfirst difference at byte {first} (lengths {len(want)}, {len(got)}): "
                          f"expected {want[first:first + 8].hex()}, got {got[first:first + 8].hex()}"
                          "\n--- expected\n" + Ether(want).show2(dump=True) + "--- got\n" + Ether(got).show2(dump=True))
            raise AssertionError(f"port {port}: expected {_describe(want)}, got {_describe(got)}{detail}")

    def verify_no_other_packets(self, quiet=QUIET_TIME):
        """No frame is waiting on any port, and none arrives within `quiet` seconds."""
        self._drain(quiet)
        extra = {p: q for p, q in self.pending.items() if q}
        if extra:
            lines = [f"port {p}: {_describe(f)}" for p, q in extra.items() for f in q]
            for q in self.pending.values():
                q.clear()
            raise AssertionError("unexpected packets:\n  " + "\n  ".join(lines))

    def verify_no_packet(self, port, quiet=QUIET_TIME):
        frame = self.poll(port, quiet)
        if frame is not None:
            raise AssertionError(f"port {port}: expected nothing, got {_describe(frame)}")
