"""What goes through the controller, through a softswitch the embedded controller drives, with
either pipeline (address-dependent filtering on, the IPv4 link's MTU 1000, below what IPv6 allows):

- IPv4 SYNs the NAT64 would not translate (RFC 6146 3.5.2.2, RFC 5382 REQ-4): the switch punts
  them, the controller holds each for TCP_INCOMING_SYN (6 s). If the IPv6 host's SYN for that
  connection comes meanwhile (a simultaneous open), the held SYN is dropped and the connection
  opens; otherwise the remote gets Destination Unreachable, Port Unreachable quoting its SYN,
  never sooner than 6 s. Filtering lets a SYN to a mapping that exists be held too; a SYN to a
  pool4 address without a mapping gives the host's SYN to its sender that address for the new
  mapping, where pool4 lets the host have it. When externally initiated TCP
  is dropped, a SYN the switch's address filter lets by goes to the controller too, which lets
  through only one of a connection the host opened.
- A mapping whose TCP sessions are all transitory: its segments, copied, re-establish them.
- The switch's answers to packets the controller sends through its pipeline (a flow's first
  packet, once its session is set up): a v1model switch sends its errors back out of the port the
  packet came in by, the CPU port for these; a SUME card hands them over. The controller routes
  them on. What the switch may not send whole (at most 1260 bytes translated from IPv6, without
  DF, over the smaller IPv4 link) the controller fragments to that link's MTU.
- ICMP errors whose RFC 4884 extension fits their translation only with their datagram cut: the
  switch hands them over, the controller cuts them and sends them back.
- What the controller writes for the switch's own errors: without an RFC 6791 pool, the switch's
  IPv4 address is the source of the IPv6 routers' errors it translates."""
import copy
import ipaddress
import time

import pytest
from scapy.layers.inet import ICMP, IP, TCP, UDP, IPerror, TCPerror, UDPerror
from scapy.layers.inet6 import (ICMPv6DestUnreach, ICMPv6PacketTooBig, ICMPv6TimeExceeded, IPerror6, IPv6,
                                IPv6ExtHdrFragment)
from scapy.layers.l2 import Ether
from scapy.packet import Raw

from nat64_setup import (POOL6, PROGRAM, ROUTER_MAC, SUME_PROGRAM, V4_HOST_MAC, V4_PORT, V4_SERVER, V6_HOST,
                         V6_HOST_MAC, V6_PORT, driven_switch, embed)
from test_nat64_fragments import (EAM_HOST, EAM_HOST4, EAM_SERVER, FABRIC as FRAGMENTS_FABRIC, PIPELINES,
                                  checksum_holds, collect, ones_complement_sum, open_session, reassembled, stats)
from test_nat64_rfc_audit import extension
from test_nat64_pipeline import WRONG_BY, ones_add, summed, summed_wrong, summing_to_zero

V4_LINK_MTU = 1000
FABRIC = copy.deepcopy(FRAGMENTS_FABRIC)
FABRIC["apps"]["org.nat64fabric.app"]["nat64"]["addressDependentFiltering"] = True
FABRIC["devices"]["device:border1"]["nat64fabric"]["portMtus"] = {str(V4_PORT): V4_LINK_MTU}
POOL4 = ipaddress.ip_network(FABRIC["apps"]["org.nat64fabric.app"]["nat64"]["pool4"]["addresses"][0])
SWITCH_V4 = FABRIC["devices"]["device:border1"]["nat64fabric"]["ipv4"]
INCOMING_SYN = 6.0      # RFC 6146 4: TCP_INCOMING_SYN, the default
REMOTE = "198.51.100.9"      # not V4_SERVER: the mapping has not sent to it
ROUTER4 = "198.51.100.1"     # an IPv4 router on the way to the server


@pytest.fixture(scope="module", params=PIPELINES)
def border(request, tmp_path_factory):
    program, links = (PROGRAM, "cp") if request.param == "v1model" else (SUME_PROGRAM, "cs")
    with driven_switch(tmp_path_factory.mktemp("controller-path"), program, FABRIC, links) as running:
        yield running


def shown(api):
    return "\n".join(f"{k} {v}" for k, v in stats(api).items() if "Second" not in k and "latency" not in k)


def from_remote(l4, dst, src=REMOTE):
    return Ether(src=V4_HOST_MAC, dst=ROUTER_MAC) / IP(src=src, dst=dst, ttl=64) / l4


