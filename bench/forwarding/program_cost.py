"""The fast path's own cost per packet, apart from the machine's load: softswitch runs p4/nat64.p4 with
the fast path as in bench.py, at XDP (generic) and then at TC; an iperf3 UDP flow in each direction
sets up its session and one of its frames is kept (read off the sending host's interface); the
kernel then runs the loaded program on that frame with BPF_PROG_TEST_RUN, one run per call,
ROUNDS x CALLS times, and its BPF statistics (run_time_ns / run_cnt) give the nanoseconds per run.
The call pins itself to one CPU, so that every run finds its per-CPU state in that CPU's caches, as
a flow's packets do. A test run at TC makes the skb from the frame, which the kernel's statistics
do not count, and the program's helpers work on it as on a received one.

With --parts (TC only), the program is also taken apart: `softswitch fast-path-c` writes its C
again, a copy is cut short (a `return TC_ACT_OK;` put in) at one point after another of the
packet's way through it (CUTS), each copy is compiled with clang and loaded beside the running
program, sharing its maps, and timed the same way on the same frame; the differences between
successive cuts are the parts' costs. The last copy is the whole program compiled again, so it
must redirect the frame as the loaded one does and cost about the same.

Usage (as root, after make build p4): bench/forwarding/program_cost.sh [CALLS] [MODE ...]
                                      bench/forwarding/program_cost.sh --parts [CALLS]
"""
import ctypes
import functools
import json
import os
import pathlib
import statistics
import struct
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
PARTS = "--parts" in sys.argv
sys.argv = [sys.argv[0], "2"] + [a for a in sys.argv[1:] if a != "--parts"]   # bench.py reads its test length from argv[1]
import bench                                          # noqa: E402
from harness import netns                             # noqa: E402

CALLS = int(sys.argv[2]) if len(sys.argv) > 2 else 20000
MODES = ["tc"] if PARTS else sys.argv[3:] or ["xdp-generic", "tc"]
# Where --parts cuts the TC program short, in the order a packet meets them: the part that ends
# there, and a line of KernelProgram's main body before or after which the return goes.
CUTS = (("entering the program, its first check", "__u32 cpu = bpf_get_smp_processor_id();", "before"),
        ("finding its per-CPU state, the configuration and the port", "zero_state(s);", "before"),
        ("zeroing the state", "s->pkt_len = ctx->len;", "before"),
        ("loading the frame's first bytes", "s->copied = copied;", "after"),
        ("the parser", "if (s->pstate != STATE_ACCEPTED)", "after"),
        ("the controls and the deparser", "if (s->cursor & 7)", "before"),
        ("the checks before the frame changes (the output port, the MTU)", "/* From here on the frame changes", "before"),
        ("changing the frame's length (bpf_skb_change_proto, bpf_skb_adjust_room)", "commit_counts(s);", "before"),
        ("the counters", "if (bpf_skb_store_bytes", "before"),
        ("writing the headers back, the redirect", None, None))
ROUNDS = 5
BPF_PROG_TEST_RUN, BPF_PROG_GET_FD_BY_ID, BPF_MAP_GET_FD_BY_ID = 10, 13, 14
REDIRECT = {"xdp-generic": 4, "tc": 7}                # XDP_REDIRECT, TC_ACT_REDIRECT
SYS_BPF = {"x86_64": 321, "aarch64": 280}[os.uname().machine]
libc = ctypes.CDLL(None, use_errno=True)


def bpf(cmd, attr):
    r = libc.syscall(SYS_BPF, cmd, attr, ctypes.sizeof(attr))
    if r < 0:
        raise OSError(ctypes.get_errno(), f"bpf({cmd}): {os.strerror(ctypes.get_errno())}")
    return r


def program_id():
    shown = json.loads(netns.run("bpftool", "-j", "prog", "show"))
    ids = [p["id"] for p in shown if p.get("name") == bench.ENTRY]
    if not ids:
        raise RuntimeError("softswitch's kernel program is not loaded")
    return ids[-1]


def frame_of(ns, dev, ethertype, reverse, addr):
    """One full-size UDP frame that `dev` in `ns` sends while an iperf3 UDP test runs."""
    proto = {0x86DD: 6, 0x0800: 9}[ethertype]     # offset of the protocol field in the IP header
    grab = (f"import socket\ns = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))\n"
            f"s.bind(('{dev}', 0))\nseen = 0\n"
            f"while True:\n    f, a = s.recvfrom(4096)\n"
            f"    if a[2] == socket.PACKET_OUTGOING and len(f) > 1000 and f[12:14] == bytes.fromhex('{ethertype:04x}')"
            f" and f[14 + {proto}] == 17:\n"
            f"        seen += 1\n        if seen == 100:\n            import sys; sys.stdout.buffer.write(f); break\n")
    reader = subprocess.Popen(["ip", "netns", "exec", ns, "python3", "-c", grab], stdout=subprocess.PIPE)
    time.sleep(0.5)
    bench.iperf(addr, ["-u", "-b", "50M", "-l", "1400"] + reverse)
    frame, _ = reader.communicate(timeout=10)
    if not frame:
        raise RuntimeError(f"no UDP frame seen on {dev}")
    return frame


