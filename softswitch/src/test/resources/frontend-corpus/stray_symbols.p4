#include <core.p4>
$ # ` \ 
