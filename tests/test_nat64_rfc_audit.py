"""Audit of corner cases of RFC 7915 (SIIT), RFC 6146 (stateful NAT64), RFC 7757 (EAM) and RFC 4884
(ICMP extensions) on the NAT64 pipeline. Each test asserts what the RFCs ask; they were written before
the fixes (issue 16) and failed where the pipeline differed from the RFCs. Expected packets are built (and
checksummed) by scapy from the RFC rules, never copied from what the switch sent; where a checksum
is checked on a received frame, it is summed here by hand (ones_sum), independently of scapy.

Readings of the RFCs that decide exact bytes are stated in each test's docstring."""
import ipaddress

import pytest
from scapy.layers.inet import ICMP, IP, TCP, UDP
from scapy.layers.inet6 import (ICMPv6DestUnreach, ICMPv6EchoRequest, ICMPv6PacketTooBig, ICMPv6ParamProblem,
                                ICMPv6TimeExceeded, IPv6, IPv6ExtHdrFragment)
from scapy.layers.l2 import Ether
from scapy.packet import Raw

from nat64_setup import (MAPPED, P, POOL6, PUNT_ICMP_EXTENSION, ROUTER_MAC, T,
                         SENT_TOO_BIG, SWITCH_V6, V4_HOST_MAC, V4_PORT, V4_SERVER, V6_HOST, V6_HOST_MAC, V6_PORT,
                         eam, embed, from_switch4, from_v4_server, from_v6_host, sent, session_v4, session_v6, to_v4_server,
                         to_v6_host)
from nat64_setup import BOTH, ptf, sume_sut, sut  # noqa: F401  (pytest fixtures, found by name)

V4_ROUTER = "198.51.100.1"       # an IPv4 router between the NAT64 and the server
SERVER6 = embed(V4_SERVER, POOL6, 96)
HOST_EAM4 = "203.0.113.5"        # the IPv6 host's EAM, where a test gives it one


# ---- helpers ----

def stateful_udp(ptf):
    """The IPv6 host's UDP port 5000 is 192.0.2.10:40000 in both directions (a static BIB entry)."""
    ptf.insert(session_v6(ptf, 17, V6_HOST, 5000, MAPPED, 40000), session_v4(ptf, 17, MAPPED, 40000, V6_HOST, 5000))


def mtu(ptf, port, value):
    ptf.insert(ptf.client.table_entry(P + "egress_mtu", match={"port": port}, action=P + "set_mtu",
                                      params={"mtu": value}))


def hairpin_route(ptf, prefix, length):
    return ptf.client.table_entry(P + "ipv4_routes", match={"dst_addr": (prefix, length)}, action=P + "hairpin")


def ones_sum(data):
    """RFC 1071 ones' complement sum of 16-bit words (a valid checksummed message sums to 0xffff)."""
    if len(data) % 2:
        data += b"\x00"
    s = sum(int.from_bytes(data[i:i + 2], "big") for i in range(0, len(data), 2))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return s


def inet_checksum(data):
    return ~ones_sum(data) & 0xffff


def pseudo6(src, dst, length, next_header):
    return (ipaddress.IPv6Address(src).packed + ipaddress.IPv6Address(dst).packed + length.to_bytes(4, "big")
            + b"\x00\x00\x00" + bytes([next_header]))


def extension(labels=1):
    """RFC 4884 section 7 ICMP extension structure: version 2, reserved 0, checksum over the whole
    structure; one object, class 1 c-type 1 (RFC 4950 MPLS label stack) of `labels` 4-byte entries."""
    entries = b"".join((((16 + i) << 12) | (0 << 9) | ((i == labels - 1) << 8) | 1).to_bytes(4, "big")
                       for i in range(labels))
    obj = (4 + len(entries)).to_bytes(2, "big") + bytes([1, 1]) + entries
    structure = bytes([0x20, 0x00, 0x00, 0x00]) + obj
    return structure[:2] + inet_checksum(structure).to_bytes(2, "big") + structure[4:]


