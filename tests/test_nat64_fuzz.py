"""Fuzzing p4/nat64.p4 on a running softswitch, with sessions installed as the controller writes them.

1. 100 000 malformed frames: random bytes, valid frames truncated at every length, wrong IP
   versions, wrong IPv4 header checksums, IP lengths that do not fit the frame. Every one of them
   is malformed by construction, so every one must be dropped and counted in Nat64Ingress.drops;
   nothing but the good marker packets sent between batches may leave a port, and those byte for
   byte.
2. Well-formed packets with random fields (addresses in and out of the sessions, pool4 and the
   switch's own, TTLs, flags, fragments, options, ICMP types, errors quoting packets): whatever the
   switch makes of them, every frame it sends is well formed (lengths, header and transport
   checksums), and every packet is accounted for: sent on, punted, or counted as a drop."""
import os
import random
import struct
import time

from scapy.layers.inet import (ICMP, IP, IPOption_EOL, IPOption_LSRR, IPOption_NOP, IPOption_RR, IPOption_SSRR, TCP,
                               UDP)
from scapy.layers.inet6 import (ICMPv6DestUnreach, ICMPv6EchoReply, ICMPv6EchoRequest, ICMPv6ND_NS, ICMPv6PacketTooBig,
                                ICMPv6TimeExceeded, ICMPv6Unknown, IPv6, IPv6ExtHdrDestOpt, IPv6ExtHdrFragment,
                                IPv6ExtHdrHopByHop, IPv6ExtHdrRouting, in6_chksum)
from scapy.packet import Raw
from scapy.layers.l2 import ARP, Ether
from p4.v1 import p4runtime_pb2

from nat64_setup import (MAPPED, P, POOL4, POOL6, ROUTER_MAC, SWITCH_V4, SWITCH_V6, V4_HOST_MAC, V4_PORT, V4_SERVER,
                         V6_HOST, V6_HOST_MAC, V6_PORT, embed, from_v4_server, from_v6_host, session_v4, session_v6,
                         to_v4_server, to_v6_host)
from nat64_setup import ptf, sut  # noqa: F401  (pytest fixtures, found by name)

FRAMES = 100_000
BATCH = 500            # frames between markers: well under the switch's 1024-frame receive ring
TIME_LIMIT = 180       # seconds for sending every frame and checking every marker
ETH_IPV4, ETH_IPV6, ETH_ARP = 0x0800, 0x86DD, 0x0806
ETH_HEADER = 14
ETH_VLAN = (0x8100, 0x88A8)
VLAN_ROOM = 6          # the receiving kernel frees a VLAN frame without a tag and an EtherType after it
SERVER6 = embed(V4_SERVER, POOL6, 96)
# An RFC 4884 extension structure (version 2, one MPLS label object), checksum left 0: the switch
# never reads it.
EXTENSION = bytes([0x20, 0, 0, 0, 0, 8, 1, 1, 0, 1, 0x01, 0x40])


def templates():
    """Well-formed frames of every kind the parser knows, sent to where the pipeline would act on them."""
    v6 = [from_v6_host(UDP(sport=5000, dport=53) / b"query-bytes"),
          from_v6_host(TCP(sport=33000, dport=80, flags="A", seq=1, ack=1) / b"GET /"),
          from_v6_host(ICMPv6EchoRequest(id=7, seq=1) / b"ping"),
          from_v6_host(IPv6ExtHdrFragment(id=9, m=1) / UDP(sport=5000, dport=53) / b"first-fragment"),
          from_v6_host(ICMPv6DestUnreach() / IPv6(src=SERVER6, dst=V6_HOST) / UDP(sport=53, dport=5000)),
          Ether(src="00:00:00:00:00:06", dst="33:33:ff:00:00:01") /
          IPv6(src=V6_HOST, dst="ff02::1:ff00:1", hlim=255) / ICMPv6ND_NS(tgt=SWITCH_V6),
          from_v6_host(UDP(sport=1, dport=2) / b"routed", dst="2001:db8:1::9"),
          from_v6_host(IPv6ExtHdrHopByHop() / IPv6ExtHdrDestOpt() / UDP(sport=5000, dport=53) / b"options"),
          from_v6_host(ICMPv6DestUnreach(code=4, length=17) / Raw(
              bytes(IPv6(src=SERVER6, dst=V6_HOST) / UDP(sport=53, dport=5000) / (b"x" * 88)) + EXTENSION))]
    v4 = [from_v4_server(UDP(sport=53, dport=40000) / b"answer-bytes"),
          from_v4_server(TCP(sport=80, dport=41000, flags="A", seq=1, ack=1) / b"200 OK"),
          from_v4_server(ICMP(type=0, id=42000, seq=1) / b"pong"),
          from_v4_server(UDP(sport=53, dport=40000) / b"with options", options=[IPOption_NOP()] * 4),
          from_v4_server(ICMP(type=3, code=1) / IP(src=MAPPED, dst=V4_SERVER) / UDP(sport=40000, dport=53)),
          from_v4_server(UDP(sport=1, dport=2) / b"routed", dst="198.51.100.9"),
          from_v4_server(ICMP(type=11, code=0, length=32) / Raw(
              bytes(IP(src=MAPPED, dst=V4_SERVER) / UDP(sport=40000, dport=53) / (b"x" * 100)) + EXTENSION))]
    arp = [Ether(src="00:00:00:00:00:04", dst="ff:ff:ff:ff:ff:ff") / ARP(psrc=V4_SERVER, pdst=SWITCH_V4)]
    return [bytes(p) for p in v6], [bytes(p) for p in v4], [bytes(p) for p in arp]


