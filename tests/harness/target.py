"""The switch under test: softswitch by default, simple_switch_grpc when NAT64FABRIC_TARGET says so.

    NAT64FABRIC_TARGET=softswitch          bin/softswitch run (built by make build)
    NAT64FABRIC_TARGET=simple_switch_grpc  BMv2's simple_switch_grpc and p4c, which must be on PATH
"""
import os
import pathlib
import shutil
import socket
import subprocess
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
SOFTSWITCH = ROOT / "bin" / "softswitch"
TARGET = os.environ.get("NAT64FABRIC_TARGET", "softswitch")
TARGETS = ("softswitch", "simple_switch_grpc")


def free_tcp_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class SwitchProcess:
    """A switch process on the given interfaces, stopped by its PID."""

    def __init__(self, ports, device_id=1, cpu_port=255, log_dir=None, target=TARGET):
        if target not in TARGETS:
            raise RuntimeError(f"NAT64FABRIC_TARGET={target!r}: choose one of {', '.join(TARGETS)}")
        self.target = target
        self.ports = ports
        self.device_id = device_id
        self.cpu_port = cpu_port
        self.grpc_port = free_tcp_port()
        self.address = f"127.0.0.1:{self.grpc_port}"
        self.log_dir = pathlib.Path(log_dir or tempfile.mkdtemp(prefix="nat64fabric-switch-"))
        self.log_path = self.log_dir / f"{target}-{device_id}.log"
        self.proc = None

    def command(self):
        interfaces = [arg for port, name in sorted(self.ports.items()) for arg in ("-i", f"{port}@{name}")]
        if self.target == "softswitch":
            if not SOFTSWITCH.exists():
                raise RuntimeError("bin/softswitch is missing: run `make build` first (make test does)")
            return [str(SOFTSWITCH), "run", "--device-id", str(self.device_id), "--grpc-addr", "127.0.0.1",
                    "--grpc-port", str(self.grpc_port), "--cpu-port", str(self.cpu_port), *interfaces]
        exe = shutil.which("simple_switch_grpc")
        if exe is None:
            raise RuntimeError("NAT64FABRIC_TARGET=simple_switch_grpc but simple_switch_grpc is not on PATH")
        return [exe, "--device-id", str(self.device_id), *interfaces, "--no-p4", "--",
                "--grpc-server-addr", self.address, "--cpu-port", str(self.cpu_port)]

    def start(self, timeout=60):
        self.log = open(self.log_path, "w")
        self.proc = subprocess.Popen(self.command(), stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.target} exited with {self.proc.returncode}:\n{self.log_text()}")
            try:
                with socket.create_connection(("127.0.0.1", self.grpc_port), timeout=0.2):
                    return self
            except OSError:
                time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"{self.target} did not open its gRPC port in {timeout} s:\n{self.log_text()}")

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.proc:
            self.log.close()

    def log_text(self):
        return self.log_path.read_text() if self.log_path.exists() else ""

    def build_pipeline(self, program, out_dir):
        """(P4Info path, p4_device_config bytes) of a program, made by this target's compiler."""
        out_dir = pathlib.Path(out_dir)
        if self.target == "softswitch":
            proc = subprocess.run([str(SOFTSWITCH), "compile", str(program), "--out-dir", str(out_dir)],
                                  capture_output=True, text=True)
            if proc.returncode != 0:
                raise RuntimeError(f"softswitch compile {program} failed:\n{proc.stderr}")
            return out_dir / "p4info.txt", (out_dir / "device_config.bin").read_bytes()
        p4c = shutil.which("p4c")
        if p4c is None:
            raise RuntimeError("NAT64FABRIC_TARGET=simple_switch_grpc needs p4c on PATH to build the pipeline")
        subprocess.run([p4c, "--target", "bmv2", "--arch", "v1model", "-o", str(out_dir),
                        "--p4runtime-files", str(out_dir / "p4info.txt"), str(program)], check=True)
        return out_dir / "p4info.txt", (out_dir / (pathlib.Path(program).stem + ".json")).read_bytes()
