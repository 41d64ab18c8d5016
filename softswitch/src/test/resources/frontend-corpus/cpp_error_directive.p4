#include <core.p4>
#error this program stops here
