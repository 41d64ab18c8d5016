#include <core.p4>
#include <v1model.p4>
#line 2147483648
control C() { apply {} }
