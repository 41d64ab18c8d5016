#!/usr/bin/env python
"""The P4-NetFPGA simulations' test data for nat64_sume.p4, from the model card's results.

    gen_testdata.py MODEL_CARD.txt [OUT_DIR]

MODEL_CARD.txt is what `sume-agent record` printed (make -C hw/netfpga writes it to
build/model_card.txt): each frame of testdata/cases.py and where the model card, holding exactly
the entries of build/commands.txt, sent it. Writes into OUT_DIR (default: the current directory,
the project's testdata/ when the flow runs it):
  src.pcap, dst.pcap        the frames in, and per frame the one SDNet's simulation sends out
  Tuple_in.txt              per frame "DIGEST SUME_METADATA" in hexadecimal, as SDNet's testbench
  Tuple_expect.txt          reads them: digest_data, then sume_metadata_t's fields, first field first
  nfK_applied.pcap, nfK_expected.pcap   the frames in and out of each port nf0..nf3 (the SUME simulation)

SDNet drops nothing itself: a dropped frame leaves the pipe with dst_port 0 (and drop 1, as the
program's drop() sets them), deparsed. dst.pcap has it as it came, which holds for frames the pipe
drops before it changes a header (the checks at its start: the IPv4 header checksum, the lengths).
Frames to or from DMA are in src.pcap and dst.pcap only. Runs on the SDNet host under P4-NetFPGA's
Python 2.7 (also Python 3), standard library only.
"""
import binascii
import os
import struct
import sys

# sume_metadata_t (SDNet's sume_switch.p4): (name, bits), first field in the most significant bits
SUME_METADATA = (("dma_q_size", 16), ("nf3_q_size", 16), ("nf2_q_size", 16), ("nf1_q_size", 16),
                 ("nf0_q_size", 16), ("send_dig_to_cpu", 8), ("drop", 8), ("dst_port", 8),
                 ("src_port", 8), ("pkt_len", 16))
DIGEST_BITS = 8     # nat64_sume.p4's digest_t (include/sume_pipe.p4): one unused byte
# One-hot ports: bit 0 nf0, bit 1 its DMA queue, bit 2 nf1, ...; the controller's DMA is DMA0
ONE_HOT = {"nf0": 0x01, "dma": 0x02, "nf1": 0x04, "nf2": 0x10, "nf3": 0x40}
PCAP_HEADER = struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1)     # Ethernet


class Case(object):
    def __init__(self, name, in_port, frame):
        self.name, self.in_port, self.frame = name, in_port, frame
        self.out_port = None    # "drop" or a key of ONE_HOT
        self.out_frame = None


def read_model_card(path):
    cases = []
    with open(path) as f:
        for number, line in enumerate(f, 1):
            words = line.split()
            if not words or words[0].startswith("#"):
                continue
            where = "%s:%d: " % (path, number)
            try:
                if words[0] == "in" and len(words) == 4 and words[2] in ONE_HOT \
                        and (not cases or cases[-1].out_port is not None):
                    cases.append(Case(words[1], words[2], binascii.unhexlify(words[3])))
                elif words[0] == "out" and cases and cases[-1].out_port is None and words[1] == cases[-1].name \
                        and (words[2:] == ["drop"] or len(words) == 4 and words[2] in ONE_HOT):
                    cases[-1].out_port = words[2]
                    cases[-1].out_frame = binascii.unhexlify(words[3]) if len(words) == 4 else cases[-1].frame
                else:
                    raise ValueError("expected 'in NAME PORT HEX', then 'out NAME PORT HEX' or 'out NAME drop'")
            except (TypeError, ValueError) as e:    # TypeError: binascii's odd-length error in Python 2
                sys.exit(where + str(e))
    unfinished = [c.name for c in cases if c.out_port is None]
    if unfinished or not cases:
        sys.exit("%s: %s" % (path, "no result for " + ", ".join(unfinished) if unfinished else "no frames"))
    return cases


def sume_metadata(**fields):
    value = 0
    for name, bits in SUME_METADATA:
        value = value << bits | fields.get(name, 0)
    return "%0*x" % (sum(bits for _, bits in SUME_METADATA) // 4, value)


def tuple_line(**fields):
    return "%0*x %s\n" % (DIGEST_BITS // 4, 0, sume_metadata(**fields))


def write_pcap(path, frames):
    with open(path, "wb") as f:
        f.write(PCAP_HEADER)
        for k, frame in enumerate(frames):
            f.write(struct.pack("<IIII", k, 0, len(frame), len(frame)))
            f.write(frame)


def main(argv):
    if len(argv) not in (2, 3):
        sys.exit(__doc__.strip().splitlines()[2].strip().replace("gen_testdata.py", "usage: gen_testdata.py"))
    if not os.path.isfile(argv[1]):
        sys.exit("gen_testdata.py: %s is missing: make -C hw/netfpga writes it (build/model_card.txt)" % argv[1])
    cases = read_model_card(argv[1])
    out = argv[2] if len(argv) == 3 else "."
    write_pcap(os.path.join(out, "src.pcap"), [c.frame for c in cases])
    write_pcap(os.path.join(out, "dst.pcap"), [c.out_frame for c in cases])
    with open(os.path.join(out, "Tuple_in.txt"), "w") as tin, open(os.path.join(out, "Tuple_expect.txt"), "w") as tout:
        for c in cases:
            src = ONE_HOT[c.in_port]
            tin.write(tuple_line(src_port=src, pkt_len=len(c.frame)))
            dropped = c.out_port == "drop"
            tout.write(tuple_line(drop=int(dropped), dst_port=0 if dropped else ONE_HOT[c.out_port],
                                  src_port=src, pkt_len=len(c.frame)))
    for k in range(4):
        port = "nf%d" % k
        write_pcap(os.path.join(out, port + "_applied.pcap"), [c.frame for c in cases if c.in_port == port])
        write_pcap(os.path.join(out, port + "_expected.pcap"), [c.out_frame for c in cases if c.out_port == port])
    print("gen_testdata.py: %d frames from %s (%d out of nf0..nf3, %d to DMA, %d dropped)" % (
        len(cases), argv[1], sum(c.out_port.startswith("nf") for c in cases),
        sum(c.out_port == "dma" for c in cases), sum(c.out_port == "drop" for c in cases)))


if __name__ == "__main__":
    main(sys.argv)
