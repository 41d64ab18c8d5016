#!/usr/bin/env python3
"""The frames the SUME simulations send, one of each kind of the conformance cases that the card
handles as the v1model switch does (tests/test_nat64_*.py, marked BOTH), addressed for the sample
fabric (sample-fabric.json beside this file), whose entries build/commands.txt holds.

Prints lines NAME PORT HEX (the frame arriving on PORT, nf0..nf3 or dma). `sume-agent record` runs
them through the model card; gen_testdata.py turns its results into P4-NetFPGA's test data.
Python 3 with scapy (the project's tests/requirements.txt); run by make -C hw/netfpga."""
import ipaddress
import json
import sys
from pathlib import Path

try:
    from scapy.layers.inet import ICMP, IP, UDP
    from scapy.layers.inet6 import ICMPv6EchoRequest, IPv6
    from scapy.layers.l2 import ARP, Ether
except ImportError:
    sys.exit(f"{sys.argv[0]}: needs scapy, which {sys.executable} lacks: run `make deps` at the top of the checkout, "
             "or give SCAPY_PYTHON=a python with scapy")

HOST_MAC = "00:00:00:00:00:66"      # the sending hosts' (any unicast address)
PUNT_PORT_NAME = "dma"
PACKET_OUT_TO_PIPELINE = bytes([0, 0x80, 0, 0])   # packet_out_t: egress_port 0, to_pipeline 1, ether_type 0
PROBE = bytes([0, 0xa0, 0, 0])                    # to_pipeline 1, probe 1
IPV4_WITHOUT_ETHERNET = bytes([0, 0x80, 0x08, 0x00])
TOKEN = bytes(range(8))


def sample_fabric(path):
    config = json.loads(Path(path).read_text())
    nat64 = config["apps"]["org.nat64fabric.app"]["nat64"]
    (device,) = config["devices"].values()
    return nat64, device["nat64fabric"]


def cases(fabric_path):
    nat64, switch = sample_fabric(fabric_path)
    router = switch["routerMac"]
    route6, route4 = (next(r for r in switch["routes"] if (":" in r["prefix"]) == v6) for v6 in (True, False))
    port6, port4 = "nf%d" % route6["port"], "nf%d" % route4["port"]
    pool6 = ipaddress.IPv6Network(nat64["pool6"])
    server4 = str(next(ipaddress.IPv4Network(route4["prefix"]).hosts()) + 19)    # 198.51.100.20
    server6 = str(pool6[int(ipaddress.IPv4Address(server4))])                    # pool6's /96 embeds it
    bib = nat64["staticBib"][0]
    eam = nat64["eamt"][0]
    eam6, eam4 = (str(ipaddress.ip_network(eam[k]).network_address) for k in ("ipv6Prefix", "ipv4Prefix"))
    other6 = str(ipaddress.IPv6Network(route6["prefix"])[0x99])                  # a host without a BIB entry

    def from6(l4, src=bib["ipv6Address"], dst=server6):
        return Ether(src=HOST_MAC, dst=router) / IPv6(src=src, dst=dst, hlim=64) / l4

    def from4(l4, src=eam4, **ip):
        return Ether(src=HOST_MAC, dst=router) / IP(src=src, dst=bib["ipv4Address"], ttl=64, id=7, **ip) / l4

    to_server = UDP(sport=bib["ipv6Port"], dport=7000) / b"answer from the ipv6 server"
    to_bib4 = UDP(sport=7000, dport=bib["ipv4Port"]) / b"query to pool4"
    quoted = IP(src=bib["ipv4Address"], dst=eam4, ttl=63, id=0) / UDP(sport=bib["ipv4Port"], dport=7000) / b"quoted"
    bad_checksum = from4(to_bib4, chksum=0x1234)
    too_long = from4(UDP(sport=7000, dport=bib["ipv4Port"]) / (b"L" * 1472))                    # 1500 bytes, no DF
    with_df = from4(UDP(sport=7000, dport=bib["ipv4Port"]) / (b"D" * 1452), flags="DF")         # 1480 bytes
    return [
        # test_nat64_pipeline.py::test_udp_v6_to_v4_through_a_session (the static BIB entry's session)
        ("udp_6to4_static_bib", port6, from6(to_server)),
        # ::test_udp_v4_to_v6_through_a_session, the source by the EAMT (test_nat64_icmp.py's EAM cases)
        ("udp_4to6_eam_source", port4, from4(to_bib4)),
        # The same from a source only pool6 can write: pool6_embed's default (use_pool6 of the
        # controller) is not in commands.txt, the card keeps the program's (NoAction), so no pool6:
        # handed over for Destination Unreachable 3/13 (test_nat64_sume.py::…card_hands_over_each_error…)
        ("udp_4to6_no_pool6_on_the_card", port4, from4(to_bib4, src=server4)),
        # test_nat64_icmp.py: port unreachable from an EAM host, translated to ICMPv6 1/4
        ("icmp4_error_from_eam_host", port4, from4(ICMP(type=3, code=3) / quoted)),
        # test_nat64_pipeline.py::test_echo_to_switch_is_answered_in_both_families
        ("echo6_to_the_switch", port6, from6(ICMPv6EchoRequest(id=9, seq=1, data=b"ping"), dst=switch["ipv6"])),
        # ::test_arp_request_for_switch_address_is_answered
        ("arp_for_the_switch", port4, Ether(src=HOST_MAC, dst="ff:ff:ff:ff:ff:ff") /
         ARP(op=1, hwsrc=HOST_MAC, psrc=server4, pdst=switch["ipv4"])),
        # ::test_session_miss_punts_then_packet_out_goes_through_the_pipeline: the punt over DMA ...
        ("session_miss_punted", port6, from6(UDP(sport=6000, dport=123) / b"ntp", src=other6)),
        # ... and a packet-out through the pipe (here of the static BIB's flow, which has a session)
        ("packet_out_to_the_pipe", PUNT_PORT_NAME, PACKET_OUT_TO_PIPELINE + bytes(from6(to_server))),
        # test_nat64_sume.py::test_a_bad_ipv4_header_checksum_is_dropped_by_the_pipe
        ("bad_ipv4_checksum_dropped", port4, bad_checksum),
        # ::test_a_full_size_session_miss_comes_without_ethernet_and_goes_back_so: the punt ...
        ("session_miss_full_size", port6, from6(UDP(sport=6001, dport=123) / (b"n" * 1452), src=other6)),
        # ... and a packet-out without Ethernet, its EtherType in packet_out (here IPv4 with a session)
        ("packet_out_without_ethernet", PUNT_PORT_NAME, IPV4_WITHOUT_ETHERNET + bytes(with_df)[14:]),
        # ::test_ipv4_too_long_to_translate_here_comes_as_it_came_and_its_probe_comes_back_translated
        ("udp_4to6_too_long", port4, too_long),
        ("probe_of_it", PUNT_PORT_NAME, PROBE + bytes(too_long)[:14 + 20 + 48] + TOKEN),
    ]


def main(argv):
    fabric = argv[1] if len(argv) > 1 else Path(__file__).resolve().parent / "sample-fabric.json"
    print("# Frames for the SUME simulations (hw/netfpga/testdata/cases.py, %s): NAME PORT HEX" % Path(fabric).name)
    for name, port, frame in cases(fabric):
        print(name, port, bytes(frame).hex())


if __name__ == "__main__":
    main(sys.argv)
