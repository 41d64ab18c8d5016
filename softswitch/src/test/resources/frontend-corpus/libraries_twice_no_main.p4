#include <v1model.p4>
#include <core.p4>
#include <v1model.p4>
#include <core.p4>
