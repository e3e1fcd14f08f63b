#include "core/float_batch/elementwise.h"

#include <algorithm>
#include <limits>
#include <string>

#include "core/util/error.h"

namespace lsrl::float_batch {

namespace elementwise_checks {

void relu(std::string_view kernel, size_t count, size_t inFloats, size_t outFloats) {
  const std::string k(kernel);
  if (count < 1) throw Error(k + ": at least 1 value expected, got 0");
  if (inFloats < count || outFloats < count)
    throw Error(k + ": input and output of " + std::to_string(count) + " floats expected, got " +
                std::to_string(inFloats) + " and " + std::to_string(outFloats));
}

void multi(std::string_view kernel, size_t rows, size_t h, size_t xFloats, size_t yFloats) {
  const std::string k(kernel);
  if (rows < 1 || h < 1)
    throw Error(k + ": at least 1 row of half-width 1 expected, got " + std::to_string(rows) +
                " rows of half-width " + std::to_string(h));
  if (h > std::numeric_limits<size_t>::max() / 2 / rows)
    throw Error(k + ": " + std::to_string(rows) + " rows × " + std::to_string(2 * h) +
                " floats overflows");
  if (xFloats < rows * 2 * h)
    throw Error(k + ": input of " + std::to_string(rows) + " rows × " + std::to_string(2 * h) +
                " = " + std::to_string(rows * 2 * h) + " floats expected, got " +
                std::to_string(xFloats));
  if (yFloats < rows * h)
    throw Error(k + ": output of " + std::to_string(rows) + " rows × " + std::to_string(h) + " = " +
                std::to_string(rows * h) + " floats expected, got " + std::to_string(yFloats));
}

void binary(std::string_view kernel, size_t count, size_t xFloats, size_t yFloats,
            size_t outFloats) {
  const std::string k(kernel);
  if (count < 1) throw Error(k + ": at least 1 value expected, got 0");
  if (xFloats < count || yFloats < count || outFloats < count)
    throw Error(k + ": inputs and output of " + std::to_string(count) + " floats expected, got " +
                std::to_string(xFloats) + ", " + std::to_string(yFloats) + " and " +
                std::to_string(outFloats));
}

}  // namespace elementwise_checks

void relu(std::span<const float> in, std::span<float> out) {
  elementwise_checks::relu("relu", in.size(), in.size(), out.size());
  std::transform(in.begin(), in.end(), out.begin(), [](float v) { return std::max(v, 0.0f); });
}

void reluInPlace(std::span<float> inOut) { relu(inOut, inOut); }

std::vector<float> relu(std::span<const float> in) {
  std::vector<float> out(in.size());
  relu(in, out);
  return out;
}

void multi(std::span<const float> X, size_t rows, size_t h, std::span<float> Y) {
  elementwise_checks::multi("multi", rows, h, X.size(), Y.size());
  for (size_t r = 0; r < rows; ++r) {
    const float* x = X.data() + r * 2 * h;
    float* y = Y.data() + r * h;
    for (size_t i = 0; i < h; ++i) y[i] = x[i] * x[i + h];
  }
}

std::vector<float> multi(std::span<const float> X, size_t rows, size_t h) {
  elementwise_checks::multi("multi", rows, h, X.size(), std::numeric_limits<size_t>::max());
  std::vector<float> Y(rows * h);
  multi(X, rows, h, Y);
  return Y;
}

namespace {

template <class Op>
void binary(const char* kernel, std::span<const float> x, std::span<const float> y,
            std::span<float> out, Op op) {
  elementwise_checks::binary(kernel, out.size(), x.size(), y.size(), out.size());
  std::transform(x.begin(), x.begin() + out.size(), y.begin(), out.begin(), op);
}

}  // namespace

void add(std::span<const float> x, std::span<const float> y, std::span<float> out) {
  binary("add", x, y, out, [](float a, float b) { return a + b; });
}

void mul(std::span<const float> x, std::span<const float> y, std::span<float> out) {
  binary("mul", x, y, out, [](float a, float b) { return a * b; });
}

}  // namespace lsrl::float_batch
