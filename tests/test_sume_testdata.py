"""The NetFPGA SUME simulations' test data (hw/netfpga/testdata): make -C hw/netfpga runs the frames
of testdata/cases.py through the model card holding exactly the entries of build/commands.txt
(build/model_card.txt), and gen_testdata.py turns that into what P4-NetFPGA's testdata step reads.
Checked here: the files' formats (read back with scapy and by field), that they say what the model
card did, and what the card did with each case. No SDNet or SUME simulation runs here (no SDNet)."""
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from scapy.layers.inet import ICMP, IP, UDP
from scapy.layers.inet import UDPerror
from scapy.layers.inet6 import ICMPv6DestUnreach, ICMPv6EchoReply, IPerror6, IPv6
from scapy.layers.l2 import ARP, Ether
from scapy.utils import rdpcap

from harness import ROOT
from test_nat64_sume import (FINISH_ICMP_ERROR, FINISH_NO_ETHERNET, FINISH_PROBED, PUNT_FINISH,
                             PUNT_NEEDS_FRAGMENTATION, PUNT_TOO_LONG)
from test_sume_agent import AGENT_JAR, PUNT_SESSION_MISS

HW = ROOT / "hw" / "netfpga"
GEN_TESTDATA = HW / "testdata" / "gen_testdata.py"
MODEL_CARD = HW / "build" / "model_card.txt"
ONE_HOT = {"nf0": 0x01, "dma": 0x02, "nf1": 0x04, "nf2": 0x10, "nf3": 0x40}
# sume_metadata_t, first field in the most significant bits (P4-NetFPGA wiki, Workflow Overview)
FIELDS = (("dma_q_size", 16), ("nf3_q_size", 16), ("nf2_q_size", 16), ("nf1_q_size", 16), ("nf0_q_size", 16),
          ("send_dig_to_cpu", 8), ("drop", 8), ("dst_port", 8), ("src_port", 8), ("pkt_len", 16))
PACKET_IN_BYTES = 10


def fields(word):
    value, out = int(word, 16), {}
    for name, bits in reversed(FIELDS):
        out[name] = value & ((1 << bits) - 1)
        value >>= bits
    return out


def tuples(path):
    lines = path.read_text().splitlines()
    for line in lines:
        digest, metadata = line.split(" ")
        assert len(digest) == 2 and len(metadata) == 32, line     # 8 and 128 bits, as the testbench reads them
        assert int(digest, 16) == 0
    return [fields(line.split(" ")[1]) for line in lines]


