#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; bit<16> t; }
struct headers_t { h_t h; }
struct meta_t { bit<8> x; }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    @id(0x12000099) counter(8, CounterType.bytes) cnt2;
    @id(0x16000007) register<bit<8>>(4) reg;
    @brief("drop counter") @description("counts what is dropped") meter(4, MeterType.packets) m;
    @id(0x13000005) direct_counter(CounterType.packets) dc;
    action set(bit<8> v) { hdr.h.a = v; }
    @brief("the table") table t { key = { hdr.h.t : exact @id(2); hdr.h.a: exact; } actions = { set; NoAction; } counters = dc; }
    apply { t.apply(); cnt2.count(0); reg.write(0, 1); }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
