#include <core.p4>
const bit<8> K = @;
