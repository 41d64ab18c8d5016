#include <core.p4>
extern void mark_to_drop();
header h_t { bit<8> a; }
struct H { h_t h; }
action drop() { mark_to_drop(); }