def ipv4_must_drop(frame):
    """Whether the pipeline's own checks must drop this IPv4 frame: parser (version, IHL, room for
    the header), header checksum or total length."""
    if len(frame) < 34:
        return True
    version, ihl = frame[14] >> 4, frame[14] & 15
    if version != 4 or ihl < 5 or len(frame) < 14 + 4 * ihl:
        return True
    if ones_complement_sum(frame[14:14 + 4 * ihl]) != 0xFFFF:
        return True
    return struct.unpack_from("!H", frame, 16)[0] + 14 > len(frame)


def ipv6_must_drop(frame):
    if len(frame) < 54 or frame[14] >> 4 != 6:
        return True
    return struct.unpack_from("!H", frame, 18)[0] + 54 > len(frame)


def ones_complement_sum(data):
    total = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while total > 0xFFFF:
        total = (total & 0xFFFF) + (total >> 16)
    return total


def padded(data):
    """An odd number of bytes summed as RFC 1071 says: with a zero byte after them."""
    return data + b"\0" * (len(data) % 2)


def with_ipv4_checksum(frame):
    header = bytearray(frame[14:34])
    header[10:12] = b"\0\0"
    struct.pack_into("!H", header, 10, 0xFFFF - ones_complement_sum(bytes(header)))
    return frame[:14] + bytes(header) + frame[34:]