@pytest.fixture(scope="module")
def model_card():
    """build/model_card.txt made afresh by make, as a user's build makes it; its cases by name."""
    for name in ("model_card.txt", "cases.txt"):
        (HW / "build" / name).unlink(missing_ok=True)
    proc = subprocess.run(["make", "--no-print-directory", "-C", str(HW), "build/model_card.txt"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "model_card.txt: 13 frames through the model card" in proc.stdout
    cases = {}
    for line in MODEL_CARD.read_text().splitlines():
        if line.startswith("#"):
            continue
        kind, name, port, *frame = line.split(" ")
        case = cases.setdefault(name, {"order": len(cases)})
        case[kind] = (port, bytes.fromhex(frame[0]) if frame else None)
    return cases


def generate(python, out):
    out.mkdir()
    proc = subprocess.run([python, str(GEN_TESTDATA), str(MODEL_CARD)], cwd=out, capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


@pytest.fixture(scope="module")
def testdata(model_card, tmp_path_factory):
    out = tmp_path_factory.mktemp("testdata") / "p4-project-testdata"
    said = generate(sys.executable, out)
    assert said.startswith("gen_testdata.py: 13 frames"), said
    return out


def test_the_model_card_holds_the_entries_of_commands_txt_and_the_cases_come_from_cases_py(model_card):
    cases_txt = (HW / "build" / "cases.txt").read_text().splitlines()
    sent = [line.split(" ") for line in cases_txt if not line.startswith("#")]
    assert [n for n, *_ in sent] == sorted(model_card, key=lambda n: model_card[n]["order"])
    for name, port, frame in sent:
        assert model_card[name]["in"] == (port, bytes.fromhex(frame)), name
        assert "out" in model_card[name], name
    # the static BIB entry of commands.txt is the card's only session: a v6 host without one is punted
    assert model_card["udp_6to4_static_bib"]["out"][0] == "nf2"
    assert model_card["session_miss_punted"]["out"][0] == "dma"


def test_pcaps_and_tuples_say_what_the_model_card_did(model_card, testdata):
    ordered = sorted(model_card.values(), key=lambda c: c["order"])
    src, dst = rdpcap(str(testdata / "src.pcap")), rdpcap(str(testdata / "dst.pcap"))
    tin, texp = tuples(testdata / "Tuple_in.txt"), tuples(testdata / "Tuple_expect.txt")
    assert len(src) == len(dst) == len(tin) == len(texp) == len(ordered) == 13
    for case, s, d, i, e in zip(ordered, src, dst, tin, texp):
        in_port, frame = case["in"]
        out_port, out_frame = case["out"]
        assert bytes(s) == frame
        assert i == dict.fromkeys(i, 0) | {"src_port": ONE_HOT[in_port], "pkt_len": len(frame)}
        if out_port == "drop":      # SDNet sends it on with dst_port 0: as it came (dropped before any change)
            assert bytes(d) == frame
            assert e == i | {"drop": 1, "dst_port": 0}
        else:
            assert bytes(d) == out_frame
            assert e == i | {"dst_port": ONE_HOT[out_port]}
            assert bin(e["dst_port"]).count("1") == 1, "one-hot"
    for k in range(4):
        port = "nf%d" % k
        applied = [bytes(p) for p in rdpcap(str(testdata / (port + "_applied.pcap")))]
        expected = [bytes(p) for p in rdpcap(str(testdata / (port + "_expected.pcap")))]
        assert applied == [c["in"][1] for c in ordered if c["in"][0] == port]
        assert expected == [c["out"][1] for c in ordered if c["out"][0] == port]
    assert sum(1 for c in ordered if c["out"][0].startswith("nf")) == 7


def checksums_hold(frame):
    """Every checksum scapy computes is the one the frame carries."""
    recomputed = frame.copy()
    for layer in (IP, UDP, ICMP, ICMPv6DestUnreach, ICMPv6EchoReply):
        for part in (recomputed[layer],) if layer in recomputed else ():
            if hasattr(part, "chksum"):
                part.chksum = None
            if hasattr(part, "cksum"):
                part.cksum = None
    return bytes(Ether(bytes(recomputed))) == bytes(frame)


def test_what_the_card_does_with_each_case(model_card):
    out = {name: (c["out"][0], c["out"][1]) for name, c in model_card.items()}

    port, frame = out["udp_6to4_static_bib"]
    p = Ether(frame)
    assert port == "nf2" and p.dst == "00:00:00:00:02:20" and p.src == "00:00:00:00:aa:01"
    assert (p[IP].src, p[IP].dst, p[UDP].sport, p[UDP].dport) == ("192.0.2.9", "198.51.100.20", 5353, 7000)
    assert checksums_hold(p)
    # Through the pipe as from nf1, but for the identification: the card counts them (RFC 7915 5.1).
    again_port, again = out["packet_out_to_the_pipe"]
    again = Ether(again)
    assert again_port == port and again[IP].id == p[IP].id + 1
    again[IP].id, again[IP].chksum = p[IP].id, None
    assert bytes(again) == frame

    port, frame = out["udp_4to6_eam_source"]
    p = Ether(frame)
    assert port == "nf1" and p.dst == "00:00:00:00:01:10"
    assert (p[IPv6].src, p[IPv6].dst, p[UDP].dport) == ("2001:db8:2::20", "2001:db8:1::10", 53)
    assert checksums_hold(p)

    port, frame = out["icmp4_error_from_eam_host"]
    p = Ether(frame)
    assert port == "nf1" and (p[ICMPv6DestUnreach].type, p[ICMPv6DestUnreach].code) == (1, 4)
    assert p[IPv6].src == "2001:db8:2::20"
    assert (p[IPerror6].src, p[IPerror6].dst, p[UDPerror].sport) == ("2001:db8:1::10", "2001:db8:2::20", 53)
    assert checksums_hold(p)

    port, frame = out["echo6_to_the_switch"]
    p = Ether(frame)
    assert port == "nf1" and p[IPv6].src == "2001:db8:1::1" and p[ICMPv6EchoReply].data == b"ping"
    assert checksums_hold(p)

    port, frame = out["arp_for_the_switch"]
    p = Ether(frame)
    assert port == "nf2" and p[ARP].op == 2 and (p[ARP].psrc, p[ARP].hwsrc) == ("192.0.2.1", "00:00:00:00:aa:01")

    for name, reason, finish in (("session_miss_punted", PUNT_SESSION_MISS, 0),
                                 ("udp_4to6_no_pool6_on_the_card", PUNT_FINISH, FINISH_ICMP_ERROR)):
        port, frame = out[name]
        header, payload = frame[:PACKET_IN_BYTES], frame[PACKET_IN_BYTES:]
        assert port == "dma" and payload == model_card[name]["in"][1], name
        assert (header[1], header[3]) == (reason, finish), name
    # pool6_embed's default is the program's on the card (SDNet fixes it): no pool6, Unreachable 3/13
    assert frame[6:8] == bytes([3, 13])

    assert out["bad_ipv4_checksum_dropped"] == ("drop", None)

    # Full-size frames: a session miss and IPv4 too long to translate come as they came, without
    # Ethernet; the probe of the latter comes back translated, its token after it.
    for name, reason, finish in (("session_miss_full_size", PUNT_SESSION_MISS, FINISH_NO_ETHERNET),
                                 ("udp_4to6_too_long", PUNT_TOO_LONG, FINISH_NO_ETHERNET)):
        port, frame = out[name]
        assert port == "dma" and frame[PACKET_IN_BYTES:] == model_card[name]["in"][1][14:], name
        assert (frame[1], frame[3]) == (reason, finish), name
    port, frame = out["probe_of_it"]
    assert port == "dma" and (frame[1], frame[3]) == (PUNT_NEEDS_FRAGMENTATION, FINISH_PROBED)
    assert frame[-8:] == bytes(range(8))
    p = Ether(frame[PACKET_IN_BYTES:-8])
    assert (p[IPv6].src, p[IPv6].dst, p[IPv6].plen) == ("2001:db8:2::20", "2001:db8:1::10", 8 + 1480)
    port, frame = out["packet_out_without_ethernet"]
    p = Ether(frame)
    assert port == "nf1" and len(frame) == 14 + 1500 and (p.src, p.dst) == ("00:00:00:00:aa:01", "00:00:00:00:01:10")
    assert (p[IPv6].dst, p[UDP].dport) == ("2001:db8:1::10", 53) and checksums_hold(p)


def test_gen_testdata_runs_under_python_2_7_as_on_the_sdnet_host(model_card, testdata, tmp_path):
    candidates = [shutil.which("python2.7"), *map(str, Path.home().glob(".pyenv/versions/2.7*/bin/python2.7"))]
    python2 = next((c for c in candidates if c and subprocess.run(     # a pyenv shim may be found and not run
        [c, "-c", "import sys; assert sys.version_info[:2] == (2, 7)"], capture_output=True).returncode == 0), None)
    if python2 is None:
        pytest.skip("no Python 2.7 here: gen_testdata.py ran under Python 3 only")
    generate(python2, tmp_path / "py27")
    for f in sorted(testdata.iterdir()):
        assert (tmp_path / "py27" / f.name).read_bytes() == f.read_bytes(), f.name


def test_the_digest_width_is_the_programs():
    pipe = (HW / "include" / "sume_pipe.p4").read_text()
    assert "struct digest_t {\n    bit<8> unused;\n}" in pipe
    assert "DIGEST_BITS = 8 " in GEN_TESTDATA.read_text()


def test_bad_input_is_refused_with_its_place(tmp_path):
    commands = tmp_path / "commands.txt"
    commands.write_text("# ok\ntable_cam_add_entry egress_mtu set_mtu 0x2 => 0x578 0x1\n")
    cases = tmp_path / "cases.txt"
    cases.write_text("x nf1 00\n")
    proc = subprocess.run(["java", "-jar", str(AGENT_JAR), "record", "--commands", str(commands), "--cases",
                           str(cases)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.strip() == "sume-agent: %s:2: Nat64Ingress.egress_mtu takes 1 data values (every action's), " \
                                  "not 2" % commands, proc.stderr
    commands.write_text("table_cam_add_entry egress_mtu set_mtu 0x2 => 0x578\n")
    cases.write_text("x nf7 00\n")
    proc = subprocess.run(["java", "-jar", str(AGENT_JAR), "record", "--commands", str(commands), "--cases",
                           str(cases)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "%s:1: the port is nf0..nf3 or dma, not nf7" % cases in proc.stderr, proc.stderr

    model = tmp_path / "model_card.txt"
    model.write_text("in a nf1 00\nin b nf1 00\n")
    proc = subprocess.run([sys.executable, str(GEN_TESTDATA), str(model), str(tmp_path)], capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 1 and proc.stderr.startswith("%s:2: expected 'in NAME PORT HEX', then" % model)
