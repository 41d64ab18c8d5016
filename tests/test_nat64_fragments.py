"""Stateful NAT64 of fragmented datagrams (RFC 6146 3.4: fragments MUST be handled, out of order
too; RFC 7915 4.1 and 5.1.1 say how their headers translate), through a softswitch the embedded
controller drives, with either pipeline: the switch translates a session's first fragment and
copies it to the controller (the SUME variant hands it over translated), which translates the
fragments after it (they carry no ports for the switch to look
up). Each datagram is reassembled here from what leaves the switch and its transport checksum
checked against the translated addresses, as the receiving host's stack would."""
import ipaddress
import struct
import time

import pytest
from scapy.layers.inet import ICMP, IP, TCP, UDP
from scapy.layers.inet6 import ICMPv6EchoRequest, IPv6, IPv6ExtHdrDestOpt, IPv6ExtHdrFragment, IPv6ExtHdrHopByHop
from scapy.layers.l2 import Ether
from scapy.packet import Raw

from nat64_setup import (PIPELINES, POOL6, PROGRAM, ROUTER_MAC, SUME_PROGRAM, V4_HOST_MAC, V4_PORT, V4_SERVER, V6_HOST,
                         V6_HOST_MAC, V6_PORT, driven_switch, embed)

POOL4 = ipaddress.ip_network("192.0.2.16/28")
SERVER6 = embed(V4_SERVER, POOL6, 96)
EAM_HOST, EAM_HOST4 = "2001:db8:1::77", "192.0.2.77"     # the EAMT's entries (RFC 7757): no session
EAM_PEER, EAM_PEER4 = "2001:db8:1::78", "192.0.2.78"     # ... and another IPv6 host, hairpinned to
EAM_SERVER6, EAM_SERVER = "2001:db8:2::99", "198.51.100.99"   # ... and an IPv4 host, routed to
FABRIC = {
    "apps": {"org.nat64fabric.app": {"nat64": {
        "pool6": POOL6 + "/96",
        "pool4": {"addresses": [str(POOL4)], "blockSize": 64, "blocksPerSubscriber": 4},
        "eamt": [{"ipv6Prefix": EAM_HOST + "/128", "ipv4Prefix": EAM_HOST4 + "/32"},
                 {"ipv6Prefix": EAM_PEER + "/128", "ipv4Prefix": EAM_PEER4 + "/32"},
                 {"ipv6Prefix": EAM_SERVER6 + "/128", "ipv4Prefix": EAM_SERVER + "/32"}],
    }}},
    "devices": {"device:border1": {
        "basic": {"managementAddress": "grpc://127.0.0.1:{port}?device_id=1"},
        "nat64fabric": {"role": "BORDER", "routerMac": ROUTER_MAC, "ipv4": "192.0.2.1", "ipv6": "2001:db8:1::1",
                        "routes": [{"prefix": "2001:db8:1::/64", "port": V6_PORT, "nextHopMac": V6_HOST_MAC},
                                   {"prefix": "198.51.100.0/24", "port": V4_PORT, "nextHopMac": V4_HOST_MAC},
                                   {"prefix": "192.0.2.64/27", "action": "hairpin"}]}}},
}
FRAGMENT_MIN = 2.0     # RFC 6146 4: how long a fragment may wait for its first




@pytest.fixture(scope="module", params=PIPELINES)
def border(request, tmp_path_factory):
    """The v1model pipeline, which copies first fragments; the NetFPGA SUME variant, which hands
    them over translated (FINISH_TRACK) for the controller to send on."""
    program, links = (PROGRAM, "fr") if request.param == "v1model" else (SUME_PROGRAM, "fs")
    with driven_switch(tmp_path_factory.mktemp("fragments"), program, FABRIC, links) as running:
        yield running


def stats(api):
    return api.call("GET", "/stats")[1]


def ones_complement_sum(data):
    if len(data) % 2:
        data += b"\0"
    total = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while total >> 16:
        total = (total & 0xffff) + (total >> 16)
    return total