def context(mode, frame, ingress):
    """The test run's context: struct xdp_md (data, data_end, data_meta, ingress_ifindex, ...) or
    struct __sk_buff (192 bytes; ingress_ifindex at 36 and ifindex at 40, the device the skb is made on)."""
    if mode == "tc":
        skb = bytearray(192)
        struct.pack_into("<II", skb, 36, ingress, ingress)
        return bytes(skb)
    return struct.pack("<6I", 0, len(frame), 0, ingress, 0, 0)


def program_fd(prog_id):
    return bpf(BPF_PROG_GET_FD_BY_ID, ctypes.create_string_buffer(struct.pack("<I", prog_id), 16))


def ns_per_run(mode, fd, frame, ingress, redirects=True):
    """The program's nanoseconds per run in one round of CALLS runs, from the kernel's statistics
    (which count every program named ENTRY: only this one runs meanwhile)."""
    data = ctypes.create_string_buffer(frame, len(frame))
    out = ctypes.create_string_buffer(4096)
    given = context(mode, frame, ingress)
    ctx = ctypes.create_string_buffer(given, len(given))
    attr = ctypes.create_string_buffer(struct.pack(
        "<IIIIQQIIIIQQIII", fd, 0, len(frame), len(out), ctypes.addressof(data), ctypes.addressof(out),
        1, 0, len(ctx), 0, ctypes.addressof(ctx), 0, 0, 0, 0), 80)
    os.sched_setaffinity(0, {max(os.sched_getaffinity(0))})
    ns0, n0 = bench.program_runs()
    for _ in range(CALLS):
        bpf(BPF_PROG_TEST_RUN, attr)
        if redirects and struct.unpack_from("<I", attr.raw, 4)[0] != REDIRECT[mode]:
            raise RuntimeError("the frame did not take the fast path to the other port in a test run "
                               "(see the switch's fast path counters)")
    ns1, n1 = bench.program_runs()
    return (ns1 - ns0) / (n1 - n0)


def cut_short(c, line, where):
    """The program's C with `return TC_ACT_OK;` before or after the first line of its main body that
    holds `line` (after the frame's checks: the drop path repeats some of its lines further down)."""
    lines = c.split("\n")
    start = next(i for i, text in enumerate(lines) if text.startswith("int " + bench.ENTRY + "("))
    at = [i for i, text in enumerate(lines) if i > start and text.startswith("    " + line)]
    if not at:
        raise RuntimeError(f"program_cost: the generated C's main body has no line starting '{line}'; update CUTS")
    i = at[0] + (1 if where == "after" else 0)
    return "\n".join(lines[:i] + ["    return TC_ACT_OK;"] + lines[i:])


@functools.cache
def libbpf():
    """Debian's libbpf1, with the signatures of the calls load_sharing_maps makes."""
    lib = ctypes.CDLL("libbpf.so.1", use_errno=True)
    for name, res, args in (("bpf_object__open_file", ctypes.c_void_p, [ctypes.c_char_p, ctypes.c_void_p]),
                            ("bpf_object__next_map", ctypes.c_void_p, [ctypes.c_void_p, ctypes.c_void_p]),
                            ("bpf_map__name", ctypes.c_char_p, [ctypes.c_void_p]),
                            ("bpf_map__reuse_fd", ctypes.c_int, [ctypes.c_void_p, ctypes.c_int]),
                            ("bpf_object__load", ctypes.c_int, [ctypes.c_void_p]),
                            ("bpf_object__find_program_by_name", ctypes.c_void_p, [ctypes.c_void_p, ctypes.c_char_p]),
                            ("bpf_program__fd", ctypes.c_int, [ctypes.c_void_p])):
        getattr(lib, name).restype, getattr(lib, name).argtypes = res, args
    return lib