def pad(data, unit, minimum=128):
    """RFC 4884 sections 4.1/4.2: the original datagram field, zero padded to at least 128 bytes and
    to a multiple of `unit` (4 for ICMPv4, 8 for ICMPv6)."""
    size = max(minimum, -(-len(data) // unit) * unit)
    return data + b"\x00" * (size - len(data))


def sends_exactly(ptf, expected, port):
    """The switch sends `expected` out of `port`, byte for byte, and nothing else."""
    ptf.verify_packet(expected, port)
    ptf.verify_no_other_packets()


# ---- 1. RFC 4884 ICMP extensions in translated ICMP errors (RFC 7915 4.2, 5.2) ----

@BOTH
def test_icmpv4_time_exceeded_with_extension_gets_length_in_64_bit_words(ptf):
    """RFC 7915 4.2 ("the ICMPv6 Extension length attribute MUST be adjusted accordingly") with RFC
    4884 4.1/4.2: a 132-byte original datagram (length 33, 32-bit words) is 152 bytes once its header
    is IPv6, already a multiple of 8: ICMPv6 length 19 (64-bit words), the extension right after it,
    untouched (opaque, its own checksum unchanged). No padding is involved, so every reading agrees."""
    stateful_udp(ptf)
    ext = extension()
    quoted4 = bytes(IP(src=MAPPED, dst=V4_SERVER, ttl=1, id=0) / UDP(sport=40000, dport=33434) / (b"p" * 104))
    assert len(quoted4) == 132
    ptf.send(V4_PORT, from_v4_server(ICMP(type=11, code=0, length=33) / Raw(quoted4 + ext), src=V4_ROUTER))
    quoted6 = bytes(IPv6(src=V6_HOST, dst=SERVER6, hlim=1) / UDP(sport=5000, dport=33434) / (b"p" * 104))
    assert len(quoted6) == 152
    sends_exactly(ptf, to_v6_host(ICMPv6TimeExceeded(code=0, length=19) / Raw(quoted6 + ext),
                                  src=embed(V4_ROUTER, POOL6, 96)), V6_PORT)


@BOTH
def test_icmpv4_port_unreachable_with_extension_is_zero_padded_to_8_bytes(ptf):
    """A 128-byte original datagram (ICMPv4 length 32) becomes 148 bytes: RFC 4884 4.2 says the ICMPv6
    original datagram field "MUST be zero padded to the nearest 64-bit boundary": 4 zero bytes, length
    19, then the extension. (Assumption: padding, not cutting the datagram to 144 bytes as Jool does.)"""
    stateful_udp(ptf)
    ext = extension()
    quoted4 = bytes(IP(src=MAPPED, dst=V4_SERVER, ttl=30, id=0) / UDP(sport=40000, dport=53) / (b"q" * 100))
    assert len(quoted4) == 128
    ptf.send(V4_PORT, from_v4_server(ICMP(type=3, code=3, length=32) / Raw(quoted4 + ext)))
    quoted6 = bytes(IPv6(src=V6_HOST, dst=SERVER6, hlim=30) / UDP(sport=5000, dport=53) / (b"q" * 100))
    assert len(pad(quoted6, 8)) == 152
    sends_exactly(ptf, to_v6_host(ICMPv6DestUnreach(code=4, length=19) / Raw(pad(quoted6, 8) + ext)), V6_PORT)


@BOTH
def test_icmpv6_port_unreachable_with_extension_gets_length_in_32_bit_words(ptf):
    """RFC 7915 5.2 with RFC 4884: a 168-byte IPv6 original datagram (ICMPv6 length 21) is 148 bytes
    as IPv4, a multiple of 4 and over 128: ICMPv4 length 37, then the extension. The error comes from
    the host itself, so its source is the host's BIB address either way."""
    stateful_udp(ptf)
    ext = extension()
    quoted6 = bytes(IPv6(src=SERVER6, dst=V6_HOST, hlim=61) / UDP(sport=53, dport=5000) / (b"r" * 120))
    assert len(quoted6) == 168
    ptf.send(V6_PORT, from_v6_host(ICMPv6DestUnreach(code=4, length=21) / Raw(quoted6 + ext), dst=SERVER6))
    quoted4 = bytes(IP(src=V4_SERVER, dst=MAPPED, ttl=61, id=0) / UDP(sport=53, dport=40000) / (b"r" * 120))
    assert len(quoted4) == 148
    sends_exactly(ptf, to_v4_server(ICMP(type=3, code=3, length=37) / Raw(quoted4 + ext)), V4_PORT)


@BOTH
def test_icmpv6_error_with_extension_is_zero_padded_to_128_bytes_as_icmpv4(ptf):
    """A 136-byte IPv6 original datagram (ICMPv6 length 17) is 116 bytes as IPv4: RFC 4884 4.1 wants at
    least 128 bytes, zero padded, so 12 zero bytes and ICMPv4 length 32, then the extension."""
    stateful_udp(ptf)
    ext = extension()
    quoted6 = bytes(IPv6(src=SERVER6, dst=V6_HOST, hlim=61) / UDP(sport=53, dport=5000) / (b"s" * 88))
    assert len(quoted6) == 136
    ptf.send(V6_PORT, from_v6_host(ICMPv6DestUnreach(code=4, length=17) / Raw(quoted6 + ext), dst=SERVER6))
    quoted4 = bytes(IP(src=V4_SERVER, dst=MAPPED, ttl=61, id=0) / UDP(sport=53, dport=40000) / (b"s" * 88))
    assert len(quoted4) == 116 and len(pad(quoted4, 4)) == 128
    sends_exactly(ptf, to_v4_server(ICMP(type=3, code=3, length=32) / Raw(pad(quoted4, 4) + ext)), V4_PORT)


@BOTH
def test_an_extension_after_a_datagram_shorter_than_128_bytes_is_kept_the_datagram_padded_to_128(ptf):
    """RFC 4884 5.1 wants at least 128 bytes of original datagram before an extension; a sender
    that put it after less (the quoted headers alone: ICMPv4 length 7, ICMPv6 length 6) is answered
    as Jool's graybox "ic7" and "idk" expect: the translated datagram zero padded to 128 bytes
    (ICMPv6 length 16, ICMPv4 length 32), the extension kept after it."""
    stateful_udp(ptf)
    ext = extension(labels=3)
    quoted4 = bytes(IP(src=MAPPED, dst=V4_SERVER, ttl=1, id=0) / UDP(sport=40000, dport=33434))
    assert len(quoted4) == 28
    ptf.send(V4_PORT, from_v4_server(ICMP(type=11, code=0, length=7) / Raw(quoted4 + ext), src=V4_ROUTER))
    quoted6 = bytes(IPv6(src=V6_HOST, dst=SERVER6, hlim=1) / UDP(sport=5000, dport=33434))
    sends_exactly(ptf, to_v6_host(ICMPv6TimeExceeded(code=0, length=16) / Raw(pad(quoted6, 8) + ext),
                                  src=embed(V4_ROUTER, POOL6, 96)), V6_PORT)
    quoted6 = bytes(IPv6(src=SERVER6, dst=V6_HOST, hlim=61) / UDP(sport=53, dport=5000))
    assert len(quoted6) == 48
    ptf.send(V6_PORT, from_v6_host(ICMPv6DestUnreach(code=4, length=6) / Raw(quoted6 + ext), dst=SERVER6))
    quoted4 = bytes(IP(src=V4_SERVER, dst=MAPPED, ttl=61, id=0) / UDP(sport=53, dport=40000))
    sends_exactly(ptf, to_v4_server(ICMP(type=3, code=3, length=32) / Raw(pad(quoted4, 4) + ext)), V4_PORT)


def test_an_icmpv6_error_is_cut_to_1280_bytes_whatever_the_lowest_ipv6_mtu(ptf):
    """RFC 4443 2.4(c) caps an ICMPv6 error at the minimum IPv6 MTU, 1280 bytes, not at the
    translator's lowest IPv6 MTU setting (Jool's graybox "ja": lowest-ipv6-mtu raised, a 1261-byte
    ICMPv4 error still leaves as 1280 bytes of ICMPv6, checksummed over what is left)."""
    stateful_udp(ptf)
    ptf.modify(ptf.client.table_entry(P + "lowest_ipv6_mtu", default=True, action=P + "set_lowest_ipv6_mtu",
                                      params={"mtu": 1500}))
    quoted4 = IP(src=MAPPED, dst=V4_SERVER, ttl=1, id=0) / UDP(sport=40000, dport=33434) / (b"j" * 1205)
    error = ICMP(type=11, code=0) / quoted4
    assert 20 + len(error) == 1261
    ptf.send(V4_PORT, from_v4_server(error, src=V4_ROUTER))
    quoted6 = IPv6(src=V6_HOST, dst=SERVER6, hlim=1) / UDP(sport=5000, dport=33434) / (b"j" * 1205)
    whole = to_v6_host(ICMPv6TimeExceeded(code=0) / quoted6, src=embed(V4_ROUTER, POOL6, 96))
    cut = bytes(whole[ICMPv6TimeExceeded].payload)[:1280 - 48]
    sends_exactly(ptf, to_v6_host(ICMPv6TimeExceeded(code=0) / Raw(cut), src=embed(V4_ROUTER, POOL6, 96)), V6_PORT)


@BOTH
def test_icmp_errors_without_extension_keep_length_zero(ptf):
    """No length attribute (0, RFC 792/4443 layout): translated in both directions with length 0 and
    no padding."""
    stateful_udp(ptf)
    quoted4 = IP(src=MAPPED, dst=V4_SERVER, ttl=1, id=0) / UDP(sport=40000, dport=33434) / b"probe"
    ptf.send(V4_PORT, from_v4_server(ICMP(type=11, code=0, length=0) / quoted4, src=V4_ROUTER))
    quoted6 = IPv6(src=V6_HOST, dst=SERVER6, hlim=1) / UDP(sport=5000, dport=33434) / b"probe"
    sends_exactly(ptf, to_v6_host(ICMPv6TimeExceeded(code=0, length=0) / quoted6, src=embed(V4_ROUTER, POOL6, 96)),
                  V6_PORT)
    inbound6 = IPv6(src=SERVER6, dst=V6_HOST, hlim=61) / UDP(sport=53, dport=5000) / b"answer"
    ptf.send(V6_PORT, from_v6_host(ICMPv6DestUnreach(code=4, length=0) / inbound6, dst=SERVER6))
    inbound4 = IP(src=V4_SERVER, dst=MAPPED, ttl=61, id=0) / UDP(sport=53, dport=40000) / b"answer"
    sends_exactly(ptf, to_v4_server(ICMP(type=3, code=3, length=0) / inbound4), V4_PORT)


@BOTH
def test_an_error_whose_extension_fits_only_with_its_datagram_cut_goes_to_the_controller(ptf):
    """RFC 4884 5.1 with RFC 7915 4.2 / 5.2: an extension that would take the translated error over
    1280 (ICMPv6) or 576 (ICMPv4) bytes, but fits beside the 128 bytes of datagram it must keep, is
    kept, the datagram cut: the switch hands the error over as it came (PUNT_ICMP_EXTENSION), the
    controller cuts it and sends it back (test_nat64_controller_path.py). Here a 1020-byte ICMPv4
    datagram with a 220-byte extension (1308 bytes as ICMPv6), and a 504-byte ICMPv6 one with a
    100-byte extension (612 as ICMPv4)."""
    stateful_udp(ptf)
    quoted4 = bytes(IP(src=MAPPED, dst=V4_SERVER, ttl=1, id=0) / UDP(sport=40000, dport=33434) / (b"t" * 992))
    quoted6 = bytes(IPv6(src=SERVER6, dst=V6_HOST, hlim=61) / UDP(sport=53, dport=5000) / (b"w" * 456))
    errors = [(V4_PORT, from_v4_server(ICMP(type=11, code=0, length=255) / Raw(quoted4 + extension(labels=53)),
                                       src=V4_ROUTER)),
              (V6_PORT, from_v6_host(ICMPv6DestUnreach(code=4, length=63) / Raw(quoted6 + extension(labels=23)),
                                     dst=SERVER6))]
    for port, error in errors:
        ptf.send(port, error)
        payload, md = ptf.client.packet_in()
        assert (payload, md["punt_reason"], md["ingress_port"]) == (bytes(error), PUNT_ICMP_EXTENSION, port)
    ptf.verify_no_other_packets()


def test_icmpv4_error_with_an_extension_too_large_to_keep_loses_it_as_icmpv6(ptf):
    """An extension that would not fit 1280 bytes even beside 128 bytes of datagram (1108 bytes):
    it leaves, and the message ends with the translated datagram (length 0, no padding)."""
    stateful_udp(ptf)
    quoted4 = bytes(IP(src=MAPPED, dst=V4_SERVER, ttl=1, id=0) / UDP(sport=40000, dport=33434) / (b"t" * 104))
    ptf.send(V4_PORT, from_v4_server(ICMP(type=11, code=0, length=33) / Raw(quoted4 + extension(labels=275)),
                                     src=V4_ROUTER))
    quoted6 = bytes(IPv6(src=V6_HOST, dst=SERVER6, hlim=1) / UDP(sport=5000, dport=33434) / (b"t" * 104))
    sends_exactly(ptf, to_v6_host(ICMPv6TimeExceeded(code=0, length=0) / Raw(quoted6), src=embed(V4_ROUTER, POOL6, 96)),
                  V6_PORT)


def test_icmpv4_parameter_problem_with_extension_loses_it_as_icmpv6(ptf):
    """ICMPv6 Parameter Problem has no length attribute (RFC 4884 4.5 lists the messages that may
    carry an extension): the extension leaves, and the message ends with the translated datagram
    (no padding), its checksum over what is left."""
    stateful_udp(ptf)
    quoted4 = bytes(IP(src=MAPPED, dst=V4_SERVER, ttl=30, id=0) / UDP(sport=40000, dport=53) / (b"u" * 104))
    ptf.send(V4_PORT, from_v4_server(ICMP(type=12, code=0, ptr=8, length=33) / Raw(quoted4 + extension())))
    quoted6 = bytes(IPv6(src=V6_HOST, dst=SERVER6, hlim=30) / UDP(sport=5000, dport=53) / (b"u" * 104))
    sends_exactly(ptf, to_v6_host(ICMPv6ParamProblem(code=0, ptr=7) / Raw(quoted6)), V6_PORT)


def test_fragmentation_needed_with_extension_becomes_packet_too_big_without_it(ptf):
    stateful_udp(ptf)
    quoted4 = bytes(IP(src=MAPPED, dst=V4_SERVER, ttl=30, id=0, flags="DF") / UDP(sport=40000, dport=53) / (b"v" * 100))
    ptf.send(V4_PORT, from_v4_server(ICMP(type=3, code=4, nexthopmtu=1400, length=32) / Raw(quoted4 + extension())))
    quoted6 = bytes(IPv6(src=V6_HOST, dst=SERVER6, hlim=30) / UDP(sport=5000, dport=53) / (b"v" * 100))
    sends_exactly(ptf, to_v6_host(ICMPv6PacketTooBig(mtu=1420) / Raw(quoted6)), V6_PORT)


def test_icmpv6_error_with_an_extension_too_large_to_keep_loses_it_as_icmpv4(ptf):
    """A 504-byte original datagram (length 63) is 484 bytes as IPv4; a 488-byte extension would not
    fit RFC 1812's 576 even beside 128 bytes of it: the extension leaves (length 0)."""
    stateful_udp(ptf)
    quoted6 = bytes(IPv6(src=SERVER6, dst=V6_HOST, hlim=61) / UDP(sport=53, dport=5000) / (b"w" * 456))
    assert len(quoted6) == 504
    ptf.send(V6_PORT, from_v6_host(ICMPv6DestUnreach(code=4, length=63) / Raw(quoted6 + extension(labels=120)),
                                   dst=SERVER6))
    quoted4 = bytes(IP(src=V4_SERVER, dst=MAPPED, ttl=61, id=0) / UDP(sport=53, dport=40000) / (b"w" * 456))
    sends_exactly(ptf, to_v4_server(ICMP(type=3, code=3, length=0) / Raw(quoted4)), V4_PORT)


@BOTH
def test_routed_icmp_error_with_extension_is_forwarded_unchanged(ptf):
    """Not translated (routed IPv4 to IPv4): the parser walked the datagram to find the extension,
    and every byte leaves as it came, only the TTL one lower."""
    quoted = bytes(IP(src="198.51.100.9", dst="203.0.113.9", ttl=1, id=0) / UDP(sport=1, dport=33434) / (b"x" * 104))
    pkt = Ether(src=V4_HOST_MAC, dst=ROUTER_MAC) / IP(src="203.0.113.1", dst="198.51.100.9", ttl=20, id=5) / \
        ICMP(type=11, code=0, length=33) / Raw(quoted + extension())
    ptf.send(3, pkt)
    expected = pkt.copy()
    expected[Ether].src, expected[Ether].dst = ROUTER_MAC, V4_HOST_MAC
    expected[IP].ttl = 19
    del expected[IP].chksum
    sends_exactly(ptf, expected, V4_PORT)


# ---- 3. atomic fragments (RFC 7915 5.1.1, 5.3) ----

@BOTH
@pytest.mark.parametrize("data", [b"atomic", b"odd-length!"], ids=["even", "odd"])
def test_atomic_fragment_echo_request_gets_a_right_icmpv4_checksum(ptf, data):
    """RFC 7915 5.1.1: the Fragment header (offset 0, M 0) leaves; ID = low 16 bits of its
    identification, DF 0. The ICMPv4 checksum covers the ICMP message alone (no pseudo-header); it is
    also summed here by hand."""
    ptf.insert(session_v6(ptf, 1, V6_HOST, 0x1234, MAPPED, 0x4321))
    request = from_v6_host(IPv6ExtHdrFragment(id=0x0badf00d, m=0, offset=0) /
                           ICMPv6EchoRequest(id=0x1234, seq=7, data=data))
    icmp6 = bytes(request[ICMPv6EchoRequest])
    assert ones_sum(pseudo6(V6_HOST, SERVER6, len(icmp6), 58) + icmp6) == 0xffff   # what we send is right
    ptf.send(V6_PORT, request)
    expected = to_v4_server(ICMP(type=8, id=0x4321, seq=7) / data, id=0xf00d)
    assert ones_sum(bytes(expected[ICMP])) == 0xffff
    sends_exactly(ptf, expected, V4_PORT)


QUOTED = {   # transport of the inbound datagram in either family, the session entries it needs, bytes quoted, M
    "udp-atomic": (UDP(sport=53, dport=40000) / (b"u" * 57), UDP(sport=53, dport=5000) / (b"u" * 57),
                   lambda ptf: stateful_udp(ptf), 65, 0),
    "tcp-first-fragment": (TCP(sport=80, dport=41000, flags="A", seq=9, ack=3) / (b"v" * 100),
                           TCP(sport=80, dport=33000, flags="A", seq=9, ack=3) / (b"v" * 100),
                           lambda ptf: ptf.insert(session_v6(ptf, 6, V6_HOST, 33000, MAPPED, 41000)), 48, 1),
}


@BOTH
@pytest.mark.parametrize("kind", list(QUOTED))
def test_icmpv6_error_quoting_a_fragment_header_is_translated(ptf, kind):
    """RFC 7915 5.3: the quoted packet is translated as 5.1.1 says, Fragment header included: it leaves,
    the quoted IPv4 header gets its identification's low 16 bits, offset and MF, DF 0, and a Total
    Length without it. The error (reassembly time exceeded, 3/1) comes from the host itself."""
    l4_4, l4_6, sessions, quoted, more = QUOTED[kind]
    sessions(ptf)
    whole4 = bytes(IP(src=V4_SERVER, dst=MAPPED) / l4_4)[20:]
    whole6 = bytes(IPv6(src=SERVER6, dst=V6_HOST) / l4_6)[40:]
    frag6 = IPv6(src=SERVER6, dst=V6_HOST, hlim=61) / IPv6ExtHdrFragment(
        id=0x5555aaaa, m=more, offset=0, nh=l4_6.overload_fields[IPv6]["nh"]) / Raw(whole6[:quoted])
    ptf.send(V6_PORT, from_v6_host(ICMPv6TimeExceeded(code=1) / frag6, dst=SERVER6))
    frag4 = IP(src=V4_SERVER, dst=MAPPED, ttl=61, id=0xaaaa, flags="MF" if more else 0, frag=0,
               proto=l4_4.overload_fields[IP]["proto"]) / Raw(whole4[:quoted])
    sends_exactly(ptf, to_v4_server(ICMP(type=11, code=1) / frag4), V4_PORT)


# ---- 4. Packet Too Big for IPv6 with a Fragment header (RFC 7915 1.4 / 5) ----

def too_big(packet6, ipv4_mtu):
    """The Packet Too Big the switch sends from its own address, quoting up to 1280 bytes. Its MTU:
    the IPv4 MTU plus 20, the header difference, as for a packet without a Fragment header (Jool's
    graybox "cg"); plus 28 would fit this packet but not the host's plain ones."""
    return bytes(Ether(src=ROUTER_MAC, dst=V6_HOST_MAC) / IPv6(src=SWITCH_V6, dst=V6_HOST, hlim=64) /
                 ICMPv6PacketTooBig(mtu=ipv4_mtu + 20) / bytes(packet6[IPv6])[:1280 - 48])


def test_first_fragment_over_the_ipv4_mtu_gets_packet_too_big(ptf):
    """RFC 7915 1.4: the translator MUST send Packet Too Big (or fragment) when the packet exceeds the
    next hop's MTU; a first fragment (offset 0, M 1) through a session, 1448 bytes as IPv4."""
    stateful_udp(ptf)
    mtu(ptf, V4_PORT, 1400)
    before = sent(ptf, SENT_TOO_BIG)
    big = from_v6_host(IPv6ExtHdrFragment(id=0x77, m=1, offset=0) / UDP(sport=5000, dport=53, len=3000) /
                       (b"f" * 1420))
    ptf.send(V6_PORT, big)
    got = ptf.dataplane.poll(V6_PORT)
    ptf.verify_no_other_packets()
    assert got == too_big(big, 1400), \
        f"expected Packet Too Big with MTU 1420, got {Ether(got).summary() if got else 'nothing'}"
    assert sent(ptf, SENT_TOO_BIG) == before + 1


def test_later_fragment_of_an_eam_host_over_the_ipv4_mtu_gets_packet_too_big(ptf):
    """The same for a fragment after the first (offset 100, M 0) from an EAM host: no transport header
    is needed to translate it, so it must be translated or answered, not dropped."""
    ptf.insert(*eam(ptf, V6_HOST, HOST_EAM4))
    mtu(ptf, V4_PORT, 1400)
    big = from_v6_host(IPv6ExtHdrFragment(id=0x78, m=0, offset=100, nh=17) / Raw(b"g" * 1400))
    ptf.send(V6_PORT, big)
    got = ptf.dataplane.poll(V6_PORT)
    ptf.verify_no_other_packets()
    assert got == too_big(big, 1400), \
        f"expected Packet Too Big with MTU 1420, got {Ether(got).summary() if got else 'nothing'}"


# ---- 5. Fragmentation Needed -> Packet Too Big, never below 1280 (RFC 7915 4.2, 5) ----

def fragmentation_needed(ptf, advertised):
    """An IPv4 router's Fragmentation Needed about a 1500-byte packet the NAT64 sent for the host; the
    quoted UDP has no checksum, so its cut length is harmless. Returns the expected quoted IPv6 packet."""
    quoted4 = IP(src=MAPPED, dst=V4_SERVER, ttl=63, id=0, flags="DF", len=1500) / UDP(
        sport=40000, dport=53, len=1480, chksum=0) / (b"q" * 64)
    ptf.send(V4_PORT, from_v4_server(ICMP(type=3, code=4, nexthopmtu=advertised) / quoted4, src=V4_ROUTER))
    return IPv6(src=V6_HOST, dst=SERVER6, hlim=63, plen=1480) / UDP(sport=5000, dport=53, len=1480,
                                                                    chksum=0) / (b"q" * 64)


@BOTH
@pytest.mark.parametrize("advertised", [68, 576, 1000, 1259])
def test_fragmentation_needed_below_1260_gives_packet_too_big_1280(ptf, advertised):
    """RFC 7915 5: the MTU of the resulting Packet Too Big is never below 1280."""
    stateful_udp(ptf)
    quoted6 = fragmentation_needed(ptf, advertised)
    sends_exactly(ptf, to_v6_host(ICMPv6PacketTooBig(mtu=1280) / quoted6, src=embed(V4_ROUTER, POOL6, 96)), V6_PORT)


@pytest.mark.parametrize("v6_mtu,advertised,expected", [(1300, 1400, 1300), (1200, 1400, 1280), (1300, 1000, 1280)],
                         ids=["ipv6-link-1300", "ipv6-link-1200-floor", "advertised-1000-floor"])
@BOTH
def test_packet_too_big_is_limited_by_the_ipv6_next_hop_but_not_below_1280(ptf, v6_mtu, advertised, expected):
    """RFC 7915 4.2: minimum(advertised MTU + 20, MTU of the IPv6 next hop, ...), then the 1280 floor."""
    stateful_udp(ptf)
    mtu(ptf, V6_PORT, v6_mtu)
    quoted6 = fragmentation_needed(ptf, advertised)
    sends_exactly(ptf, to_v6_host(ICMPv6PacketTooBig(mtu=expected) / quoted6, src=embed(V4_ROUTER, POOL6, 96)),
                  V6_PORT)


# ---- 6. IPv4 UDP with checksum 0 (RFC 7915 4.5, RFC 6146 3.4) ----

@pytest.mark.parametrize("payload", [b"even payload", b"odd payload!!"], ids=["even", "odd"])
def test_unfragmented_ipv4_udp_without_checksum_gets_a_computed_one(ptf, payload):
    """RFC 7915 4.5 option 2 (stateful NAT64: compute): the IPv6 UDP checksum over the IPv6
    pseudo-header and the whole datagram, odd length padded; summed here by hand too."""
    ptf.insert(session_v4(ptf, 17, MAPPED, 40000, V6_HOST, 5000))
    ptf.send(V4_PORT, from_v4_server(UDP(sport=53, dport=40000, chksum=0) / payload))
    expected = to_v6_host(UDP(sport=53, dport=5000) / payload)
    udp = bytes(expected[UDP])
    assert udp[6:8] != b"\x00\x00" and ones_sum(pseudo6(SERVER6, V6_HOST, len(udp), 17) + udp) == 0xffff
    sends_exactly(ptf, expected, V6_PORT)


# ---- 7. IPv4 Identification of translated packets (RFC 7915 5.1, RFC 6864) ----

@BOTH
def test_each_packet_translated_without_a_fragment_header_gets_an_identification_of_its_own(ptf):
    """RFC 7915 5.1: without a Fragment header, "Identification: Set according to a Fragment
    Identification generator at the translator"; RFC 6864 4.2: a non-atomic datagram's (DF clear,
    as RFC 7915 makes every one of at most 1260 bytes) must not repeat within its lifetime for its
    addresses and protocol. 48 small datagrams and 16 of 1400 bytes (DF set) of one flow: the
    identifications differ, the header checksum is right for each. v1model draws them at random
    (64 of 65535: more than 4 alike has p < 1e-7), the SUME card counts."""
    stateful_udp(ptf)
    ids = []
    for i in range(64):
        payload = (b"%02d" % i) * (4 if i < 48 else 686)
        ptf.send(V6_PORT, from_v6_host(UDP(sport=5000, dport=53) / payload))
        got = ptf.dataplane.poll(V4_PORT)
        assert got is not None, f"datagram {i} not translated"
        header = got[14:34]
        assert ones_sum(header) == 0xffff, f"datagram {i}: header checksum"
        assert header[6] >> 5 == (2 if i >= 48 else 0), f"datagram {i}: flags"
        ids.append(int.from_bytes(header[4:6], "big"))
    ptf.verify_no_other_packets()
    assert len(set(ids[:48])) >= 44 and len(set(ids)) >= 60, ids
    assert ids.count(0) <= 1, ids


# ---- 8. hairpinning (RFC 7757 4.2 / Appendix B, RFC 6146 3.8) ----

A4, B4, B6 = HOST_EAM4, "203.0.113.66", "2001:db8:1::e42"


def eam_hairpin(ptf):
    ptf.insert(*eam(ptf, V6_HOST, A4), *eam(ptf, B6, B4), hairpin_route(ptf, "203.0.113.0", 24))
    ptf.send(V6_PORT, from_v6_host(UDP(sport=1000, dport=2000) / b"hi B", dst=embed(B4, POOL6, 96), hlim=64))
    got = ptf.dataplane.poll(V6_PORT)
    ptf.verify_no_other_packets()
    assert got is not None, "not hairpinned"
    return Ether(got)


def test_eam_hairpinning_rfc7757(ptf):
    """RFC 7757 4.2 and Appendix B.1 (Jool's "intrinsic" mode): A (EAM 203.0.113.5) sends to B's EAM
    address in pool6; B receives it from A's IPv4 address written into pool6 (not from A's own IPv6
    address: the source EAM is not used on the way back, so B's reply goes through the translator too),
    hop limit decremented once."""
    ptf.insert(*eam(ptf, V6_HOST, A4), *eam(ptf, B6, B4), hairpin_route(ptf, "203.0.113.0", 24))
    ptf.send(V6_PORT, from_v6_host(UDP(sport=1000, dport=2000) / b"hi B", dst=embed(B4, POOL6, 96), hlim=64))
    sends_exactly(ptf, to_v6_host(UDP(sport=1000, dport=2000) / b"hi B", src=embed(A4, POOL6, 96), dst=B6, hlim=63),
                  V6_PORT)


def test_eam_hairpinned_packet_hop_limit_is_decremented_once(ptf):
    """Only the hop limit of the previous test: 64 in, 63 out."""
    assert eam_hairpin(ptf)[IPv6].hlim == 63


def test_eam_hairpinned_packet_source_is_in_pool6(ptf):
    """Only the source of the previous test: A's IPv4 address (203.0.113.5) in pool6."""
    assert eam_hairpin(ptf)[IPv6].src == str(ipaddress.IPv6Address(embed(A4, POOL6, 96)))


def test_icmpv6_error_about_a_hairpinned_packet_is_hairpinned_back(ptf):
    """Jool's graybox "6791v66": an IPv6 router without an IPv4 address (no EAM) on B's side
    reports the packet A hairpinned to B. Its error is translated to ICMPv4 from an RFC 6791 pool
    address to A's EAM address, which the NAT64 owns, so it goes round once more: A receives it
    from that pool address in pool6, quoting its own packet as A sent it (its own address to B's
    address in pool6), one router hop later."""
    router, pool_address = "2001:db8:1::fe", "198.51.100.248"
    ptf.insert(*eam(ptf, V6_HOST, A4), *eam(ptf, B6, B4), hairpin_route(ptf, "203.0.113.0", 24))
    ptf.modify(ptf.client.table_entry(T + "rfc6791_pool", default=True, action=T + "use_rfc6791_pool",
                                      params={"first": pool_address, "count": 1}))
    quoted = IPv6(src=embed(A4, POOL6, 96), dst=B6, hlim=1) / UDP(sport=1000, dport=2000) / b"hi B"
    ptf.send(V6_PORT, from_v6_host(ICMPv6TimeExceeded(code=0) / quoted, src=router, dst=embed(A4, POOL6, 96),
                                   hlim=64))
    quoted_back = IPv6(src=V6_HOST, dst=embed(B4, POOL6, 96), hlim=1) / UDP(sport=1000, dport=2000) / b"hi B"
    sends_exactly(ptf, to_v6_host(ICMPv6TimeExceeded(code=0) / quoted_back, src=embed(pool_address, POOL6, 96),
                                  hlim=63), V6_PORT)


@pytest.mark.parametrize("mtu, back", [(1400, 1400), (1200, 1280)], ids=["1400", "below-1280"])
def test_packet_too_big_about_a_stateful_hairpinned_packet_is_hairpinned_back(ptf, mtu, back):
    """Jool's graybox "ptb66", through pool4 (RFC 6146 3.8), with a full-size packet: A's UDP to B's
    pool4 address went round the NAT64 to B; an IPv6 router on B's side, too small for it, sends a
    Packet Too Big (MTU 1 400) quoting all it can (1 232 bytes) to A's address as B saw it (A's
    mapping in pool6). That error leaves as a Fragmentation Needed (MTU 1 380, RFC 7915 5.2) from
    the router's RFC 6791 address to A's mapping, cut to 576 bytes (its checksum summed again in a
    second pass), so it goes round once more: A gets a Packet Too Big of MTU 1 400 again (4.2),
    quoting the 568 bytes left of its own packet as A sent it, one router hop later. (Before the
    fix, the pass that summed the checksum sent the Fragmentation Needed out untranslated.) A
    router's MTU below IPv6's minimum (1 200: FN 1 180 on the way) comes back as 1 280 (RFC 7915
    4.2), as Jool's "ptb66" expects."""
    router, pool_address = "2001:db8:1::fe", "198.51.100.248"
    b6, b4 = "2001:db8:1::b", "192.0.2.20"
    ptf.insert(session_v6(ptf, 17, V6_HOST, 5000, MAPPED, 40000), session_v4(ptf, 17, MAPPED, 40000, V6_HOST, 5000),
               session_v6(ptf, 17, b6, 80, b4, 8080), session_v4(ptf, 17, b4, 8080, b6, 80),
               hairpin_route(ptf, "192.0.2.0", 24))
    ptf.modify(ptf.client.table_entry(T + "rfc6791_pool", default=True, action=T + "use_rfc6791_pool",
                                      params={"first": pool_address, "count": 1}))
    quoted = IPv6(src=embed(MAPPED, POOL6, 96), dst=b6, hlim=62) / UDP(sport=40000, dport=80) / (b"x" * 1300)
    ptf.send(V6_PORT, from_v6_host(ICMPv6PacketTooBig(mtu=mtu) / bytes(quoted)[:1280 - 48], src=router,
                                   dst=embed(MAPPED, POOL6, 96), hlim=64))
    quoted_back = IPv6(src=V6_HOST, dst=embed(b4, POOL6, 96), hlim=62) / UDP(sport=5000, dport=8080) / (b"x" * 1300)
    left = 576 - 20 - 8 - 20   # of the transport header and payload, in the ICMPv4 error cut to 576 bytes
    sends_exactly(ptf, to_v6_host(ICMPv6PacketTooBig(mtu=back) / bytes(quoted_back)[:40 + left],
                                  src=embed(pool_address, POOL6, 96), hlim=63), V6_PORT)


def test_hairpinned_udp_without_a_checksum_reaches_the_other_host_with_one(ptf):
    """IPv6 UDP without a checksum (RFC 6936) from A to B's pool4 address leaves the first pass as
    IPv4 UDP without one (its zero kept), which the second pass gives a checksum computed over
    the datagram (RFC 7915 4.5), as IPv6 requires: B gets it summed, not zero."""
    b6, b4 = "2001:db8:1::b", "192.0.2.20"
    ptf.insert(session_v6(ptf, 17, V6_HOST, 5000, MAPPED, 40000), session_v4(ptf, 17, b4, 8080, b6, 80),
               hairpin_route(ptf, "192.0.2.0", 24))
    ptf.send(V6_PORT, from_v6_host(UDP(sport=5000, dport=8080, chksum=0) / b"tunnelled", dst=embed(b4, POOL6, 96),
                                   hlim=64))
    sends_exactly(ptf, to_v6_host(UDP(sport=40000, dport=80) / b"tunnelled", src=embed(MAPPED, POOL6, 96), dst=b6,
                                  hlim=63), V6_PORT)


def test_stateful_hairpinned_packet_hop_limit_is_decremented_once(ptf):
    """RFC 6146 3.8 through pool4: B sees A's pool4 transport address in pool6; the NAT64 is one hop."""
    b6, b4 = "2001:db8:1::b", "192.0.2.20"
    ptf.insert(session_v6(ptf, 17, V6_HOST, 5000, MAPPED, 40000), session_v4(ptf, 17, b4, 8080, b6, 80),
               hairpin_route(ptf, "192.0.2.0", 24))
    ptf.send(V6_PORT, from_v6_host(UDP(sport=5000, dport=8080) / b"GET", dst=embed(b4, POOL6, 96), hlim=64))
    sends_exactly(ptf, to_v6_host(UDP(sport=40000, dport=80) / b"GET", src=embed(MAPPED, POOL6, 96), dst=b6,
                                  hlim=63), V6_PORT)

# ---- 10. Sizes at the edges of 1 280 and 1 260 bytes (Jool's graybox RFC 7915 cases "c", "da") ----

def tcp_data(sport, dport, size, fill=b"t"):
    """A TCP segment of `size` bytes with its header (20)."""
    return TCP(sport=sport, dport=dport, flags="A", seq=1, ack=1) / (fill * (size - 20))


@BOTH
def test_ipv4_of_1260_bytes_fills_an_ipv6_link_of_1280_without_a_fragment_header(ptf):
    """Jool's "cb" and "cd" (RFC 7915 4: a Fragment header only for what is fragmented already): IPv4
    TCP of 1 260 bytes, with DF or without, becomes IPv6 of exactly 1 280 bytes on a link of 1 280,
    no Fragment header."""
    ptf.insert(session_v4(ptf, 6, MAPPED, 40000, V6_HOST, 5000))
    mtu(ptf, V6_PORT, 1280)
    for flags in ("DF", 0):
        ptf.send(V4_PORT, from_v4_server(tcp_data(80, 40000, 1240), flags=flags))
        expected = to_v6_host(tcp_data(80, 5000, 1240))
        assert len(expected[IPv6]) == 1280
        ptf.verify_packet(expected, V6_PORT)
    ptf.verify_no_other_packets()


def test_ipv4_of_1261_bytes_with_df_gets_fragmentation_needed_of_1260(ptf):
    """Jool's "ca" (RFC 7915 4.1): one byte more, with DF, on the same link: Fragmentation Needed of
    MTU 1 260, 576 bytes, quoting the packet."""
    ptf.insert(session_v4(ptf, 6, MAPPED, 40000, V6_HOST, 5000))
    mtu(ptf, V6_PORT, 1280)
    packet = from_v4_server(tcp_data(80, 40000, 1241), flags="DF")
    ptf.send(V4_PORT, packet)
    sends_exactly(ptf, from_switch4(ICMP(type=3, code=4, nexthopmtu=1260) / bytes(packet[IP])[:576 - 28]), V4_PORT)


@BOTH
def test_ipv6_over_1280_bytes_gets_df_and_of_1280_does_not(ptf):
    """Jool's "ch" and "ci" (RFC 7915 5.1): IPv6 TCP of 1 281 bytes becomes IPv4 of 1 261 with DF;
    of 1 280 bytes, IPv4 of 1 260 without DF."""
    ptf.insert(session_v6(ptf, 6, V6_HOST, 5000, MAPPED, 40000))
    for size, flags in ((1281, "DF"), (1280, 0)):
        ptf.send(V6_PORT, from_v6_host(tcp_data(5000, 80, size - 40, b"u")))
        expected = to_v4_server(tcp_data(40000, 80, size - 40, b"u"), flags=flags)
        assert len(expected[IP]) == size - 20
        ptf.verify_packet(expected, V4_PORT)
    ptf.verify_no_other_packets()


def test_packet_too_big_about_1281_bytes_quotes_the_ipv4_packet_with_df(ptf):
    """Jool's "da" (RFC 7915 5.2, 5.3): the host's Packet Too Big of MTU 1 280 quoting the first
    1 232 bytes of a 1 281-byte packet translated from the server becomes Fragmentation Needed of
    MTU 1 260 from the host's mapping, 576 bytes. The quoted IPv4 header is what a translation of
    the whole packet carries: Total Length 1 261 (from the quoted Payload Length, not the bytes
    there) and so DF (5.1: more than 1 260 bytes)."""
    ptf.insert(session_v6(ptf, 6, V6_HOST, 5000, MAPPED, 40000), session_v4(ptf, 6, MAPPED, 40000, V6_HOST, 5000))
    quoted6 = IPv6(src=SERVER6, dst=V6_HOST, hlim=63) / tcp_data(80, 5000, 1241, b"v")
    ptf.send(V6_PORT, from_v6_host(ICMPv6PacketTooBig(mtu=1280) / bytes(quoted6)[:1280 - 48]))
    quoted4 = IP(src=V4_SERVER, dst=MAPPED, ttl=63, flags="DF", id=0) / tcp_data(80, 40000, 1241, b"v")
    assert len(quoted4) == 1261
    sends_exactly(ptf, to_v4_server(ICMP(type=3, code=4, nexthopmtu=1260) / bytes(quoted4)[:576 - 28]), V4_PORT)


@BOTH
@pytest.mark.parametrize("more", [1, 0], ids=["M", "last"])
def test_a_later_fragment_of_1280_bytes_keeps_its_offset_flags_and_identification(ptf, more):
    """Jool's "cj" (RFC 7915 5.1.1): an EAM host's later fragment (offset 80 units, identification
    0x01020408) of 1 240 bytes of TCP data, 1 288 bytes with its headers, becomes an IPv4 fragment
    of 1 260 bytes: MF as M was, the same offset, the identification's low 16 bits, no DF, the
    bytes as they came."""
    ptf.insert(*eam(ptf, V6_HOST, HOST_EAM4))
    data = bytes(range(256)) * 4 + bytes(range(216))
    ptf.send(V6_PORT, from_v6_host(IPv6ExtHdrFragment(nh=6, offset=80, m=more, id=0x01020408) / Raw(data)))
    expected = to_v4_server(Raw(data), src=HOST_EAM4, flags="MF" if more else 0, id=0x0408)
    expected[IP].frag, expected[IP].proto = 80, 6
    assert len(expected[IP]) == 1260
    sends_exactly(ptf, expected, V4_PORT)


# ---- 9. IPv4 to a pool4 address without a BIB entry: done, see test_nat64_pipeline.py's
# test_udp_to_pool4_without_session_gets_port_unreachable_and_is_counted. ----