def from_host(l4, dst=REMOTE):
    return Ether(src=V6_HOST_MAC, dst=ROUTER_MAC) / IPv6(src=V6_HOST, dst=embed(dst, POOL6, 96), hlim=64) / l4


def unreachables(dataplane, until):
    """ICMPv4 and ICMPv6 Destination Unreachables leaving either side until `until`, with when each came."""
    out = []
    while time.time() < until:
        for port in (V4_PORT, V6_PORT):
            frame = dataplane.poll(port, timeout=0.05)
            if frame is not None and (ICMP in Ether(frame) and Ether(frame)[ICMP].type == 3
                                      or ICMPv6DestUnreach in Ether(frame)):
                out.append((time.time(), Ether(frame)))
    return out


def test_syns_without_a_mapping_are_answered_port_unreachable_after_tcp_incoming_syn(border):
    """An unsolicited SYN from IPv4, sent twice (a retransmission waits with the first: one
    answer), and an IPv6 host's SYN to a pool4 address without a mapping, which goes round the
    pipeline a second time as IPv4 and is held there (RFC 6146 3.8; Jool's graybox "pkt-queue46"
    and "pkt-queue66"): each answered once, no sooner than 6 s, the hairpinned one reaching the
    host translated, as ICMPv6 Port Unreachable (1/4) quoting the SYN as it sent it. An IPv4 host
    the EAMT also names (IPv6 hosts reach 198.51.100.99 as 2001:db8:2::99) gets its Port
    Unreachable as it is, out of the port its SYN came in by, not through the EAMT into IPv6.
    (One test, so that the 6 s are waited once.)"""
    api, dataplane, log = border
    before = stats(api).get("heldSyns.refused", 0)
    syn = from_remote(TCP(sport=40123, dport=7777, flags="S", seq=99), dst=str(POOL4[5]))
    eam_syn = from_remote(TCP(sport=40124, dport=7778, flags="S", seq=7), dst=str(POOL4[6]), src=EAM_SERVER)
    target = str(POOL4[7])
    sent = time.time()
    dataplane.send(V4_PORT, syn)
    dataplane.send(V4_PORT, syn)
    dataplane.send(V4_PORT, eam_syn)
    dataplane.send(V6_PORT, from_host(TCP(sport=33002, dport=8888, flags="S", seq=5), dst=target))
    answers = unreachables(dataplane, sent + INCOMING_SYN + 3)
    assert len(answers) == 3, (answers, shown(api))
    assert all(at - sent >= INCOMING_SYN for at, _ in answers), f"RFC 5382 REQ-4 asks at least 6 s: {answers}"
    errors = {e[IP].dst: e for _, e in answers if IP in e}
    assert sorted(errors) == sorted([REMOTE, EAM_SERVER]), answers
    error = errors[REMOTE]
    assert (error[IP].src, error[ICMP].code) == (SWITCH_V4, 3)
    assert bytes(error[ICMP].payload) == bytes(syn[IP]), "the SYN is quoted as it came"
    error = errors[EAM_SERVER]
    assert (error[Ether].dst, error[IP].src, error[ICMP].code) == (V4_HOST_MAC, SWITCH_V4, 3)
    assert bytes(error[ICMP].payload) == bytes(eam_syn[IP]), "the SYN is quoted as it came"
    (error6,) = [e for _, e in answers if IPv6 in e]
    quoted = error6[IPerror6]
    assert (error6[IPv6].dst, error6[ICMPv6DestUnreach].code) == (V6_HOST, 4)
    # built from the switch's IPv4 address, translated on the way back: that address in pool6, one hop
    assert (error6[IPv6].src, error6[IPv6].hlim) == (embed(SWITCH_V4, POOL6, 96), 63)
    assert (quoted.src, quoted.dst, quoted[TCPerror].sport, quoted[TCPerror].dport) == (
        V6_HOST, embed(target, POOL6, 96), 33002, 8888)
    assert stats(api).get("heldSyns.refused", 0) == before + 3


