#include "app/studio/common/value_text.h"

#include <cstdio>

namespace lsrl::studio {

namespace {

std::string formatOne(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", x);
  return buf;
}

}  // namespace

std::string formatExact(const std::vector<Exact>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + v[i].toString();
  return s + "]";
}

std::string formatDouble(const std::vector<double>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + formatOne(v[i]);
  return s + "]";
}

}  // namespace lsrl::studio
