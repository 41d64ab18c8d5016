#line 2147483647
const bit<8> x = 1;
const bit<8> y = 2;