def test_a_session_a_rst_made_transitory_is_established_again_by_the_next_segment(border):
    """RFC 6146 3.5.2.2: a RST moves an established session to TRANS (4 minutes), and any packet
    but a RST takes it back to ESTABLISHED (2 hours 4 minutes). The switch copies a transitory
    mapping's segments to the controller (a SUME card hands them over), so the host's next data
    segment, which the endpoints sent after ignoring the RST, re-establishes it."""
    api, dataplane, log = border

    def state():
        (session,) = [s for s in api.call("GET", "/sessions?protocol=TCP&ipv6Address=" + V6_HOST)[1]["sessions"]
                      if s["ipv6Port"] == 33005]
        return session["tcpState"], session["lifetimeSeconds"]

    def settled(want):
        deadline = time.time() + 5
        while state() != want and time.time() < deadline:
            time.sleep(0.1)
        return state()

    dataplane.send(V6_PORT, from_host(TCP(sport=33005, dport=80, flags="S", seq=10), dst=V4_SERVER))
    out = dataplane.poll(V4_PORT, timeout=5)
    assert out is not None and TCP in Ether(out), log.read_text()[-3000:]
    mapped = Ether(out)[IP].src, Ether(out)[TCP].sport
    dataplane.send(V4_PORT, from_remote(TCP(sport=80, dport=mapped[1], flags="SA", seq=70, ack=11),
                                        dst=mapped[0], src=V4_SERVER))
    assert dataplane.poll(V6_PORT, timeout=5) is not None
    assert settled(("ESTABLISHED", 7440)) == ("ESTABLISHED", 7440)
    dataplane.send(V4_PORT, from_remote(TCP(sport=80, dport=mapped[1], flags="R", seq=71), dst=mapped[0],
                                        src=V4_SERVER))
    assert dataplane.poll(V6_PORT, timeout=5) is not None
    assert settled(("TRANS", 240)) == ("TRANS", 240)
    time.sleep(0.5)                                  # the mapping's entries written transitory
    dataplane.send(V6_PORT, from_host(TCP(sport=33005, dport=80, flags="A", seq=11, ack=71) / b"still here",
                                      dst=V4_SERVER))
    assert dataplane.poll(V4_PORT, timeout=5) is not None, "translated as before"
    assert settled(("ESTABLISHED", 7440)) == ("ESTABLISHED", 7440), shown(api)


DROPPING = copy.deepcopy(FABRIC)
DROPPING["apps"]["org.nat64fabric.app"]["nat64"]["externallyInitiatedTcp"] = "drop"


@pytest.mark.parametrize("program, links", [(PROGRAM, "dp"), (SUME_PROGRAM, "ds")], ids=PIPELINES)
def test_when_externally_initiated_tcp_is_dropped_only_a_connection_the_host_opened_gets_in(tmp_path, program,
                                                                                          links):
    """RFC 6146 3.5.2.2 under a policy that drops externally initiated TCP: the host opens a
    connection to a remote; that remote's SYN of the same connection (a simultaneous open) reaches
    the host, through the controller, which checks it against the sessions; its SYN from another
    port, which the switch's address filter lets by, is dropped, and so is a stranger's."""
    with driven_switch(tmp_path, program, DROPPING, links) as (api, dataplane, log):
        dataplane.send(V6_PORT, from_host(TCP(sport=33010, dport=443, flags="S", seq=1)))
        out = dataplane.poll(V4_PORT, timeout=5)
        assert out is not None and TCP in Ether(out), log.read_text()[-3000:]
        mapped = Ether(out)[IP].src, Ether(out)[TCP].sport
        time.sleep(0.5)                              # the SYN's copy made its session
        for sport, stranger in ((444, REMOTE), (443, "198.51.100.10"), (443, REMOTE)):
            dataplane.send(V4_PORT, from_remote(TCP(sport=sport, dport=mapped[1], flags="S", seq=500),
                                                dst=mapped[0], src=stranger))
        arrived = []
        deadline = time.time() + 3
        while time.time() < deadline:
            frame = dataplane.poll(V6_PORT, timeout=0.2)
            if frame is not None and TCP in Ether(frame):
                arrived.append((Ether(frame)[IPv6].src, Ether(frame)[TCP].sport, str(Ether(frame)[TCP].flags)))
        assert arrived == [(embed(REMOTE, POOL6, 96), 443, "S")], (arrived, shown(api))
        after = stats(api)
        assert (after.get("heldSyns.admitted", 0), after.get("heldSyns.dropped", 0)) == (1, 1), shown(api)


