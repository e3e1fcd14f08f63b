#include "core/io/graph_hash.h"

#include <cstdio>
#include <nlohmann/json.hpp>

#include "core/io/graph_file.h"

namespace lsrl {

uint64_t fnv1a64(std::string_view bytes) { return fnv1a64(bytes, 0xcbf29ce484222325ULL); }

uint64_t fnv1a64(std::string_view bytes, uint64_t h) {
  for (const char c : bytes) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;
  }
  return h;
}

std::string fnv1a64Text(std::string_view bytes) { return fnv1a64Text(fnv1a64(bytes)); }

std::string fnv1a64Text(uint64_t hash) {
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(hash));
  return std::string("fnv1a64:") + hex;
}

std::string graphHash(const Graph& g) {
  nlohmann::json doc = graphToJson(g);
  // Editor state is not the program: positions and which groups are expanded.
  doc.erase("layout");
  if (auto groups = doc.find("groups"); groups != doc.end()) {
    for (auto& group : *groups) group.erase("expanded");
  }
  return fnv1a64Text(formatGraphDocument(doc));
}

}  // namespace lsrl
