#include <core.p4>
header h_t { bit<8> café; }
