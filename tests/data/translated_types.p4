// Translated and untranslated user-defined types (P4Runtime 8.5.6 and 8.5.7) in keys, action
// parameters and the controller headers, for tests/test_p4runtime_translation.py.
#include <core.p4>
#include <v1model.p4>

@p4runtime_translation("nat64fabric.org/test/PortId_t", bit<32>)
type bit<9> port_t;
type bit<16> ether_type_t;

@controller_header("packet_out")
header packet_out_t {
    port_t egress_port;
    bit<7> _pad;
}

@controller_header("packet_in")
header packet_in_t {
    port_t ingress_port;
    bit<7> _pad;
}

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    ether_type_t ether_type;
}

struct headers_t {
    packet_out_t packet_out;
    packet_in_t packet_in;
    ethernet_t ethernet;
}

struct meta_t {
    port_t in_port;
}

parser TParser(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        transition select(sm.ingress_port) {
            255: from_cpu;
            default: ethernet;
        }
    }
    state from_cpu {
        pkt.extract(hdr.packet_out);
        transition ethernet;
    }
    state ethernet {
        pkt.extract(hdr.ethernet);
        transition accept;
    }
}

control TVerify(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control TIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action forward(port_t port) {
        sm.egress_spec = (bit<9>) port;
    }
    action to_cpu() {
        sm.egress_spec = 255;
        hdr.packet_in.setValid();
        hdr.packet_in.ingress_port = meta.in_port;
        hdr.packet_in._pad = 0;
    }
    table ports {
        key = {
            meta.in_port: exact;
            hdr.ethernet.ether_type: exact;
        }
        actions = { forward; to_cpu; }
        default_action = to_cpu();
    }
    apply {
        if (hdr.packet_out.isValid()) {
            sm.egress_spec = (bit<9>) hdr.packet_out.egress_port;
            hdr.packet_out.setInvalid();
        } else {
            meta.in_port = (port_t) sm.ingress_port;
            ports.apply();
        }
    }
}

control TEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { }
}

control TCompute(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control TDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.packet_in);
        pkt.emit(hdr.ethernet);
    }
}

V1Switch(TParser(), TVerify(), TIngress(), TEgress(), TCompute(), TDeparser()) main;
