#include <core.p4>
#include "no_such_file_anywhere.p4"
