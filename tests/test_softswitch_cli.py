"""softswitch's command line driven from another codebase: P4Info read by the PyPI p4runtime
package, the offline runner fed and checked with scapy, errors located and free of stack traces."""
from google.protobuf import text_format
from p4.config.v1 import p4info_pb2
from scapy.layers.inet import IP, UDP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import Ether
from scapy.utils import rdpcap, wrpcap

from conftest import ROOT

L3 = ROOT / "softswitch" / "examples" / "l3_forwarding.p4"
ENTRIES = ROOT / "softswitch" / "examples" / "l3_forwarding.entries.txt"
BROKEN = ROOT / "softswitch" / "src" / "test" / "resources" / "broken"


def test_p4info_is_read_by_the_p4runtime_package(softswitch, tmp_path):
    out = tmp_path / "p4info.txt"
    softswitch("p4info", L3, "-o", out)
    info = text_format.Parse(out.read_text(), p4info_pb2.P4Info())
    tables = {t.preamble.name: t for t in info.tables}
    assert set(tables) == {"L3Ingress.ipv4_lpm", "L3Ingress.ipv6_lpm", "L3Ingress.acl"}
    assert tables["L3Ingress.ipv6_lpm"].match_fields[0].bitwidth == 128
    assert tables["L3Ingress.ipv6_lpm"].idle_timeout_behavior == p4info_pb2.Table.NOTIFY_CONTROL
    actions = {a.preamble.id: a.preamble.name for a in info.actions}
    assert {actions[r.id] for r in tables["L3Ingress.ipv4_lpm"].action_refs} == {
        "L3Ingress.set_next_hop_v4", "L3Ingress.send_to_cpu", "L3Ingress.drop"}
    packet_in = [c for c in info.controller_packet_metadata if c.preamble.name == "packet_in"][0]
    assert [(m.name, m.bitwidth) for m in packet_in.metadata] == [("ingress_port", 9), ("_pad", 7)]


def test_p4info_marks_initial_entries_and_leaves_them_out_for_p4runtime_1_3(softswitch, tmp_path):
    """P4Runtime 1.4's has_initial_entries and initial_default_action, read by the 1.4 package;
    --p4runtime-version 1.3 leaves them out for readers on 1.3's classes (ONOS 2.7), the rest the same."""
    program = ROOT / "softswitch" / "src" / "test" / "resources" / "p4info" / "initial_entries.p4"
    infos = {}
    for version in ("1.4", "1.3"):
        out = tmp_path / f"p4info-{version}.txt"
        softswitch("p4info", program, "-o", out, "--p4runtime-version", version)
        infos[version] = text_format.Parse(out.read_text(), p4info_pb2.P4Info())
    assert [(t.preamble.name, t.is_const_table, t.has_initial_entries) for t in infos["1.4"].tables] == [
        ("I.fixed", True, True), ("I.seeded", False, True), ("I.empty", False, False), ("I.none", False, False)]
    assert not any(t.has_initial_entries for t in infos["1.3"].tables)
    assert [t.initial_default_action.action_id for t in infos["1.4"].tables] == [
        a.preamble.id for t in infos["1.4"].tables for a in infos["1.4"].actions if a.preamble.name == "NoAction"]
    for t in infos["1.4"].tables:
        t.has_initial_entries = False
        t.ClearField("initial_default_action")
    assert infos["1.4"] == infos["1.3"]


def test_p4info_text_of_an_initial_default_action_is_read_by_the_p4runtime_package(softswitch, tmp_path):
    """Table.initial_default_action (P4Runtime 1.4) in the text softswitch writes: arguments whose
    bytes would also parse as a message (0x08, 0x0808) stay bytes."""
    out = tmp_path / "p4info.txt"
    softswitch("p4info", ROOT / "softswitch" / "src" / "test" / "resources" / "p4info" / "aliases_and_defaults.p4", "-o", out)
    info = text_format.Parse(out.read_text(), p4info_pb2.P4Info())
    t = next(t for t in info.tables if t.preamble.name == "I.t")
    assert [(a.param_id, a.value) for a in t.initial_default_action.arguments] == [(1, b"\x08"), (2, b"\x08\x08")]
    assert t.initial_default_action.action_id == next(a.preamble.id for a in info.actions if a.preamble.name == "I.set")


