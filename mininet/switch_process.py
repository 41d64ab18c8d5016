"""One P4Runtime switch process, whichever target runs it; used by the Mininet switch class, the
test harness and the benchmarks (no Mininet import here).

    softswitch          bin/softswitch run (built by make build)
    simple_switch_grpc  BMv2, with pipelines built by p4c (both must be on PATH)
    stratum_bmv2        Stratum on BMv2, with a chassis config written beside the log

NAT64FABRIC_TARGET chooses the target when the caller does not. NAT64FABRIC_FAST_PATH=tc, xdp or
xdp-generic runs softswitch with its kernel fast path (softswitch run --fast-path).
"""
import collections
import os
import pathlib
import re
import shutil
import socket
import subprocess
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
SOFTSWITCH = ROOT / "bin" / "softswitch"
TARGETS = ("softswitch", "simple_switch_grpc", "stratum_bmv2")
# Mininet's switches take gRPC ports counted up from the first of these (p4switch.py); a private
# namespace keeps the kernel from handing them out as connections' local ports (private_netns.py).
SWITCH_GRPC_PORTS = range(50001, 51000)

# softswitch's pipelines by program (its path and text, and when each .p4 file beside it or below
# was changed, for what it includes), compiled once per process: a test run starts dozens of
# switches of one program.
_COMPILED = {}

# P4Runtime over TLS: the server's certificate and key (PEM), and with client_ca only clients
# holding a certificate of that CA are admitted (mutual TLS).
TlsFiles = collections.namedtuple("TlsFiles", "cert key client_ca", defaults=(None,))


def default_target():
    return os.environ.get("NAT64FABRIC_TARGET", "softswitch")


def free_tcp_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def port_taken(address, port):
    """Whether a socket, a listener's or a connection's, holds this TCP port now."""
    with socket.socket() as s:
        try:
            s.bind((address, port))
            return False
        except OSError:
            return True


