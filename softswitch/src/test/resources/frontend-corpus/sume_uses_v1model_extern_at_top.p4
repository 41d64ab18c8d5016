#include <core.p4>
#include <sume_switch.p4>
action drop(inout sume_metadata_t m) { m.dst_port = 0; }
