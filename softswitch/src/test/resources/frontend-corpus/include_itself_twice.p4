#include "include_itself_twice.p4"
#include "include_itself_twice.p4"