def corpus(rng):
    """(frame, port) pairs, every one malformed; the counts per kind are returned for the report."""
    v6, v4, arp = templates()
    frames, kinds = [], {}

    def add(kind, frame, port):
        frames.append((frame, port))
        kinds[kind] = kinds.get(kind, 0) + 1

    for t in v6 + v4 + arp:                                 # every valid frame, cut at every length
        port = V6_PORT if t in v6 else V4_PORT
        for cut in range(ETH_HEADER, len(t)):               # the kernel sends nothing shorter (EINVAL)
            add("truncated", t[:cut], port)
    for t in v6:                                            # wrong IP version (IPv6 ethertype)
        for version in set(range(16)) - {6}:
            add("bad version", t[:14] + bytes([version << 4 | t[14] & 15]) + t[15:], V6_PORT)
    for t in v4:
        for version in set(range(16)) - {4}:
            add("bad version", t[:14] + bytes([version << 4 | t[14] & 15]) + t[15:], V4_PORT)
    for t in v4[:3] + v4[4:]:                               # IPv4 total length shorter than its headers
        for total in range(0, 20 + 8):
            add("IP length short of the headers", with_ipv4_checksum(t[:16] + struct.pack("!H", total) + t[18:]),
                V4_PORT)
    for t in v6:                                            # IPv6 payload length short of its next header
        for payload in range(0, 8):
            add("IP length short of the headers", t[:18] + struct.pack("!H", payload) + t[20:], V6_PORT)
    while len(frames) < FRAMES:
        choice = rng.random()
        if choice < 0.25:                                   # random bytes, any ethertype but IP and ARP
            frame = bytearray(rng.randbytes(rng.randint(ETH_HEADER, 300)))
            while struct.unpack_from("!H", frame, 12)[0] in (ETH_IPV4, ETH_IPV6, ETH_ARP) or \
                    struct.unpack_from("!H", frame, 12)[0] in ETH_VLAN and len(frame) < ETH_HEADER + VLAN_ROOM:
                frame[12:14] = rng.randbytes(2)
            add("random bytes", bytes(frame), rng.choice((V6_PORT, V4_PORT)))
        elif choice < 0.5:                                  # an IP ethertype, then random bytes
            ethertype = rng.choice((ETH_IPV4, ETH_IPV6))
            must_drop = ipv4_must_drop if ethertype == ETH_IPV4 else ipv6_must_drop
            frame = b""
            while not frame or not must_drop(frame):
                frame = rng.randbytes(12) + struct.pack("!H", ethertype) + rng.randbytes(rng.randint(0, 300))
            add("random IP header", frame, rng.choice((V6_PORT, V4_PORT)))
        elif choice < 0.7:                                  # IPv4 header checksum wrong
            t = rng.choice(v4)                              # with options too (v4[3]): verified as well
            bad = (struct.unpack_from("!H", t, 24)[0] ^ rng.randint(1, 0xFFFF))
            frame = t[:24] + struct.pack("!H", bad) + t[26:]
            if ones_complement_sum(frame[14:14 + 4 * (frame[14] & 15)]) != 0xFFFF:   # 0x0000 and 0xFFFF sum alike
                add("bad IPv4 checksum", frame, V4_PORT)
        elif choice < 0.85:                                 # IPv4 total length beyond the frame
            t = rng.choice(v4[:3] + v4[4:])
            total = rng.randint(len(t) - 14 + 1, 0xFFFF)
            add("IPv4 length beyond the frame",
                with_ipv4_checksum(t[:16] + struct.pack("!H", total) + t[18:]), V4_PORT)
        else:                                               # IPv6 payload length beyond the frame
            t = rng.choice(v6)
            payload = rng.randint(len(t) - 54 + 1, 0xFFFF)
            add("IPv6 length beyond the frame", t[:18] + struct.pack("!H", payload) + t[20:], V6_PORT)
    rng.shuffle(frames)
    return frames[:FRAMES], kinds


def counter_cells(ptf, counter="drops"):
    """{index: packets} of Nat64Ingress.drops (or another indexed counter of Nat64Ingress)."""
    e = p4runtime_pb2.Entity()
    e.counter_entry.counter_id = ptf.client.p4info.id("counters", P + counter)
    return {r.counter_entry.index.index: r.counter_entry.data.packet_count for r in ptf.client.read(e)}


