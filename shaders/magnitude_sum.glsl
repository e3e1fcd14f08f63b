// Row sums of the fp64 shaders in the order of the float64 CPU passes (docs/compiler.md,
// "Float64 row sums"; core/util/cancelling_sum.h): the terms by decreasing magnitude, ties
// in the order they were added, so that the λ-scaled pairs of a compiled row cancel exactly
// before its small terms are added. Expects a constant TERMS (the most terms of one sum)
// and `real` (common.glsl). Per invocation: beginTerms(), addTerm(t)…, sumTerms().

real termsByMagnitude[TERMS];
uint termCount;

void beginTerms() { termCount = 0; }

// Insertion keeps the terms sorted (rows are short: a few products and a bias).
void addTerm(real t) {
  uint j = termCount;
  for (; j > 0 && abs(termsByMagnitude[j - 1]) < abs(t); --j)
    termsByMagnitude[j] = termsByMagnitude[j - 1];
  termsByMagnitude[j] = t;
  ++termCount;
}

real sumTerms() {
  precise real sum = 0.0;
  for (uint j = 0; j < termCount; ++j) sum += termsByMagnitude[j];
  return sum;
}
