"""The base of packet tests (PTF style), as pytest fixtures.

`switch_under_test(program, n_ports)` starts a switch on veth pairs in the tests' own network
namespace, pushes the program, and connects a primary controller. `PacketTest` wraps it for one
test: entries it inserts are deleted afterwards, and no stray packet may be left over.
"""
import contextlib
import os
import tempfile

from . import netns
from .dataplane import Dataplane
from .p4rt import P4RuntimeClient
from switch_process import SwitchProcess


# (program, stopped switch) of every switch run with a fast path: the test session's summary says
# how many packets each program's switches finished in the kernel (conftest.py).
FAST_PATH_RUNS = []


class SwitchUnderTest:
    def __init__(self, switch, client, dataplane, p4info_path, device_config, links):
        self.links = links        # the veth names' prefix
        self.switch = switch
        self.client = client
        self.dataplane = dataplane
        self.p4info_path = p4info_path
        self.device_config = device_config


@contextlib.contextmanager
def switch_under_test(program, n_ports=4, device_id=1, fast_path=None, links="", require_fast_path=True):
    """`links` prefixes the veth names (the switch's swN, the test's tN), so that two switches
    can run side by side. With a fast path (`fast_path`, else NAT64FABRIC_FAST_PATH), the switch
    must have started it, unless `require_fast_path` is False (a test of the fall-back).

    At TC the test side of every odd port is in a namespace of its own, as a host's or a
    container's end is: the kernel program then redirects frames for those ports to the veth's
    other end (bpf_redirect_peer), and for the even ones out of the port (bpf_redirect), so the
    suites' traffic takes both ways."""
    netns.enter_private_namespace()
    mode = fast_path if fast_path is not None else os.environ.get("NAT64FABRIC_FAST_PATH", "")
    ports, apart = {}, {}
    for n in range(1, n_ports + 1):
        netns.delete_link(f"{links}sw{n}")
        netns.add_veth_pair(f"{links}sw{n}", f"{links}t{n}")
        ports[n] = f"{links}sw{n}"
        if mode == "tc" and n % 2 == 1:
            apart[n] = f"nf{os.getpid()}{links}h{n}"
            netns.move_to_namespace(f"{links}t{n}", apart[n])
    switch = client = dataplane = None
    try:
        switch = SwitchProcess(ports, device_id=device_id, fast_path=fast_path).start()
        p4info_path, device_config = switch.build_pipeline(program, tempfile.mkdtemp(prefix="nat64fabric-p4-"))
        client = P4RuntimeClient(switch.address, device_id)
        assert client.arbitrate().status.code == 0, "the first controller must become primary"
        client.set_pipeline(p4info_path, device_config)
        if require_fast_path:
            switch.expect_fast_path()
        dataplane = Dataplane({n: f"{links}t{n}" for n in ports}, apart)
        yield SwitchUnderTest(switch, client, dataplane, p4info_path, device_config, links)
    finally:
        if dataplane:
            dataplane.close()
        if client:
            client.close()
        if switch:
            switch.stop()
            if switch.fast_path:
                FAST_PATH_RUNS.append((program, switch))
        for name in ports.values():
            netns.delete_link(name)
        for ns in apart.values():
            netns.delete_namespace(ns)


@contextlib.contextmanager
def primary_of_a_bare_switch():
    """(switch, client): a switch without ports or pipeline, and its primary controller, for the
    tests of pipeline configs; both stopped afterwards."""
    switch = SwitchProcess({}).start()
    client = None
    try:
        client = P4RuntimeClient(switch.address, 1)
        assert client.arbitrate().status.code == 0, "the first controller must become primary"
        yield switch, client
    finally:
        if client:
            client.close()
        switch.stop()


class PacketTest:
    """One test's view of a switch: entries inserted here are deleted when the test ends."""

    def __init__(self, sut):
        self.sut = sut
        self.client = sut.client
        self.dataplane = sut.dataplane
        self._undo = []

    def insert(self, *entities):
        self.client.write(*(self.client.update("INSERT", e) for e in entities))
        self._undo.extend(self.client.update("DELETE", e) for e in entities)

    def modify(self, entity):
        """Modifies an entry; a default entry gets back the action it had before, afterwards."""
        if entity.HasField("table_entry") and entity.table_entry.is_default_action:
            query = type(entity)()
            query.table_entry.table_id = entity.table_entry.table_id
            query.table_entry.is_default_action = True
            (previous,) = self.client.read(query)
            self._undo.append(self.client.update("MODIFY", previous))
        self.client.write(self.client.update("MODIFY", entity))

    def send(self, port, packet):
        self.dataplane.send(port, packet)

    def verify_packet(self, packet, port):
        self.dataplane.verify_packet(packet, port)

    def verify_no_other_packets(self):
        self.dataplane.verify_no_other_packets()

    def cleanup(self):
        for update in reversed(self._undo):
            self.client.write(update)
        self._undo.clear()

    def finish(self, unread_packet_ins="fail"):
        """After a test: undo its entries, fail on stray packets, and fail on unread packet-ins
        (or, with unread_packet_ins="drain", drop them) so that nothing leaks into the next test."""
        self.cleanup()
        self.dataplane.verify_no_other_packets()
        if unread_packet_ins == "drain":
            while self.client.packet_in(timeout=0) is not None:
                pass
        else:
            leftover = self.client.packet_in(timeout=0)
            assert leftover is None, f"unexpected packet-in {leftover}"
