"""Which kernel hook forwards veth traffic cheapest here: a trivial IPv6 forwarder (rewrite both MACs,
decrement the hop limit, redirect to the other port) as an XDP program in generic mode and as a TC
(clsact) ingress program, beside Linux IPv6 forwarding, in the namespaces and with the offloads of
bench.py. It isolates what each hook itself costs from what softswitch's program costs.

Usage (as root): bench/forwarding/hooks.sh [SECONDS_PER_TEST] [ROUNDS]
"""
import os
import pathlib
import subprocess
import sys
import tempfile

import bench                                  # reads SECONDS_PER_TEST from argv[1]
from harness import netns

ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 2
GATEWAY_MAC = "00:00:00:00:0a:01"

# The forwarder, for both hooks: IN1/IN2 are the ports' interface indices, M1/M2 the hosts' MACs.
FORWARDER_C = r'''
#include <linux/bpf.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>
static const unsigned char M1[6] = {%(m1)s}, M2[6] = {%(m2)s}, GW[6] = {%(gw)s};
static __always_inline int forward(unsigned char *d, unsigned char *end, int in, int *out)
{
    if (d + 54 > end || d[12] != 0x86 || d[13] != 0xdd || d[21] <= 1)
        return -1;
    __builtin_memcpy(d, in == %(in1)d ? M2 : M1, 6);
    __builtin_memcpy(d + 6, GW, 6);
    d[21]--;
    *out = in == %(in1)d ? %(in2)d : %(in1)d;
    return 0;
}
SEC("xdp") int forward_xdp(struct xdp_md *c)
{
    int out;
    if (forward((void *) (long) c->data, (void *) (long) c->data_end, c->ingress_ifindex, &out))
        return XDP_PASS;
    return bpf_redirect(out, 0);
}
SEC("tc") int forward_tc(struct __sk_buff *s)
{
    int out;
    if (bpf_skb_pull_data(s, 54) ||
        forward((void *) (long) s->data, (void *) (long) s->data_end, s->ingress_ifindex, &out))
        return TC_ACT_OK;
    return bpf_redirect(out, 0);
}
char LICENSE[] SEC("license") = "GPL";
'''


def hook(name):
    """h1 and h2 (IPv6) through ports s1 and s2 with the forwarder at XDP (generic) or TC ingress."""
    def setup():
        bench.hosts()
        bench.veth("a1", bench.H1, "s1", None)
        bench.veth("a2", bench.H2, "s2", None)
        for ns, dev, net in ((bench.H1, "a1", "1"), (bench.H2, "a2", "2")):
            host = "1" if net == "1" else "7"
            bench.sh("ip", "-6", "addr", "add", f"2001:db8:{net}::{host}/64", "dev", dev, "nodad", ns=ns)
            bench.sh("ip", "-6", "route", "add", "default", "via", f"2001:db8:{net}::fffe", ns=ns)
            bench.sh("ip", "-6", "neigh", "replace", f"2001:db8:{net}::fffe", "lladdr", GATEWAY_MAC, "dev", dev, ns=ns)
        as_c = lambda mac: ",".join("0x" + b for b in mac.split(":"))  # noqa: E731
        work = pathlib.Path(tempfile.mkdtemp(prefix="nat64fabric-hooks-"))
        (work / "forwarder.c").write_text(FORWARDER_C % {
            "in1": bench.ifindex("s1"), "in2": bench.ifindex("s2"), "gw": as_c(GATEWAY_MAC),
            "m1": as_c(bench.mac(bench.H1, "a1")), "m2": as_c(bench.mac(bench.H2, "a2"))})
        arch = [f"-I/usr/include/{a}" for a in ("x86_64-linux-gnu", "aarch64-linux-gnu") if os.path.isdir(f"/usr/include/{a}")]
        netns.run("clang", "-O2", "-target", "bpf", *arch, "-c", str(work / "forwarder.c"), "-o", str(work / "forwarder.o"))
        for dev in ("s1", "s2"):
            if name == "XDP generic":
                netns.run("ip", "link", "set", "dev", dev, "xdpgeneric", "obj", str(work / "forwarder.o"), "sec", "xdp")
            else:
                netns.run("tc", "qdisc", "add", "dev", dev, "clsact")
                netns.run("tc", "filter", "add", "dev", dev, "ingress", "bpf", "da", "obj", str(work / "forwarder.o"),
                          "sec", "tc")
        return "2001:db8:2::7", []
    return setup


def main():
    netns.enter_private_namespace()
    paths = [("Linux IPv6 forwarding", bench.linux), ("XDP generic", hook("XDP generic")), ("TC ingress", hook("TC"))]
    tests = [("TCP 1", ["-P", "1"]), ("TCP 10", ["-P", "10"]), ("UDP", ["-u", "-b", "0", "-l", "1400"])]
    print(f"hooks: {ROUNDS} rounds of {len(paths)} paths x {len(tests) * 2} iperf3 tests of {bench.SECONDS} s", flush=True)
    for r in range(ROUNDS):
        for name, setup in paths:
            procs = []
            try:
                addr, procs = setup()
                subprocess.run(["ip", "netns", "exec", bench.H1, "ping", "-c", "5", "-i", "0.05", addr], capture_output=True)
                cells = []
                for test, args in tests:
                    for direction, reverse in (("", []), (" reverse", ["-R"])):
                        (sent, received), _, softirq, _ = bench.measured(procs, lambda: bench.iperf(addr, args + reverse))
                        cells.append(f"{test}{direction} {sent:.2f}->{received:.2f} (softirq {softirq:.0f} %)")
                print(f"  round {r + 1}, {name}: " + ", ".join(cells), flush=True)
            finally:
                bench.teardown(procs)


if __name__ == "__main__":
    main()