def load_sharing_maps(object_file, prog_id):
    """Loads a compiled copy of the program whose maps are the running program's (by name); its fd."""
    lib = libbpf()
    shown = json.loads(netns.run("bpftool", "-j", "prog", "show", "id", str(prog_id)))
    running = {}
    for map_id in shown["map_ids"]:
        m = json.loads(netns.run("bpftool", "-j", "map", "show", "id", str(map_id)))
        running[m["name"]] = bpf(BPF_MAP_GET_FD_BY_ID, ctypes.create_string_buffer(struct.pack("<I", map_id), 16))
    obj = lib.bpf_object__open_file(str(object_file).encode(), None)
    if not obj:
        raise RuntimeError(f"libbpf cannot open {object_file}")
    m = lib.bpf_object__next_map(obj, None)
    while m:
        fd = running.get(lib.bpf_map__name(m).decode()[:15])   # the kernel keeps 15 characters of a name
        if fd is not None and lib.bpf_map__reuse_fd(m, fd) != 0:
            raise RuntimeError(f"{object_file}: cannot share the map {lib.bpf_map__name(m).decode()}")
        m = lib.bpf_object__next_map(obj, m)
    if lib.bpf_object__load(obj) != 0:
        raise RuntimeError(f"{object_file}: the kernel refused the program (errno {ctypes.get_errno()})")
    return lib.bpf_program__fd(lib.bpf_object__find_program_by_name(obj, bench.ENTRY.encode()))


def copies_cut_short(prog_id, work):
    """(part, fd) per entry of CUTS: the program's C written again, cut short after that part, compiled, loaded."""
    subprocess.run([str(bench.ROOT / "bin" / "softswitch"), "fast-path-c", str(bench.ROOT / "p4" / "nat64.p4"),
                    "--hook", "tc", "--out-dir", str(work)], check=True, capture_output=True)
    c = (work / "fast_path.c").read_text()
    copies = []
    for i, (part, line, where) in enumerate(CUTS):
        source = work / f"cut{i}.c"
        source.write_text(cut_short(c, line, where) if line else c)
        # the clang command softswitch run compiles with, as fast-path-c wrote it
        subprocess.run(["sh", str(work / "compile.sh"), str(source), str(source.with_suffix(".o"))], check=True)
        copies.append((part, load_sharing_maps(source.with_suffix(".o"), prog_id)))
    return copies


def parts(prog_id, frame, ingress, direction):
    """Prints each part's nanoseconds per run: the medians over ROUNDS of successive cuts' differences."""
    with tempfile.TemporaryDirectory(prefix="program-cost-") as work:
        copies = copies_cut_short(prog_id, pathlib.Path(work))
        loaded = program_fd(prog_id)
        rounds = []
        for _ in range(ROUNDS):
            rounds.append([ns_per_run("tc", fd, frame, ingress, redirects=i == len(copies) - 1)
                           for i, (_, fd) in enumerate(copies)] + [ns_per_run("tc", loaded, frame, ingress)])
        for fd in [loaded] + [fd for _, fd in copies]:
            os.close(fd)
    whole = [r[-1] for r in rounds]
    print(f"  tc          {direction}, UDP {len(frame)}-byte frame: the loaded program {statistics.median(whole):.0f} ns "
          f"per run, compiled again here {statistics.median(r[-2] for r in rounds):.0f}; by part:", flush=True)
    for i, (part, _) in enumerate(copies):
        each = [r[i] - (r[i - 1] if i else 0) for r in rounds]
        print(f"    {statistics.median(each):5.0f} ns  {part} (rounds: {', '.join(f'{e:.0f}' for e in each)})", flush=True)


def main():
    netns.enter_private_namespace()
    stats = pathlib.Path("/proc/sys/kernel/bpf_stats_enabled")
    was = stats.read_text()
    stats.write_text("1")
    try:
        print(f"program_cost: {ROUNDS} rounds of {CALLS} test runs per direction and hook, one frame each", flush=True)
        for mode in MODES:
            procs = []
            try:
                addr, procs = bench.softswitch(mode)()
                subprocess.run(["ip", "netns", "exec", bench.H1, "ping", "-c", "5", "-i", "0.05", addr],
                               capture_output=True)
                prog = program_id()
                for direction, ns, dev, ethertype, reverse, port in (
                        ("IPv6 to IPv4", bench.H1, "a1", 0x86DD, [], "s1"),
                        ("IPv4 to IPv6", bench.H2, "a2", 0x0800, ["-R"], "s2")):
                    frame = frame_of(ns, dev, ethertype, reverse, addr)
                    if PARTS:
                        parts(prog, frame, bench.ifindex(port), direction)
                        continue
                    fd = program_fd(prog)
                    rounds = [ns_per_run(mode, fd, frame, bench.ifindex(port)) for _ in range(ROUNDS)]
                    os.close(fd)
                    print(f"  {mode:11} {direction}, UDP {len(frame)}-byte frame: {statistics.median(rounds):.0f} ns per run "
                          f"(rounds: {', '.join(f'{r:.0f}' for r in rounds)})", flush=True)
            finally:
                bench.teardown(procs)
    finally:
        stats.write_text(was)


if __name__ == "__main__":
    main()