def open_simultaneously_on_a_mapping(api, dataplane, log):
    """Jool's graybox "so": the remote's SYN to the mapping the host uses comes first (filtered:
    the mapping has not sent to it), then the host's SYN to the remote leaves from that mapping.
    Returns the mapping's transport address."""
    mapped = None
    for _ in range(10):
        dataplane.send(V6_PORT, from_host(TCP(sport=33001, dport=53, flags="S", seq=1), dst=V4_SERVER))
        deadline = time.time() + 1
        while mapped is None and time.time() < deadline:
            frame = dataplane.poll(V4_PORT, timeout=0.2)
            if frame is not None and TCP in Ether(frame):
                mapped = Ether(frame)[IP].src, Ether(frame)[TCP].sport
        if mapped:
            break
    assert mapped, log.read_text()[-3000:]
    while dataplane.poll(V4_PORT, timeout=0.3) is not None:
        pass                                     # what the mapping's opening sent more than once
    dataplane.send(V4_PORT, from_remote(TCP(sport=443, dport=mapped[1], flags="S", seq=500), dst=mapped[0]))
    time.sleep(0.5)
    assert dataplane.poll(V6_PORT, timeout=0.2) is None, "held, not translated"
    dataplane.send(V6_PORT, from_host(TCP(sport=33001, dport=443, flags="S", seq=900)))
    out = dataplane.poll(V4_PORT, timeout=3)
    assert out is not None and Ether(out)[IP].dst == REMOTE and Ether(out)[TCP].flags == "S", shown(api)
    assert (Ether(out)[IP].src, Ether(out)[TCP].sport) == mapped
    return mapped


def open_simultaneously_without_a_mapping(api, dataplane, host, pool4_address, pool4_port):
    """Jool's graybox "so" without a mapping: a remote's SYN to a pool4 transport address that maps
    nothing is held; a host's SYN to that remote within TCP_INCOMING_SYN is the outbound SYN "for
    the connection": its new mapping is that address, so its SYN leaves from it. Returns when the
    remote's SYN was sent."""
    held = stats(api).get("heldSyns.held", 0)
    held_at = time.time()
    dataplane.send(V4_PORT, from_remote(TCP(sport=2601, dport=pool4_port, flags="S", seq=700), dst=pool4_address))
    deadline = time.time() + 3
    while stats(api).get("heldSyns.held", 0) == held and time.time() < deadline:
        time.sleep(0.05)                         # the host's SYN must come after the remote's is held
    assert stats(api).get("heldSyns.held", 0) == held + 1, shown(api)
    assert dataplane.poll(V6_PORT, timeout=0.2) is None, "held, not translated"
    dataplane.send(V6_PORT, Ether(src=V6_HOST_MAC, dst=ROUTER_MAC) / IPv6(src=host, dst=embed(REMOTE, POOL6, 96)) /
                   TCP(sport=33100, dport=2601, flags="S", seq=900))
    out = None
    deadline = time.time() + 3
    while out is None and time.time() < deadline:
        frame = dataplane.poll(V4_PORT, timeout=0.2)
        if frame is not None and TCP in Ether(frame):
            out = Ether(frame)
    assert out is not None, shown(api)
    assert (out[IP].src, out[TCP].sport, out[IP].dst, out[TCP].dport, out[TCP].flags) == (
        pool4_address, pool4_port, REMOTE, 2601, "S"), out.summary()
    return held_at


def test_simultaneous_opens_with_a_mapping_and_without_are_not_refused_and_open(border):
    """RFC 6146 3.5.2.2, Jool's graybox "so" on a mapping and without one (a pool4 transport
    address that maps nothing): the host's SYN to the remote whose SYN is held opens the
    connection, the held SYN is dropped without an error after TCP_INCOMING_SYN, and the remote's
    SYN+ACK reaches the host. (One test, so that the 6 s are waited once.)"""
    api, dataplane, log = border
    before = stats(api)
    mapped = open_simultaneously_on_a_mapping(api, dataplane, log)
    host, (pool4_address, pool4_port) = "2001:db8:1::60", (str(POOL4[9]), 40600)   # a subscriber, a block, of their own
    last_held = open_simultaneously_without_a_mapping(api, dataplane, host, pool4_address, pool4_port)
    # the controller looks at held SYNs once a second: the last is done with by 7 s after it came
    assert unreachables(dataplane, last_held + INCOMING_SYN + 2.5) == [], "RFC 6146 3.5.2.2: the held SYNs are dropped"
    after = stats(api)
    assert after.get("heldSyns.opened", 0) == before.get("heldSyns.opened", 0) + 2
    assert after.get("heldSyns.refused", 0) == before.get("heldSyns.refused", 0)
    # the remotes' SYN+ACKs: its port, its ISN, the pool4 transport address; the host's address and port
    for sport, seq, (address, port), to in ((443, 500, mapped, (V6_HOST, 33001)),
                                            (2601, 700, (pool4_address, pool4_port), (host, 33100))):
        dataplane.send(V4_PORT, from_remote(TCP(sport=sport, dport=port, flags="SA", seq=seq, ack=901), dst=address))
        back = dataplane.poll(V6_PORT, timeout=3)
        assert back is not None and Ether(back)[TCP].flags == "SA", shown(api)
        assert (Ether(back)[IPv6].dst, Ether(back)[TCP].dport) == to


