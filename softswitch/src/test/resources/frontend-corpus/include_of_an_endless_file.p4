// a file that never ends: the C preprocessor stops at its memory limit, not the machine's
#include "/dev/zero"