def wait_counted(ptf, before, frames, timeout=10):
    """Until Nat64Ingress.drops has counted `frames` more than `before`, or `timeout` s (the test's
    final tally says what is missing)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        now = counter_cells(ptf)
        if sum(n - before.get(i, 0) for i, n in now.items()) >= frames:
            return
        time.sleep(0.01)


def good_traffic(ptf, seq):
    """A marker each way through the sessions: (frame to send, port, expected frame, port)."""
    payload = b"marker-%d" % seq
    return [(from_v6_host(UDP(sport=5000, dport=53) / payload), V6_PORT,
             to_v4_server(UDP(sport=40000, dport=53) / payload), V4_PORT),
            (from_v4_server(UDP(sport=53, dport=40000) / payload), V4_PORT,
             to_v6_host(UDP(sport=53, dport=5000) / payload), V6_PORT)]


def test_malformed_frames_are_dropped_counted_and_good_traffic_still_flows(ptf, sut):
    ptf.insert(session_v6(ptf, 17, V6_HOST, 5000, MAPPED, 40000), session_v4(ptf, 17, MAPPED, 40000, V6_HOST, 5000))
    seed = int(os.environ.get("NAT64FABRIC_SEED", random.randrange(1 << 32)))   # set it to replay a run
    frames, kinds = corpus(random.Random(seed))
    context = f"(seed {seed}; frames by kind: {kinds})"
    sockets = {port: ptf.dataplane.sockets[port] for port in (V6_PORT, V4_PORT)}
    before = counter_cells(ptf)

    started = time.monotonic()
    for n, start in enumerate(range(0, len(frames), BATCH)):
        for frame, port in frames[start:start + BATCH]:
            sockets[port].send(frame)
        # The markers come out only after the batch ahead of them: the switch has taken it in.
        for send, port, expected, out_port in good_traffic(ptf, n):
            ptf.send(port, send)
            ptf.dataplane.verify_packet(expected, out_port, timeout=10)
        # With the fast path on, the markers take the kernel's path and malformed frames may go up
        # to the interpreter: its count, not the markers, says that it has taken the batch in.
        wait_counted(ptf, before, min(start + BATCH, len(frames)))
        assert time.monotonic() - started < TIME_LIMIT, f"{start + BATCH} frames after {TIME_LIMIT} s {context}"
    elapsed = time.monotonic() - started
    ptf.verify_no_other_packets()
    assert ptf.client.packet_in(timeout=0) is None, f"a malformed frame reached the controller {context}"

    assert sut.switch.proc.poll() is None, f"the switch died:\n{sut.switch.log_text()}"
    after = counter_cells(ptf)
    dropped = {i: after.get(i, 0) - before.get(i, 0) for i in after if after.get(i, 0) != before.get(i, 0)}
    port_drops = [line for line in sut.switch.log_text().splitlines() if ": dropped " in line]   # lost before the pipeline
    assert sum(dropped.values()) == len(frames), \
        f"{len(frames)} malformed frames, {sum(dropped.values())} counted drops by reason {dropped} {context}; " \
        f"the switch's port drops: {port_drops or 'none'}"
    for send, port, expected, out_port in good_traffic(ptf, -1):
        ptf.send(port, send)
        ptf.verify_packet(expected, out_port)
    print(f"{len(frames)} frames in {elapsed:.1f} s; drops by reason {dropped}; {context}")


# ---- 2. well-formed packets with random fields ----

RANDOM_PACKETS = 5000


def random_bytes(rng, most=60):
    return rng.randbytes(rng.randrange(most))


def random_v6_packet(rng, src=None):
    """From the IPv6 side: to pool6 (the session's server, other IPv4 addresses) or routed IPv6;
    from `src` if given (the draws are the same either way)."""
    v4 = rng.choice([V4_SERVER, f"198.51.100.{rng.randrange(256)}", ".".join(str(rng.randrange(256)) for _ in range(4))])
    dst = embed(v4, POOL6, 96) if rng.random() < 0.8 else rng.choice([SWITCH_V6, f"2001:db8:{rng.randrange(4):x}::9"])
    l4 = rng.choice([
        lambda: UDP(sport=rng.choice([5000, rng.randrange(65536)]), dport=rng.randrange(65536)) / random_bytes(rng),
        lambda: TCP(sport=rng.choice([33000, rng.randrange(65536)]), dport=rng.randrange(65536),
                    flags=rng.randrange(256)) / random_bytes(rng),
        lambda: ICMPv6EchoRequest(id=rng.choice([7, rng.randrange(65536)]), seq=rng.randrange(65536)) / random_bytes(rng),
        lambda: ICMPv6EchoReply(id=rng.randrange(65536)) / random_bytes(rng),
        lambda: ICMPv6Unknown(type=rng.randrange(256), code=rng.randrange(256)) / random_bytes(rng),
        lambda: IPv6ExtHdrFragment(id=rng.randrange(1 << 32), offset=rng.choice([0, rng.randrange(8192)]),
                                   m=rng.randrange(2)) / UDP(sport=5000, dport=53) / random_bytes(rng),
        lambda: IPv6ExtHdrRouting(segleft=rng.randrange(3), addresses=["2001:db8::1"]) / UDP(sport=5000, dport=53),
        lambda: rng.choice([IPv6ExtHdrHopByHop(), IPv6ExtHdrDestOpt()]) / rng.choice([IPv6ExtHdrDestOpt(), Raw(b"")]) /
        UDP(sport=5000, dport=53) / random_bytes(rng),
        lambda: ICMPv6TimeExceeded(length=rng.randrange(40)) / Raw(bytes(
            IPv6(src=V6_HOST, dst=embed(V4_SERVER, POOL6, 96)) / UDP(sport=5000, dport=53) / random_bytes(rng, 200))
            + random_bytes(rng, 80)),
        lambda: ICMPv6DestUnreach(code=rng.randrange(8)) / IPv6(src=embed(V4_SERVER, POOL6, 96), dst=V6_HOST) /
        UDP(sport=53, dport=5000),
        lambda: ICMPv6PacketTooBig(mtu=rng.randrange(1 << 32)) / IPv6(src=V6_HOST, dst=embed(V4_SERVER, POOL6, 96)) /
        UDP(sport=5000, dport=53) / random_bytes(rng),
    ])()
    drawn_src = rng.choice([V6_HOST, f"2001:db8:1::{rng.randrange(1, 0xffff):x}"])
    return checksummed(Ether(src=V6_HOST_MAC, dst=ROUTER_MAC) / IPv6(
        src=src or drawn_src, dst=dst, hlim=rng.randrange(256),
        tc=rng.randrange(256), fl=rng.randrange(1 << 20)) / l4)


def random_v4_packet(rng, dst=None):
    """From the IPv4 side: to the session's address, elsewhere in pool4, the switch, or routed IPv4;
    to `dst` if given (the draws are the same either way)."""
    drawn_dst = rng.choice([MAPPED, POOL4[:-1] + str(rng.randrange(256)), f"198.51.100.{rng.randrange(256)}", SWITCH_V4])
    dst = dst or drawn_dst
    l4 = rng.choice([
        lambda: UDP(sport=rng.randrange(65536), dport=rng.choice([40000, rng.randrange(65536)])) / random_bytes(rng),
        lambda: UDP(sport=53, dport=40000, chksum=0) / random_bytes(rng),
        lambda: TCP(sport=rng.randrange(65536), dport=rng.choice([41000, rng.randrange(65536)]),
                    flags=rng.randrange(256)) / random_bytes(rng),
        lambda: ICMP(type=rng.choice([0, 8, 3, 11, 12, rng.randrange(256)]), code=rng.randrange(16),
                     id=rng.choice([42000, rng.randrange(65536)])) / random_bytes(rng),
        lambda: ICMP(type=3, code=rng.randrange(16), unused=rng.randrange(65536)) /
        IP(src=MAPPED, dst=V4_SERVER) / UDP(sport=40000, dport=53) / random_bytes(rng),
        lambda: ICMP(type=rng.choice([3, 11, 12]), code=rng.randrange(5), length=rng.randrange(80)) / Raw(bytes(
            IP(src=MAPPED, dst=V4_SERVER) / UDP(sport=40000, dport=53) / random_bytes(rng, 300)) + random_bytes(rng, 80)),
    ])()
    return checksummed(Ether(src=V4_HOST_MAC, dst=ROUTER_MAC) / IP(
        src=rng.choice([V4_SERVER, f"198.51.100.{rng.randrange(256)}"]), dst=dst, ttl=rng.randrange(256),
        tos=rng.randrange(256), flags=rng.choice([0, 1, 2]), frag=rng.choice([0, 0, rng.randrange(8192)]),
        id=rng.randrange(65536), options=random_options(rng, dst)) / l4)


def random_options(rng, dst):
    """None mostly; else up to 40 bytes of NOPs, End of Option List, Record Routes and loose or
    strict source routes whose pointers stand at their first address, just past or far past their end, in any order: the
    parser walks them option by option (RFC 7915 4.1). The routes' addresses are the packet's
    destination: scapy sums a transport checksum for a source route's last address."""
    if rng.random() < 0.8:
        return []
    options, room = [], 40
    while room > 0 and rng.random() < 0.8:
        kind = rng.choice((IPOption_NOP, IPOption_EOL, IPOption_RR, IPOption_LSRR, IPOption_SSRR))
        routers = rng.randint(1, 3)
        size = 1 if kind in (IPOption_NOP, IPOption_EOL) else 3 + 4 * routers
        if size > room:
            break
        room -= size
        options.append(kind() if size == 1 else kind(routers=[dst] * routers,
                                                     pointer=rng.choice((4, 4 + 4 * routers, 8 + 4 * routers))))
    return options


def checksummed(frame):
    """The frame's bytes with its ICMP(v6) checksum summed over them. Bytes, not a scapy packet:
    scapy pads an error's datagram to its RFC 4884 length attribute when it builds one again, and
    the switch must be given exactly the well-formed packet summed here."""
    raw = bytearray(bytes(frame))
    p = Ether(bytes(raw))
    if IPv6 in p and p[IPv6].nh == 58:
        at = 14 + 40
        message = bytearray(raw[at:at + p[IPv6].plen])
        message[2:4] = b"\0\0"
        raw[at + 2:at + 4] = in6_chksum(58, p[IPv6], bytes(message)).to_bytes(2, "big")
    elif IP in p and p[IP].proto == 1 and p[IP].frag == 0 and not p[IP].flags.MF:
        at = 14 + p[IP].ihl * 4
        message = bytearray(raw[at:14 + p[IP].len])
        message[2:4] = b"\0\0"
        raw[at + 2:at + 4] = (0xFFFF - ones_complement_sum(padded(bytes(message)))).to_bytes(2, "big")
    return bytes(raw)


def malformations(frame):
    """What is wrong with a frame the switch sent: lengths and checksums, recomputed by scapy."""
    p = Ether(frame)
    wrong = []
    if IP in p:
        ip = p[IP]
        if ip.len != len(frame) - 14:
            wrong.append(f"IPv4 length {ip.len} in a {len(frame)}-byte frame")
        if recomputed(ip, IP, IP) != ip.chksum:
            wrong.append("IPv4 header checksum")
        whole = ip.frag == 0 and not ip.flags.MF
        for layer in (UDP, TCP):
            if whole and layer in ip and not (layer is UDP and ip[UDP].chksum == 0):
                if recomputed(ip, IP, layer) != ip[layer].chksum:
                    wrong.append(f"{layer.__name__} checksum")
                break
        # ICMP summed over the bytes as sent (scapy would build an RFC 4884 error anew, padded).
        if whole and ip.proto == 1 and ones_complement_sum(padded(frame[14 + ip.ihl * 4:14 + ip.len])) != 0xFFFF:
            wrong.append("ICMP checksum")
    elif IPv6 in p:
        ip = p[IPv6]
        if ip.plen != len(frame) - 54:
            wrong.append(f"IPv6 payload length {ip.plen} in a {len(frame)}-byte frame")
        if IPv6ExtHdrFragment not in ip:
            for layer in (UDP, TCP):
                if layer in ip and recomputed(ip, IPv6, layer) != ip[layer].chksum:
                    wrong.append(f"{layer.__name__} checksum")
            if ip.nh == 58:
                message = frame[54:54 + ip.plen]
                if in6_chksum(58, ip, message[:2] + b"\0\0" + message[4:]) != struct.unpack_from("!H", message, 2)[0]:
                    wrong.append("ICMPv6 checksum")
    return wrong


def recomputed(ip, family, layer):
    """The checksum scapy computes for `layer` of the packet, all else as sent."""
    copy = ip.copy()
    del copy[layer].chksum
    return family(bytes(copy))[layer].chksum


def test_random_well_formed_packets_leave_only_well_formed_frames(ptf, sut):
    ptf.insert(session_v6(ptf, 17, V6_HOST, 5000, MAPPED, 40000), session_v4(ptf, 17, MAPPED, 40000, V6_HOST, 5000),
               session_v6(ptf, 6, V6_HOST, 33000, MAPPED, 41000), session_v4(ptf, 6, MAPPED, 41000, V6_HOST, 33000),
               session_v6(ptf, 1, V6_HOST, 7, MAPPED, 42000), session_v4(ptf, 1, MAPPED, 42000, V6_HOST, 7))
    seed = int(os.environ.get("NAT64FABRIC_SEED", random.randrange(1 << 32)))   # set it to replay a run
    rng = random.Random(seed)
    dropped_before, punted_before = sum(counter_cells(ptf).values()), sum(counter_cells(ptf, "punts").values())
    out = []
    for n in range(RANDOM_PACKETS):
        v6 = rng.random() < 0.5
        ptf.send(V6_PORT if v6 else V4_PORT, random_v6_packet(rng) if v6 else random_v4_packet(rng))
        if n % 50 == 49:
            ptf.dataplane._drain(0.01)
    time.sleep(0.5)
    ptf.dataplane._drain(0.3)
    for port, frames in ptf.dataplane.pending.items():
        out.extend((port, f) for f in frames)
        frames.clear()
    while ptf.client.packet_in(timeout=0.2) is not None:
        pass
    assert sut.switch.proc.poll() is None, f"the switch died (seed {seed}):\n{sut.switch.log_text()}"

    bad = [(port, wrong, Ether(f).summary(), f.hex()) for port, f in out if (wrong := malformations(f))]
    assert not bad, f"{len(bad)} of {len(out)} frames malformed (seed {seed}), e.g.:\n" + \
        "\n".join(map(str, bad[:5]))
    dropped = sum(counter_cells(ptf).values()) - dropped_before
    punted = sum(counter_cells(ptf, "punts").values()) - punted_before
    # Each packet leaves as at least one frame, packet-in or counted drop (a TCP control segment
    # both leaves and is copied to the controller, so this is a lower bound, not an equation).
    assert len(out) + punted + dropped >= RANDOM_PACKETS, \
        f"{RANDOM_PACKETS} packets: {len(out)} frames out, {punted} punted, {dropped} dropped (seed {seed})"
    print(f"{RANDOM_PACKETS} random packets: {len(out)} frames out, {punted} punted, {dropped} dropped (seed {seed})")