def test_a_mappings_new_remote_gets_the_session_that_lets_its_answers_in(border):
    """RFC 6146 3.5.1 with address-dependent filtering (RFC 4787 REQ-8): the host's UDP from one port
    to a second remote goes through the controller, which makes that session (its filter entries
    with it) before the packet leaves, from the same mapping; the remote's answer then reaches the
    host, while a remote the mapping never sent to stays filtered."""
    api, dataplane, log = border
    mapped = None
    for _ in range(10):
        dataplane.send(V6_PORT, from_host(UDP(sport=5100, dport=53) / b"first", dst=V4_SERVER))
        out = dataplane.poll(V4_PORT, timeout=1)
        if out is not None:
            mapped = Ether(out)[IP].src, Ether(out)[UDP].sport
            break
    assert mapped, log.read_text()[-3000:]
    while dataplane.poll(V4_PORT, timeout=0.3) is not None:
        pass
    dataplane.send(V6_PORT, from_host(UDP(sport=5100, dport=53) / b"second"))
    out = dataplane.poll(V4_PORT, timeout=3)
    assert out is not None, shown(api)
    assert (Ether(out)[IP].src, Ether(out)[UDP].sport, Ether(out)[IP].dst) == (*mapped, REMOTE)
    dataplane.send(V4_PORT, from_remote(UDP(sport=53, dport=mapped[1]) / b"answer", dst=mapped[0]))
    back = dataplane.poll(V6_PORT, timeout=3)
    assert back is not None, shown(api)
    assert (Ether(back)[UDP].dport, bytes(Ether(back)[UDP].payload)) == (5100, b"answer")
    dataplane.send(V4_PORT, from_remote(UDP(sport=53, dport=mapped[1]) / b"stranger", dst=mapped[0],
                                        src="198.51.100.10"))
    assert dataplane.poll(V6_PORT, timeout=1) is None, "a remote the mapping never sent to stays filtered"


@pytest.mark.parametrize("kind", ["udp", "tcp"])
def test_a_first_packet_with_a_wrong_checksum_is_set_up_and_leaves_as_wrong(border, kind):
    """A flow's first packet, which the controller sets up and sends through the pipeline, is
    translated like any other (RFC 7915 4.5/5.5: the checksum updated, never verified; Jool's
    graybox "csumfail" cases, which start without sessions): with a wrong checksum it makes its
    mapping and leaves as wrong by the same amount."""
    api, dataplane, log = border
    layer, l4 = (UDP, UDP(sport=5200, dport=53) / b"first") if kind == "udp" else \
        (TCP, TCP(sport=5201, dport=80, flags="S", seq=1))
    dataplane.send(V6_PORT, summed_wrong(from_host(l4, dst=V4_SERVER), layer))
    out = dataplane.poll(V4_PORT, timeout=5)
    assert out is not None, shown(api)
    right = Ether(out).copy()
    right[layer].chksum = None
    # 0 and 0xFFFF are the same ones' complement value (the mapped port, so the sum, changes run to run)
    assert Ether(out)[layer].chksum % 0xFFFF == ones_add(summed(right, layer), WRONG_BY) % 0xFFFF, \
        Ether(out).show(dump=True)
    while dataplane.poll(V4_PORT, timeout=0.3) is not None:
        pass