class SwitchProcess:
    """A switch process on the given {port number: interface} map, stopped by its PID."""

    def __init__(self, ports, device_id=1, cpu_port=255, grpc_port=None, grpc_addr="127.0.0.1",
                 log_path=None, target=None, tls=None, fast_path=None):
        self.target = target or default_target()
        if self.target not in TARGETS:
            raise RuntimeError(f"NAT64FABRIC_TARGET={self.target!r}: choose one of {', '.join(TARGETS)}")
        self.ports = ports
        self.device_id = device_id
        self.cpu_port = cpu_port
        self.grpc_port = grpc_port or free_tcp_port()
        self.grpc_addr = grpc_addr
        self.tls = tls
        # softswitch's kernel fast path (--fast-path): the caller's choice, else NAT64FABRIC_FAST_PATH
        self.fast_path = fast_path if fast_path is not None else os.environ.get("NAT64FABRIC_FAST_PATH")
        # Where clients dial: the address itself, or loopback when it listens on every address.
        self.host = "127.0.0.1" if grpc_addr in ("0.0.0.0", "::") else grpc_addr
        self.address = f"{self.host}:{self.grpc_port}" if ":" not in self.host else f"[{self.host}]:{self.grpc_port}"
        self.log_path = pathlib.Path(log_path or pathlib.Path(tempfile.mkdtemp(prefix="nat64fabric-switch-"))
                                     / f"{self.target}-{device_id}.log")
        self.proc = None

    def softswitch_launcher(self):
        """How softswitch is started: bin/softswitch (a bench runs copied jars instead)."""
        if not SOFTSWITCH.exists():
            raise RuntimeError("bin/softswitch is missing: run `make build` first (make test does)")
        return [str(SOFTSWITCH)]

    def command(self):
        interfaces = [arg for port, name in sorted(self.ports.items()) for arg in ("-i", f"{port}@{name}")]
        tls = []
        if self.tls:
            if self.target == "stratum_bmv2":
                raise RuntimeError("TLS for stratum_bmv2 is not set up here (its flags differ)")
            tls = ["--grpc-server-ssl", "--grpc-server-cert", str(self.tls.cert), "--grpc-server-key", str(self.tls.key)]
            if self.tls.client_ca:
                tls += ["--grpc-server-cacert", str(self.tls.client_ca), "--grpc-server-with-client-auth"]
        if self.target == "softswitch":
            return [*self.softswitch_launcher(), "run", "--device-id", str(self.device_id), "--grpc-addr", self.grpc_addr,
                    "--grpc-port", str(self.grpc_port), "--cpu-port", str(self.cpu_port), *tls,
                    *(["--fast-path", self.fast_path] if self.fast_path else []), *interfaces]
        exe = shutil.which(self.target)
        if exe is None:
            raise RuntimeError(f"NAT64FABRIC_TARGET={self.target} but {self.target} is not on PATH")
        listen = f"{self.grpc_addr}:{self.grpc_port}"
        if self.target == "simple_switch_grpc":
            return [exe, "--device-id", str(self.device_id), *interfaces, "--no-p4", "--",
                    "--grpc-server-addr", listen, "--cpu-port", str(self.cpu_port), *tls]
        config = self.log_path.with_suffix(".chassis.txt")
        config.write_text(self._chassis_config())
        return [exe, f"-device_id={self.device_id}", f"-chassis_config_file={config}",
                f"-external_stratum_urls={listen}", f"-cpu_port={self.cpu_port}",
                f"-persistent_config_dir={self.log_path.with_suffix('.stratum')}",
                "-forwarding_pipeline_configs_file=/dev/null", "-write_req_log_file=/dev/null",
                "-bmv2_log_level=warn"]

    def _chassis_config(self):
        """stratum_bmv2's chassis config: one singleton port per interface."""
        lines = ['description: "nat64fabric"', 'chassis { platform: PLT_P4_SOFT_SWITCH name: "nat64fabric" }',
                 f'nodes {{ id: {self.device_id} slot: 1 index: 1 }}']
        for number, name in sorted(self.ports.items()):
            lines.append(f'singleton_ports {{ id: {number} name: "{name}" slot: 1 port: {number} channel: 1 '
                         f'speed_bps: 10000000000 config_params {{ admin_state: ADMIN_STATE_ENABLED }} '
                         f'node: {self.device_id} }}')
        return "\n".join(lines) + "\n"

    def start(self, timeout=60):
        """Starts the process and waits until its gRPC port accepts connections."""
        self.log = open(self.log_path, "w")
        self.proc = subprocess.Popen(self.command(), stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.target} exited with {self.proc.returncode} (log {self.log_path}):\n"
                                   f"{self.log_text()}")
            try:
                with socket.create_connection((self.host, self.grpc_port), timeout=0.2):
                    return self
            except OSError:
                time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"{self.target} did not open its gRPC port in {timeout} s (log {self.log_path}):\n"
                           f"{self.log_text()}")

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

    def expect_fast_path(self):
        """After a pipeline was set: raises unless softswitch runs it in the kernel as asked (a
        switch that fell back to its interpreter would pass a suite meant for the fast path)."""
        if not self.fast_path:
            return
        text = self.log_text()
        if not re.search(r"fast path: (XDP|TC ingress) \(" + re.escape(self.fast_path) + r"\) on ", text):
            off = re.findall(r"fast path off.*", text)
            raise RuntimeError(f"--fast-path {self.fast_path} was asked for but did not start: "
                               f"{off[-1] if off else 'no fast path line'} (log {self.log_path})")

    def final_counters(self):
        """Stops the switch; the counters softswitch prints when it stops, by name."""
        self.stop()
        text = self.log_text()
        if "softswitch stopped; counters:" not in text:
            raise RuntimeError(f"{self.target} printed no counters when stopped (log {self.log_path}):\n{text}")
        tail = text.split("softswitch stopped; counters:")[1]
        return {m.group(1): int(m.group(2)) for m in re.finditer(r"^  (.+): (\d+)$", tail, re.M)}

    def build_pipeline(self, program, out_dir):
        """(P4Info path, p4_device_config bytes) of a program, made by this target's compiler."""
        out_dir = pathlib.Path(out_dir)
        if self.target == "softswitch":
            source = pathlib.Path(program).resolve()
            key = (str(source), source.read_bytes(),
                   tuple(sorted((str(f), f.stat().st_mtime_ns) for f in source.parent.rglob("*.p4"))))
            if key not in _COMPILED:
                proc = subprocess.run([str(SOFTSWITCH), "compile", str(program), "--out-dir", str(out_dir)],
                                      capture_output=True, text=True)
                if proc.returncode != 0:
                    raise RuntimeError(f"softswitch compile {program} failed:\n{proc.stderr}")
                _COMPILED[key] = ((out_dir / "p4info.txt").read_bytes(), (out_dir / "device_config.bin").read_bytes())
            p4info, device_config = _COMPILED[key]
            out_dir.mkdir(parents=True, exist_ok=True)
            (out_dir / "p4info.txt").write_bytes(p4info)
            (out_dir / "device_config.bin").write_bytes(device_config)
            return out_dir / "p4info.txt", device_config
        if self.target == "stratum_bmv2":
            raise RuntimeError("building a stratum_bmv2 pipeline config is not supported here; push it with ONOS")
        p4c = shutil.which("p4c")
        if p4c is None:
            raise RuntimeError("NAT64FABRIC_TARGET=simple_switch_grpc needs p4c on PATH to build the pipeline")
        subprocess.run([p4c, "--target", "bmv2", "--arch", "v1model", "-o", str(out_dir),
                        "--p4runtime-files", str(out_dir / "p4info.txt"), str(program)], check=True)
        return out_dir / "p4info.txt", (out_dir / (pathlib.Path(program).stem + ".json")).read_bytes()
