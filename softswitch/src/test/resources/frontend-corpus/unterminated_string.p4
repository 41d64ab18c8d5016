#include <core.p4>
const bit<8> K = 1;
const string S = "never closed;