def test_ipv4_udp_without_checksum_summing_to_zero_reaches_the_host_in_fragments_with_all_ones(border):
    """IPv4 UDP without a checksum and without DF, larger than the lowest IPv6 MTU: the switch
    translates it, sums its checksum (RFC 7915 4.5) and punts it to be fragmented (RFC 7915 4).
    Its bytes are chosen so that the sum comes to 0, which v1model writes as 0: the controller
    sends it as 0xFFFF (RFC 768), and the host reassembles a datagram with a right checksum."""
    api, dataplane, log = border
    mapped, port = open_session(border, 5400)
    while dataplane.poll(V4_PORT, timeout=0.3) is not None:
        pass
    server6 = embed(V4_SERVER, POOL6, 96)
    data = summing_to_zero(bytes(range(256)) * 5 + b"zero",
                           lambda payload: Ether() / IPv6(src=server6, dst=V6_HOST) / UDP(sport=53, dport=5400) / payload)
    ident = 0x5a0f
    datagram = from_remote(UDP(sport=53, dport=port, chksum=0) / data, dst=mapped, src=V4_SERVER)
    datagram[IP].id = ident
    dataplane.send(V4_PORT, datagram)
    pieces, _ = collect(dataplane, V6_PORT, 6, ident, 8 + len(data))
    assert len(pieces) >= 2, shown(api)
    whole = reassembled(pieces, 8 + len(data))
    assert whole[6:8] == b"\xff\xff", whole[:8].hex()
    assert checksum_holds(server6, V6_HOST, 17, whole)


def test_a_first_packet_too_large_for_the_ipv4_link_gets_packet_too_big(border):
    """RFC 7915 5.1, RFC 4443 3.2: a flow's first packet, which the controller sends through the
    pipeline once the session is set up, too large for the IPv4 link with DF: Packet Too Big with
    the link's MTU + 20, here IPv6's minimum of 1280 (RFC 7915 5), reaches the host, quoting the
    packet as it sent it."""
    api, dataplane, log = border
    dataplane.send(V6_PORT, from_host(UDP(sport=45000, dport=53) / (b"q" * 1400), dst=V4_SERVER))
    answer = dataplane.poll(V6_PORT, timeout=3)
    assert answer is not None and ICMPv6PacketTooBig in Ether(answer), shown(api)
    error = Ether(answer)
    assert (error[IPv6].dst, error[ICMPv6PacketTooBig].mtu) == (V6_HOST, max(V4_LINK_MTU + 20, 1280))
    assert (error[IPerror6].src, error[IPerror6].dst) == (V6_HOST, embed(V4_SERVER, POOL6, 96))
    assert dataplane.poll(V4_PORT, timeout=0.5) is None, "nothing too large left for the IPv4 side"


def ipv4_fragments(dataplane, until_bytes, timeout=5.0):
    """The IPv4 frames leaving for the server until `until_bytes` bytes of payload have come."""
    frames, got, deadline = [], 0, time.time() + timeout
    while got < until_bytes and time.time() < deadline:
        frame = dataplane.poll(V4_PORT, timeout=max(0.05, deadline - time.time()))
        if frame is not None and IP in Ether(frame):
            frames.append(Ether(frame))
            got += frames[-1][IP].len - 20
    return frames


def test_packets_of_at_most_1260_bytes_reach_a_smaller_ipv4_link_in_fragments(border):
    """RFC 7915 5: a translation of at most 1260 bytes leaves without DF, since Packet Too Big may
    not go below 1280; over an IPv4 link of 1000 bytes the NAT64 fragments it as an IPv4 router
    (RFC 791). A flow's first datagram (1178 bytes as IPv4: sent through the pipeline by the
    controller once its session is set up) and its second (translated by the switch) each reach
    the server in fragments of at most 1000 bytes, one identification, no DF, that tile the
    translated datagram, its UDP checksum right."""
    api, dataplane, _ = border
    for n in range(2):
        data = bytes([65 + n]) * 1150
        dataplane.send(V6_PORT, from_host(UDP(sport=45100, dport=53) / data, dst=V4_SERVER))
        frames = ipv4_fragments(dataplane, 8 + len(data))
        assert len(frames) == 2, f"datagram {n}: {[f.summary() for f in frames]}\n{shown(api)}"
        assert all(f[IP].len <= V4_LINK_MTU and not f[IP].flags.DF for f in frames)
        assert len({f[IP].id for f in frames}) == 1, "one identification"
        pieces = {f[IP].frag * 8: bytes(f[IP].payload)[:f[IP].len - 20] for f in frames}
        assert sorted(pieces) == [0, len(pieces[0])] and frames[0][IP].flags.MF and not frames[1][IP].flags.MF
        whole = pieces[0] + pieces[len(pieces[0])]
        assert whole[8:] == data and checksum_holds(frames[0][IP].src, V4_SERVER, 17, whole), f"datagram {n}"
    assert dataplane.poll(V6_PORT, timeout=0.3) is None, "no Packet Too Big"