def test_sim_forwards_and_punts(softswitch, tmp_path):
    mac = dict(src="00:00:00:00:bb:01", dst="00:00:00:00:aa:01")
    packets = [
        Ether(**mac) / IP(src="192.168.0.1", dst="10.1.2.3", ttl=64) / UDP(sport=1000, dport=53) / b"query",
        Ether(**mac) / IP(src="192.168.0.1", dst="10.200.0.1", ttl=64) / UDP(sport=1000, dport=53),
        Ether(**mac) / IP(src="192.168.0.1", dst="11.0.0.1", ttl=64) / UDP(),          # no route: dropped
        Ether(**mac) / IP(src="192.168.0.1", dst="10.1.2.3", ttl=1) / UDP(),           # TTL expires: to CPU
        Ether(**mac) / IPv6(src="fd00::1", dst="2001:db8::99", hlim=9) / UDP(sport=7, dport=7),
    ]
    for i, p in enumerate(packets):
        p.time = 1_700_000_000 + i
    wrpcap(str(tmp_path / "in.pcap"), packets)
    out = tmp_path / "out"
    proc = softswitch("sim", L3, "--entries", ENTRIES, "--input", f"1:{tmp_path / 'in.pcap'}", "--output-dir", out)
    assert "packets in: 5" in proc.stdout
    assert "drop: ingress" in proc.stdout

    port3 = rdpcap(str(out / "port3.pcap"))
    assert len(port3) == 1
    got = Ether(bytes(port3[0]))
    assert got[IP].ttl == 63
    assert got.src == "00:00:00:00:cc:02" and got.dst == "00:00:00:00:dd:02"
    recomputed = IP(bytes(got[IP]))
    del recomputed.chksum
    assert IP(bytes(recomputed)).chksum == got[IP].chksum, "the switch's IPv4 checksum equals scapy's"
    assert bytes(got[UDP].payload) == b"query"

    assert len(rdpcap(str(out / "port2.pcap"))) == 1
    v6 = Ether(bytes(rdpcap(str(out / "port4.pcap"))[0]))
    assert v6[IPv6].hlim == 8

    cpu = rdpcap(str(out / "cpu.pcap"))
    assert len(cpu) == 1
    assert (out / "cpu.txt").read_text().strip() == "ingress_port=1 _pad=0"
    assert bytes(cpu[0])[2:] == bytes(packets[3]), "packet_in header, then the original frame"


def test_broken_programs_get_located_errors_not_stack_traces(softswitch):
    """What the command line adds to the frontend's messages: each on stderr as file:line:col,
    exit status 1, no stack trace. Every fifth program of the corpus (the frontend's message for
    each of them is TypeErrorCorpusTest's, in process, without a JVM per program)."""
    for f in sorted(BROKEN.glob("*.p4"))[::5]:
        proc = softswitch("check", f, check=False)
        assert proc.returncode == 1, f
        expected = f.read_text().splitlines()[0].removeprefix("// expect: ")
        assert proc.stderr.strip() == f"{f}:{expected}"
        assert "Exception" not in proc.stderr and "\tat " not in proc.stderr


def test_bad_entries_are_reported_with_their_p4runtime_code(softswitch, tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text('entities { table_entry { table_id: 1 } }\n')
    wrpcap(str(tmp_path / "in.pcap"), [Ether() / IP()])
    proc = softswitch("sim", L3, "--entries", bad, "--input", tmp_path / "in.pcap", "--output-dir", tmp_path / "o",
                      check=False)
    assert proc.returncode == 1
    assert "NOT_FOUND" in proc.stderr and "entity 1: no table with ID 1" in proc.stderr


def test_run_refuses_bad_setups_in_one_line(softswitch, tmp_path):
    """softswitch run: a missing interface, a taken gRPC port, a program that does not compile."""
    import socket
    missing = softswitch("run", "-i", "1@nosuch0", "--grpc-port", "0", check=False)
    assert missing.returncode == 1
    assert missing.stderr.strip() == "softswitch: interface nosuch0 does not exist (see 'ip link')"
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        busy = softswitch("run", "--grpc-addr", "127.0.0.1", "--grpc-port", port, check=False)
    assert busy.returncode == 1
    assert f"cannot listen on 127.0.0.1:{port}" in busy.stderr and "another switch" in busy.stderr
    broken = BROKEN / sorted(p.name for p in BROKEN.glob("*.p4"))[0]
    bad = softswitch("run", "--grpc-port", "0", "--p4", broken, check=False)
    expected = broken.read_text().splitlines()[0].removeprefix("// expect: ")
    assert bad.returncode == 1 and f"{broken}:{expected}" in bad.stderr
    for proc in (missing, busy, bad):
        assert "Exception" not in proc.stderr and "\tat " not in proc.stderr
    usage = softswitch("run", "--bogus", check=False)
    assert usage.returncode == 2 and "unknown option --bogus" in usage.stderr


def test_fast_path_c_is_the_c_clang_compiles_for_the_program(softswitch, tmp_path):
    """softswitch fast-path-c writes the kernel fast path's C for a program and hook, and the clang
    command softswitch run compiles it with (compile.sh): the C compiles with it into a
    little-endian BPF object, and defines the entry the loader attaches."""
    import subprocess
    for hook, section in (("tc", 'SEC("tc")'), ("xdp", 'SEC("xdp")')):
        out = tmp_path / hook
        softswitch("fast-path-c", L3, "--hook", hook, "--out-dir", out)
        c = (out / "fast_path.c").read_text()
        assert section in c and "int softswitch_fp(" in c
        assert '#include "softswitch_fast_path.h"' in c and (out / "softswitch_fast_path.h").is_file()
        subprocess.run(["sh", str(out / "compile.sh"), str(out / "fast_path.c"), str(out / "fast_path.o")],
                       check=True, capture_output=True)
        elf = (out / "fast_path.o").read_bytes()
        # ELF, little-endian (EI_DATA 1), machine EM_BPF (247)
        assert elf[:4] == b"\x7fELF" and elf[5] == 1 and int.from_bytes(elf[18:20], "little") == 247
    usage = softswitch("fast-path-c", L3, "--hook", "tcx", "--out-dir", tmp_path, check=False)
    assert usage.returncode == 2 and usage.stderr.strip() == "softswitch: --hook is tc or xdp, not 'tcx'"
