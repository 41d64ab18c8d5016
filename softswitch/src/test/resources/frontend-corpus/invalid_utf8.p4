#include <core.p4>
ÿþ€ garbage Ã(