def test_an_ipv6_routers_error_comes_from_the_switchs_own_ipv4_address_without_an_rfc6791_pool(border):
    """RFC 6791 4 (a single public IPv4 address; Jool's graybox "6791v64-empty"): with no pool
    configured, the controller writes the switch's own IPv4 address as the pool of the ICMPv6
    errors of IPv6 routers without an EAM, so that an IPv4 traceroute to an EAM host sees the
    NAT64 answer for the hops beyond it, not the host itself. Stateless: the EAM host's."""
    api, dataplane, _ = border
    quoted = IPv6(src=embed(V4_SERVER, POOL6, 96), dst=EAM_HOST, hlim=1) / UDP(sport=33434, dport=33435) / b"probe"
    error = (Ether(src=V6_HOST_MAC, dst=ROUTER_MAC) / IPv6(src="2001:db8:1::fe", dst=embed(V4_SERVER, POOL6, 96)) /
             ICMPv6TimeExceeded() / quoted)
    dataplane.send(V6_PORT, error)
    frame = dataplane.poll(V4_PORT, timeout=5)
    assert frame is not None, shown(api)
    got = Ether(frame)
    assert (got[IP].src, got[IP].dst, got[ICMP].type, got[ICMP].code) == (SWITCH_V4, V4_SERVER, 11, 0)
    assert (got[IPerror].src, got[IPerror].dst, got[UDPerror].dport) == (V4_SERVER, EAM_HOST4, 33435)


@pytest.mark.parametrize("direction", ["6to4", "6to4-atomic", "6to4-eam", "4to6"])
def test_an_error_whose_extension_fits_only_with_its_datagram_cut_keeps_the_extension(border, direction):
    """RFC 4884 5.1 with RFC 7915 4.2 / 5.2 (Jool's graybox "ic2", "idz"): an ICMP error whose
    extension would take its translation over 576 (ICMPv4) or 1280 (ICMPv6) bytes keeps the
    extension whole; its original datagram is cut so that the message fills the limit (never below
    128 bytes), the length attribute saying where the extension starts. The switch hands such an
    error to the controller, which cuts it and sends it back to be translated. 6to4: a 1000-byte
    datagram and a 40-byte extension become 508 + 40 bytes (ICMPv4 length 127); 4to6: a 600-byte
    one and a 640-byte extension, 592 + 640 (ICMPv6 length 74). 6to4-eam: the same from an EAM host,
    which no session maps (its error, looked up by the host it quotes, is translated when it comes
    back from the controller, not routed as the controller's own translations are). 6to4-atomic:
    the error in an IPv6 atomic fragment (RFC 6946 4: translated as any other)."""
    api, dataplane, _ = border
    if direction == "6to4-eam":
        host, (mapped, port) = EAM_HOST, (EAM_HOST4, 6102)
    else:
        host, (mapped, port) = V6_HOST, open_session(border, 6100 if direction.startswith("6to4") else 6101)
    server6 = embed(V4_SERVER, POOL6, 96)
    before = stats(api).get("icmpExtension.cut", 0)
    if direction.startswith("6to4"):
        ext = extension(labels=8)
        quoted6 = bytes(IPv6(src=server6, dst=host, hlim=61) / UDP(sport=53, dport=port if host == EAM_HOST else 6100)
                        / (b"x" * 952))
        assert (len(quoted6), len(ext)) == (1000, 40)
        ip6 = IPv6(src=host, dst=server6)
        if direction == "6to4-atomic":
            ip6 = ip6 / IPv6ExtHdrFragment(id=0x87654321, m=0, offset=0)
        dataplane.send(V6_PORT, Ether(src=V6_HOST_MAC, dst=ROUTER_MAC) / ip6 / ICMPv6DestUnreach(code=4, length=125) /
                       Raw(quoted6 + ext))
        quoted = bytes(IP(src=V4_SERVER, dst=mapped, ttl=61, id=0) / UDP(sport=53, dport=port) / (b"x" * 952))
        frame = dataplane.poll(V4_PORT, timeout=5)
        assert frame is not None, shown(api)
        ip = Ether(frame)[IP]
        message, limit, unit, header = bytes(ip)[20:], 576, 4, (3, 3)
        assert (ip.src, ip.dst, len(ip)) == (mapped, V4_SERVER, limit)
        assert ones_complement_sum(message) == 0xffff, "the ICMPv4 checksum"
    else:
        ext = extension(labels=158)
        quoted4 = bytes(IP(src=mapped, dst=V4_SERVER, ttl=1, id=0) / UDP(sport=port, dport=33434) / (b"y" * 572))
        assert (len(quoted4), len(ext)) == (600, 640)
        dataplane.send(V4_PORT, from_remote(ICMP(type=11, code=0, length=150) / Raw(quoted4 + ext), dst=mapped,
                                            src=ROUTER4))
        quoted = bytes(IPv6(src=V6_HOST, dst=server6, hlim=1) / UDP(sport=6101, dport=33434) / (b"y" * 572))
        frame = dataplane.poll(V6_PORT, timeout=5)
        assert frame is not None, shown(api)
        ip = Ether(frame)[IPv6]
        message, limit, unit, header = bytes(ip)[40:], 1280, 8, (3, 0)
        assert (ip.src, ip.dst, len(ip)) == (embed(ROUTER4, POOL6, 96), V6_HOST, limit)
        assert checksum_holds(ip.src, ip.dst, 58, message), "the ICMPv6 checksum"
    datagram = (message[5] if direction.startswith("6to4") else message[4]) * unit
    assert (tuple(message[:2]), datagram) == (header, limit - len(ip) + len(message) - 8 - len(ext))
    assert message[8:8 + datagram] == quoted[:datagram], "the translated datagram, cut"
    assert message[8 + datagram:] == ext, "the extension, whole, right after it"
    assert stats(api)["icmpExtension.cut"] == before + 1


