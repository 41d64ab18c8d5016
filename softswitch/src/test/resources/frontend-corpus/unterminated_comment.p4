#include <core.p4>
header h_t { bit<8> a; }
/* this comment never ends
struct H { h_t h; }