def checksum_holds(src, dst, proto, segment):
    """The transport checksum of a whole segment is right for these addresses (RFC 768, RFC 8200 8.1)."""
    a, b = ipaddress.ip_address(src), ipaddress.ip_address(dst)
    if a.version == 4:
        pseudo = a.packed + b.packed + struct.pack("!BBH", 0, proto, len(segment))
    else:
        pseudo = a.packed + b.packed + struct.pack("!IxxxB", len(segment), proto)
    return ones_complement_sum(pseudo + segment) == 0xffff


def segment(l4, payload, src, dst):
    """The transport segment's bytes with its checksum, as a host of that family sends it."""
    ip = IPv6(src=src, dst=dst) if ":" in src else IP(src=src, dst=dst)
    built = ip / l4 / payload
    return bytes(built[l4.__class__])


def v6_fragments(data, proto, ident, cut, before=None, src=V6_HOST, dst=SERVER6):
    """The IPv6 host's fragments of a datagram whose transport bytes are `data`, cut every `cut`
    bytes; `before`: extension headers each fragment carries before its Fragment header."""
    out = []
    for at in range(0, len(data), cut):
        ip = IPv6(src=src, dst=dst, hlim=64)
        out.append(Ether(src=V6_HOST_MAC, dst=ROUTER_MAC) / (ip / before if before is not None else ip) /
                   IPv6ExtHdrFragment(nh=proto, id=ident, offset=at // 8, m=int(at + cut < len(data))) /
                   Raw(data[at:at + cut]))
    return out


def v4_fragments(data, proto, ident, cut, dst):
    out = []
    for at in range(0, len(data), cut):
        out.append(Ether(src=V4_HOST_MAC, dst=ROUTER_MAC) /
                   IP(src=V4_SERVER, dst=dst, ttl=64, id=ident, proto=proto, frag=at // 8,
                      flags="MF" if at + cut < len(data) else 0) / Raw(data[at:at + cut]))
    return out


def collect(dataplane, port, family, ident, length, timeout=5.0):
    """The fragments of one datagram leaving on `port` until its `length` bytes are all there: by offset."""
    pieces = {}
    deadline = time.time() + timeout
    while sum(len(data) for _, data in pieces.values()) < length and time.time() < deadline:
        frame = dataplane.poll(port, timeout=max(0.05, deadline - time.time()))
        if frame is None:
            break
        pkt = Ether(frame)
        piece = None
        if family == 4 and IP in pkt and pkt[IP].id == ident & 0xffff:
            piece = pkt[IP].frag * 8, pkt[IP], bytes(pkt[IP].payload)[:pkt[IP].len - 20]
        elif family == 6 and IPv6ExtHdrFragment in pkt and pkt[IPv6ExtHdrFragment].id == ident:
            f = pkt[IPv6ExtHdrFragment]
            piece = f.offset * 8, pkt[IPv6], bytes(f.payload)[:pkt[IPv6].plen - 8]
        if piece is not None:
            assert piece[0] not in pieces, f"the fragment at {piece[0]} came twice"
            pieces[piece[0]] = piece[1:]
    return {at: p for at, (_, p) in pieces.items()}, [h for h, _ in pieces.values()]


def reassembled(pieces, length):
    """The datagram's transport bytes when the pieces tile it exactly, else an AssertionError."""
    out, at = b"", 0
    for offset in sorted(pieces):
        assert offset == at, f"a gap or overlap at {at}: pieces at {sorted(pieces)}"
        out += pieces[offset]
        at += len(pieces[offset])
    assert at == length, f"{at} of {length} bytes arrived: pieces at {sorted(pieces)}"
    return out


def open_session(border, sport, proto=UDP):
    """A session for V6_HOST:sport to V4_SERVER:53 through an unfragmented packet; its IPv4 transport address."""
    api, dataplane, log = border
    l4 = UDP(sport=sport, dport=53) if proto is UDP else TCP(sport=sport, dport=53, flags="S", seq=1000)
    for _ in range(10):
        dataplane.send(V6_PORT, Ether(src=V6_HOST_MAC, dst=ROUTER_MAC) / IPv6(src=V6_HOST, dst=SERVER6) / l4 / b"open")
        out = dataplane.poll(V4_PORT, timeout=1)
        if out is not None:
            ip = Ether(out)[IP]
            return ip.src, ip[proto].sport
    raise AssertionError(log.read_text()[-3000:])


@pytest.mark.parametrize("proto", [UDP, TCP], ids=["udp", "tcp"])
def test_every_fragment_of_an_ipv6_datagram_is_translated(border, proto):
    """Three IPv6 fragments of a 3000-byte segment of a session (RFC 7915 5.1.1): three IPv4
    fragments of the same sizes and offsets, the identification's low 16 bits, MF on all but the
    last, DF clear; reassembled, the segment has the session's source port and a right checksum."""
    api, dataplane, _ = border
    sport = 6000 if proto is UDP else 6001
    src4, port4 = open_session(border, sport, proto)
    l4 = UDP(sport=sport, dport=53) if proto is UDP else TCP(sport=sport, dport=53, flags="A", seq=1001, ack=1)
    data = segment(l4, bytes(range(256)) * 12, V6_HOST, SERVER6)
    ident = 0x5eed0000 + sport
    for f in v6_fragments(data, 17 if proto is UDP else 6, ident, 1232):
        dataplane.send(V6_PORT, f)
    pieces, headers = collect(dataplane, V4_PORT, 4, ident, len(data))
    whole = reassembled(pieces, len(data))
    assert sorted(pieces) == [0, 1232, 2464]
    for h in headers:
        assert (h.src, h.dst, h.ttl, h.proto, h.flags.DF) == (src4, V4_SERVER, 63, 17 if proto is UDP else 6, 0)
        assert h.flags.MF == (h.frag * 8 < 2464)
        assert ones_complement_sum(bytes(h)[:20]) == 0xffff, "the header checksum"
    assert struct.unpack("!HH", whole[:4]) == (port4, 53)
    assert whole[8 if proto is UDP else 20:] == data[8 if proto is UDP else 20:]
    assert checksum_holds(src4, V4_SERVER, 17 if proto is UDP else 6, whole)


def test_a_datagram_whose_first_fragment_opens_the_session(border):
    """No packet of the flow before: the first fragment is punted as a session miss and sent back
    through the pipeline once its session is set up; the fragments after it, punted meanwhile,
    wait for its copy. All three arrive, from the new mapping."""
    api, dataplane, _ = border
    data = segment(UDP(sport=6010, dport=53), b"new flow " * 300, V6_HOST, SERVER6)
    ident = 0x6010
    for f in v6_fragments(data, 17, ident, 1232):
        dataplane.send(V6_PORT, f)
    pieces, headers = collect(dataplane, V4_PORT, 4, ident, len(data))
    whole = reassembled(pieces, len(data))
    src4 = headers[0].src
    assert ipaddress.ip_address(src4) in POOL4
    assert {h.src for h in headers} == {src4}
    assert checksum_holds(src4, V4_SERVER, 17, whole) and whole[2:4] == struct.pack("!H", 53)


def test_fragments_with_extension_headers_before_their_fragment_header(border):
    """Hop-by-Hop and Destination Options before the Fragment header (RFC 8200 4.5: in every
    fragment) are left out (RFC 7915 5.1), and the first fragment still opens its session and
    tells the controller how to translate the others."""
    api, dataplane, _ = border
    data = segment(UDP(sport=6011, dport=53), b"options " * 300, V6_HOST, SERVER6)
    ident = 0x6011
    for f in v6_fragments(data, 17, ident, 1200, before=IPv6ExtHdrHopByHop() / IPv6ExtHdrDestOpt()):
        dataplane.send(V6_PORT, f)
    pieces, headers = collect(dataplane, V4_PORT, 4, ident, len(data))
    whole = reassembled(pieces, len(data))
    assert {(h.proto, h.ihl) for h in headers} == {(17, 5)}
    assert checksum_holds(headers[0].src, V4_SERVER, 17, whole)


def test_every_fragment_of_an_ipv4_datagram_is_translated_and_cut_to_the_ipv6_mtu(border):
    """Full-size IPv4 fragments to a session's pool4 address and port (RFC 7915 4.1): IPv6
    fragments with a Fragment header carrying the identification, each cut to the lowest IPv6
    MTU (1280) as the switch cuts the first; reassembled, the datagram reaches the host's port
    with a right checksum."""
    api, dataplane, _ = border
    src4, port4 = open_session(border, 6002)
    data = segment(UDP(sport=53, dport=port4), b"v4 side " * 500, V4_SERVER, src4)
    ident = 0x4242
    for f in v4_fragments(data, 17, ident, 1480, src4):
        dataplane.send(V4_PORT, f)
    pieces, headers = collect(dataplane, V6_PORT, 6, ident, len(data))
    whole = reassembled(pieces, len(data))
    assert len(pieces) > 3, "the 1528-byte translations are cut to 1280"
    for h in headers:
        assert (h.src, h.dst, h.hlim, h.nh) == (SERVER6, V6_HOST, 63, 44)
        assert h.plen + 40 <= 1280
    assert struct.unpack("!HH", whole[:4]) == (53, 6002)
    assert whole[8:] == data[8:]
    assert checksum_holds(SERVER6, V6_HOST, 17, whole)


@pytest.mark.parametrize("host, host4", [(V6_HOST, None), (EAM_HOST, EAM_HOST4)], ids=["session", "eam"])
def test_an_echo_in_fragments_is_translated_both_ways(border, host, host4):
    """RFC 7915 4.2 and 5.2: a 3000-byte echo request from the IPv6 host in three fragments, its
    first packet: the switch punts the first fragment (the ICMPv6 checksum counts the whole
    message's length, which only the last tells) once its session is set up, and the controller
    translates it when the last has come, and sends the fragments after it then, in their order.
    Reassembled, an ICMPv4 echo request with the session's
    identifier and a right checksum; the server's reply, in full-size IPv4 fragments, comes back
    as an ICMPv6 echo reply with the host's identifier and a checksum right for its pseudo-header.
    An EAM host's (RFC 7757) the same way without a session: from its EAM's IPv4 address, its
    identifier kept; the switch punts the fragments after the first too, which tell the length."""
    api, dataplane, _ = border
    ident = 0xec0 if host4 is None else 0xec2
    request = bytes(IPv6(src=host, dst=SERVER6) / ICMPv6EchoRequest(id=0x7e57, seq=1, data=bytes(range(256)) * 12))[40:]
    for f in v6_fragments(request, 58, ident, 1232, src=host):
        dataplane.send(V6_PORT, f)
    pieces, headers = collect(dataplane, V4_PORT, 4, ident, len(request))
    assert list(pieces) == sorted(pieces), "as they came, the first first (RFC 7915 5: a flow's order kept)"
    whole = reassembled(pieces, len(request))
    kind, code, _, id4, seq = struct.unpack("!BBHHH", whole[:8])
    assert (kind, code, seq, whole[8:]) == (8, 0, 1, request[8:])
    assert ones_complement_sum(whole) == 0xffff, "the ICMPv4 checksum"
    assert {h.proto for h in headers} == {1}
    if host4 is not None:
        assert ({h.src for h in headers}, id4) == ({host4}, 0x7e57)
    reply = bytes(ICMP(type=0, id=id4, seq=1) / whole[8:])
    for f in v4_fragments(reply, 1, ident + 1, 1480, headers[0].src):
        dataplane.send(V4_PORT, f)
    pieces, headers = collect(dataplane, V6_PORT, 6, ident + 1, len(reply))
    assert list(pieces) == sorted(pieces), "as they came, the first first (RFC 7915 4)"
    whole6 = reassembled(pieces, len(reply))
    kind, code, _, id6, seq = struct.unpack("!BBHHH", whole6[:8])
    assert (kind, code, id6, seq, whole6[8:]) == (129, 0, 0x7e57, 1, request[8:])
    assert {h.dst for h in headers} == {host}
    assert checksum_holds(SERVER6, host, 58, whole6), "the ICMPv6 checksum"


@pytest.mark.parametrize("host", [V6_HOST, EAM_HOST], ids=["session", "eam"])
def test_an_echo_in_fragments_hairpinned_to_an_eam_host_comes_from_pool6(border, host):
    """RFC 7757 4.2 (its Appendix B): an echo request in three fragments from an IPv6 host to
    another's EAM IPv4 address reaches that host from the sender's IPv4 address written into pool6,
    as an unfragmented one does, not mapped back by the sender's EAM (a session host's: its pool4
    address); one router hop (hop limit 63), an EAM host's identifier kept, the ICMPv6 checksum
    right for the new pseudo-header."""
    api, dataplane, _ = border
    ident = 0xec4 if host == V6_HOST else 0xec6
    request = bytes(IPv6(src=host, dst=embed(EAM_PEER4, POOL6, 96)) /
                    ICMPv6EchoRequest(id=0x7e58, seq=1, data=bytes(range(256)) * 12))[40:]
    for f in v6_fragments(request, 58, ident, 1232, src=host, dst=embed(EAM_PEER4, POOL6, 96)):
        dataplane.send(V6_PORT, f)
    pieces, headers = collect(dataplane, V6_PORT, 6, ident, len(request))
    whole = reassembled(pieces, len(request))
    kind, code, _, id6, seq = struct.unpack("!BBHHH", whole[:8])
    assert (kind, code, seq, whole[8:]) == (128, 0, 1, request[8:])
    source4 = ipaddress.ip_address(ipaddress.ip_address(headers[0].src).packed[-4:])
    assert {h.src for h in headers} == {embed(str(source4), POOL6, 96)}
    if host == EAM_HOST:
        assert (str(source4), id6) == (EAM_HOST4, 0x7e58)
    else:
        assert source4 in POOL4, "the session's pool4 address"
    assert {(h.dst, h.hlim) for h in headers} == {(EAM_PEER, 63)}
    assert checksum_holds(headers[0].src, EAM_PEER, 58, whole), "the ICMPv6 checksum"


def test_an_echo_in_fragments_from_an_eam_host_to_a_session_host_comes_from_pool6(border):
    """RFC 6146 3.8 with RFC 7757 4.2: an EAM host's echo request in three fragments to the pool4
    address and identifier of another IPv6 host's echo mapping reaches that host from the sender's
    IPv4 address written into pool6, as an unfragmented one does, not mapped back by its EAM; the
    host's own identifier, one hop, the ICMPv6 checksum right for the new pseudo-header."""
    api, dataplane, log = border
    for _ in range(10):
        dataplane.send(V6_PORT, Ether(src=V6_HOST_MAC, dst=ROUTER_MAC) / IPv6(src=V6_HOST, dst=SERVER6) /
                       ICMPv6EchoRequest(id=0x5e55, seq=1))
        out = dataplane.poll(V4_PORT, timeout=1)
        if out is not None:
            break
    else:
        raise AssertionError(log.read_text()[-3000:])
    mapped4, mapped_id = Ether(out)[IP].src, Ether(out)[ICMP].id
    ident = 0xece
    request = bytes(IPv6(src=EAM_HOST, dst=embed(mapped4, POOL6, 96)) /
                    ICMPv6EchoRequest(id=mapped_id, seq=2, data=bytes(range(256)) * 12))[40:]
    for f in v6_fragments(request, 58, ident, 1232, src=EAM_HOST, dst=embed(mapped4, POOL6, 96)):
        dataplane.send(V6_PORT, f)
    pieces, headers = collect(dataplane, V6_PORT, 6, ident, len(request))
    whole = reassembled(pieces, len(request))
    kind, code, _, id6, seq = struct.unpack("!BBHHH", whole[:8])
    assert (kind, code, id6, seq, whole[8:]) == (128, 0, 0x5e55, 2, request[8:])
    source = embed(EAM_HOST4, POOL6, 96)
    assert {(h.src, h.dst, h.hlim) for h in headers} == {(source, V6_HOST, 63)}
    assert checksum_holds(source, V6_HOST, 58, whole), "the ICMPv6 checksum"


@pytest.mark.parametrize("host, proto", [(V6_HOST, 58), (EAM_HOST, 58), (V6_HOST, 17)],
                         ids=["session-echo", "eam-echo", "session-udp"])
def test_fragments_to_an_ipv4_host_an_eam_names_reach_it(border, host, proto):
    """RFC 7757 3.1: an IPv6 host's datagram in three fragments to the IPv6 address an EAM gives
    an IPv4 host reaches that host in IPv4, every fragment: those the controller translates (an
    echo's, a session's after the first) go through the pipeline as IPv4 to an address the EAMT
    names, routed there, not translated back to IPv6. One hop (TTL 63)."""
    api, dataplane, _ = border
    ident = {(V6_HOST, 58): 0xec8, (EAM_HOST, 58): 0xeca, (V6_HOST, 17): 0xecc}[host, proto]
    l4 = ICMPv6EchoRequest(id=0x7e59, seq=1) if proto == 58 else UDP(sport=6020, dport=53)
    data = segment(l4, bytes(range(256)) * 12, host, EAM_SERVER6)
    for f in v6_fragments(data, proto, ident, 1232, src=host, dst=EAM_SERVER6):
        dataplane.send(V6_PORT, f)
    pieces, headers = collect(dataplane, V4_PORT, 4, ident, len(data))
    whole = reassembled(pieces, len(data))
    assert sorted(pieces) == [0, 1232, 2464]
    source = headers[0].src
    assert {(h.src, h.dst, h.ttl, h.proto) for h in headers} == {(source, EAM_SERVER, 63, 1 if proto == 58 else 17)}
    if host == EAM_HOST:
        assert source == EAM_HOST4
    else:
        assert ipaddress.ip_address(source) in POOL4
    if proto == 58:
        assert whole[:2] == b"\x08\x00" and whole[8:] == data[8:]
        assert ones_complement_sum(whole) == 0xffff, "the ICMPv4 checksum"
    else:
        assert whole[8:] == data[8:] and checksum_holds(source, EAM_SERVER, 17, whole)


def test_fragments_that_come_before_their_first_wait_for_it(border):
    """RFC 6146 3.4: out of order. The last fragment, then the middle one, then the first: all
    three translated once the first is (the controller held the others)."""
    api, dataplane, _ = border
    src4, port4 = open_session(border, 6003)
    data = segment(UDP(sport=6003, dport=53), b"late " * 600, V6_HOST, SERVER6)
    ident = 0x0bad0ff5
    before = stats(api).get("fragments.held", 0)
    for f in reversed(v6_fragments(data, 17, ident, 1232)):
        dataplane.send(V6_PORT, f)
        time.sleep(0.2)
    pieces, _ = collect(dataplane, V4_PORT, 4, ident, len(data))
    whole = reassembled(pieces, len(data))
    assert checksum_holds(src4, V4_SERVER, 17, whole) and whole[:2] == struct.pack("!H", port4)
    assert stats(api).get("fragments.held", 0) - before == 2


def test_a_fragment_whose_first_never_comes_is_dropped_after_fragment_min(border):
    """A fragment without its first is held FRAGMENT_MIN (2 s), then dropped and counted; nothing
    is sent for it, and the switch translates other datagrams as before."""
    api, dataplane, _ = border
    open_session(border, 6004)
    orphan = v6_fragments(segment(UDP(sport=6004, dport=53), b"o" * 2000, V6_HOST, SERVER6), 17, 0x0dd, 1232)[1]
    before = stats(api).get("fragments.expired", 0)
    dataplane.send(V6_PORT, orphan)
    assert dataplane.poll(V4_PORT, timeout=FRAGMENT_MIN + 0.5) is None
    # What is held expires when the controller next looks at fragments: another datagram's.
    data = segment(UDP(sport=6004, dport=53), b"next" * 500, V6_HOST, SERVER6)
    for f in v6_fragments(data, 17, 0x0dd0, 1232):
        dataplane.send(V6_PORT, f)
    pieces, _ = collect(dataplane, V4_PORT, 4, 0x0dd0, len(data))
    reassembled(pieces, len(data))
    assert stats(api).get("fragments.expired", 0) - before == 1
    assert dataplane.poll(V4_PORT, timeout=0.5) is None, "the orphan was never sent"