def test_addresses_no_router_forwards_make_no_mapping_and_are_not_translated(border):
    """RFC 4291 2.5.2-2.7, RFC 4942 2.2: an IPv6 source that names no single host out here
    (unspecified, loopback, link-local, multicast, IPv4-mapped) makes no mapping and is not
    translated: pool4's ports are for hosts. RFC 1812 4.2.2.11, 5.3.5.1 and 5.3.7, RFC 3927 2.7,
    RFC 5771: IPv4 no router forwards, as a destination in pool6 (whatever its prefix) or as a
    source, is not translated either. A host's packet beside them is, as a control."""
    api, dataplane, log = border
    total = api.call("GET", "/bib")[1]["total"]
    frames = [(V6_PORT, Ether(src=V6_HOST_MAC, dst=ROUTER_MAC) / IPv6(src=src, dst=embed(REMOTE, POOL6, 96), hlim=64)
               / UDP(sport=7101, dport=53) / b"f") for src in ("fe80::5", "::", "::1", "ff02::1", "::ffff:1.2.3.4")]
    frames += [(V6_PORT, from_host(UDP(sport=7102, dport=53) / b"f", dst=dst))
               for dst in ("127.0.0.1", "0.0.0.1", "169.254.1.1", "224.0.0.9", "255.255.255.255", "240.0.0.1")]
    frames += [(V4_PORT, Ether(src=V4_HOST_MAC, dst=ROUTER_MAC) / IP(src=src, dst=EAM_HOST4) / UDP(sport=53, dport=9)
                / b"m") for src in ("127.0.0.1", "0.0.0.0", "224.0.0.5", "240.0.0.1")]
    for port, frame in frames:
        dataplane.send(port, frame)
    for port in (V4_PORT, V6_PORT):
        out = dataplane.poll(port, timeout=1)
        assert out is None, Ether(out).show(dump=True)
    assert api.call("GET", "/bib")[1]["total"] == total, "no mapping made"
    dataplane.send(V6_PORT, from_host(UDP(sport=7103, dport=53) / b"f", dst=REMOTE))
    out = dataplane.poll(V4_PORT, timeout=5)
    assert out is not None and Ether(out)[IP].dst == REMOTE, "a host's packet is translated"
