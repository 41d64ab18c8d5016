#include <core.p4>
const bit<8> K = 1;
// a comment with unicode: ∀x 😀
const bit<8> λ = 2;
