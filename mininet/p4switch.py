"""Mininet nodes for P4Runtime fabrics.

P4RuntimeSwitch runs one switch process per Mininet switch: softswitch from this checkout, or
stratum_bmv2 / simple_switch_grpc when NAT64FABRIC_TARGET names one of them and it is on PATH.
Every switch gets its own gRPC port and log file and is stopped by its PID. P4Host turns checksum
offload off, since frames reach a userspace switch before any NIC would fill checksums in.
"""
import pathlib

from mininet.log import info
from mininet.node import Host, Switch

from switch_process import SWITCH_GRPC_PORTS, TARGETS, SwitchProcess, default_target, port_taken


def _offload_off(node, intf):
    node.cmd(f"ethtool -K {intf} tx off rx off tso off gso off gro off >/dev/null 2>&1")


class P4Host(Host):
    """A host whose interfaces carry real checksums, and no IPv6 router solicitations."""

    def config(self, **params):
        result = super().config(**params)
        for intf in self.intfList():
            _offload_off(self, intf.name)
        return result


class P4RuntimeSwitch(Switch):
    """A P4Runtime switch; the controller connects to 127.0.0.1:grpc_port as device_id."""

    next_grpc_port = SWITCH_GRPC_PORTS.start

    def __init__(self, name, device_id=None, grpc_port=None, cpu_port=255, target=None, log_dir="/tmp",
                 grpc_addr="127.0.0.1", **params):
        super().__init__(name, **params)
        self.device_id = device_id if device_id is not None else int(self.dpid, 16)
        if grpc_port is None:
            grpc_port = P4RuntimeSwitch._next_free_port(grpc_addr)
        self.grpc_port = grpc_port
        # Loopback: the embedded controller (and ONOS with host networking) runs on this host. A
        # controller elsewhere needs grpc_addr="0.0.0.0", and then anyone who reaches the port can
        # program the switch.
        self.grpc_addr = grpc_addr
        self.cpu_port = cpu_port
        self.target = target or default_target()
        if self.target not in TARGETS:
            raise ValueError(f"target {self.target!r}: choose one of {', '.join(TARGETS)}")
        self.log_path = pathlib.Path(log_dir) / f"{name}.log"
        self.process = None

    @classmethod
    def _next_free_port(cls, grpc_addr):
        """The next port of the count that nothing holds now (outside a private namespace, another
        program's connection may)."""
        while port_taken(grpc_addr, cls.next_grpc_port):
            cls.next_grpc_port += 1
        port = cls.next_grpc_port
        cls.next_grpc_port += 1
        return port

    def data_ports(self):
        """{port number: interface name} of the data ports (not the loopback)."""
        return {self.ports[intf]: intf.name for intf in self.intfList() if intf.name != "lo"}

    def start(self, controllers):
        for name in self.data_ports().values():
            _offload_off(self, name)
        self.process = SwitchProcess(self.data_ports(), device_id=self.device_id, cpu_port=self.cpu_port,
                                  grpc_port=self.grpc_port, grpc_addr=self.grpc_addr, log_path=self.log_path,
                                  target=self.target).start()
        info(f"*** {self.name}: {self.target} pid {self.process.proc.pid}, P4Runtime {self.grpc_addr}:{self.grpc_port}, "
             f"log {self.log_path}\n")

    def stop(self, deleteIntfs=True):
        if self.process:
            self.process.stop()
        super().stop(deleteIntfs)
