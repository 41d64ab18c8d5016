"""Mininet nodes for P4Runtime fabrics.

P4RuntimeSwitch runs one switch process per Mininet switch: softswitch from this checkout, or
stratum_bmv2 / simple_switch_grpc when NAT64FABRIC_TARGET names one of them and it is on PATH.
Every switch gets its own gRPC port and log file and is stopped by its PID. P4Host turns checksum
offload off, since frames reach a userspace switch before any NIC would fill checksums in.
"""
import os
import pathlib
import shutil
import socket
import subprocess
import time

from mininet.log import info
from mininet.node import Host, Switch

ROOT = pathlib.Path(__file__).resolve().parent.parent
SOFTSWITCH = ROOT / "bin" / "softswitch"
TARGETS = ("softswitch", "simple_switch_grpc", "stratum_bmv2")


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

    next_grpc_port = 50001

    def __init__(self, name, device_id=None, grpc_port=None, cpu_port=255, target=None, log_dir="/tmp",
                 **params):
        super().__init__(name, **params)
        self.device_id = device_id if device_id is not None else int(self.dpid, 16)
        if grpc_port is None:
            grpc_port = P4RuntimeSwitch.next_grpc_port
            P4RuntimeSwitch.next_grpc_port += 1
        self.grpc_port = grpc_port
        self.cpu_port = cpu_port
        self.target = target or os.environ.get("NAT64FABRIC_TARGET", "softswitch")
        if self.target not in TARGETS:
            raise ValueError(f"target {self.target!r}: choose one of {', '.join(TARGETS)}")
        self.log_path = pathlib.Path(log_dir) / f"{name}.log"
        self.proc = None

    def data_ports(self):
        """{port number: interface name} of the data ports (not the loopback)."""
        return {self.ports[intf]: intf.name for intf in self.intfList() if intf.name != "lo"}

    def command(self):
        interfaces = [arg for number, name in sorted(self.data_ports().items()) for arg in ("-i", f"{number}@{name}")]
        if self.target == "softswitch":
            if not SOFTSWITCH.exists():
                raise RuntimeError("bin/softswitch is missing: run `make build`")
            return [str(SOFTSWITCH), "run", "--device-id", str(self.device_id), "--grpc-port", str(self.grpc_port),
                    "--cpu-port", str(self.cpu_port), *interfaces]
        exe = shutil.which(self.target)
        if exe is None:
            raise RuntimeError(f"{self.target} is not on PATH")
        if self.target == "simple_switch_grpc":
            return [exe, "--device-id", str(self.device_id), *interfaces, "--no-p4", "--",
                    "--grpc-server-addr", f"0.0.0.0:{self.grpc_port}", "--cpu-port", str(self.cpu_port)]
        config = self.log_path.with_suffix(".chassis.txt")
        config.write_text(self._chassis_config())
        return [exe, f"-device_id={self.device_id}", f"-chassis_config_file={config}",
                f"-external_stratum_urls=0.0.0.0:{self.grpc_port}", f"-cpu_port={self.cpu_port}",
                f"-persistent_config_dir={self.log_path.parent / (self.name + '-stratum')}",
                "-forwarding_pipeline_configs_file=/dev/null", "-write_req_log_file=/dev/null",
                "-bmv2_log_level=warn"]

    def _chassis_config(self):
        """stratum_bmv2's chassis config: one singleton port per Mininet interface."""
        lines = ['description: "nat64fabric mininet"', f'chassis {{ platform: PLT_P4_SOFT_SWITCH name: "{self.name}" }}',
                 f'nodes {{ id: {self.device_id} slot: 1 index: 1 }}']
        for number, name in sorted(self.data_ports().items()):
            lines.append(f'singleton_ports {{ id: {number} name: "{name}" slot: 1 port: {number} channel: 1 '
                         f'speed_bps: 10000000000 config_params {{ admin_state: ADMIN_STATE_ENABLED }} '
                         f'node: {self.device_id} }}')
        return "\n".join(lines) + "\n"

    def start(self, controllers):
        for name in self.data_ports().values():
            _offload_off(self, name)
        self.log = open(self.log_path, "w")
        self.proc = subprocess.Popen(self.command(), stdout=self.log, stderr=subprocess.STDOUT)
        info(f"*** {self.name}: {self.target} pid {self.proc.pid}, P4Runtime 127.0.0.1:{self.grpc_port}, "
             f"log {self.log_path}\n")
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.name}: {self.target} exited ({self.proc.returncode}); see {self.log_path}")
            try:
                with socket.create_connection(("127.0.0.1", self.grpc_port), timeout=0.2):
                    return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError(f"{self.name}: no gRPC port after 60 s; see {self.log_path}")

    def stop(self, deleteIntfs=True):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            self.log.close()
        super().stop(deleteIntfs)
