/* MAC learning with digests: a frame whose source address smac does not know is reported to the
 * controller as a learn_t digest (address and ingress port); the controller adds the address to
 * smac (learned) and to dmac (where frames to it go). Frames to unknown addresses are dropped. */
#include <core.p4>
#include <v1model.p4>

header ethernet_t {
    bit<48> dst_addr;
    bit<48> src_addr;
    bit<16> ether_type;
}

struct headers_t {
    ethernet_t ethernet;
}

struct learn_t {
    bit<48> src_addr;
    bit<9>  ingress_port;
}

struct meta_t {
}

parser LearnParser(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.ethernet);
        transition accept;
    }
}

control LearnVerify(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control LearnIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action learn() {
        digest<learn_t>(1, { hdr.ethernet.src_addr, sm.ingress_port });
    }

    table smac {
        key = { hdr.ethernet.src_addr: exact; }
        actions = { learn; NoAction; }
        default_action = learn();
        size = 1024;
    }

    action forward(bit<9> port) {
        sm.egress_spec = port;
    }

    action drop() {
        mark_to_drop(sm);
    }

    table dmac {
        key = { hdr.ethernet.dst_addr: exact; }
        actions = { forward; drop; }
        default_action = drop();
        size = 1024;
    }

    apply {
        smac.apply();
        dmac.apply();
    }
}

control LearnEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { }
}

control LearnCompute(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control LearnDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.ethernet);
    }
}

V1Switch(LearnParser(), LearnVerify(), LearnIngress(), LearnEgress(), LearnCompute(), LearnDeparser()) main;
