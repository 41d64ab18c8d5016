#include <core.p4>
#if 1
const bit<8> K = 1;
