#include "core/io/safetensors.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <tuple>

#include "core/io/json_util.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"

namespace lsrl {

namespace {

using nlohmann::ordered_json;

// Larger headers are refused before anything is allocated (the reference reader's limit).
constexpr uint64_t kMaxHeaderBytes = 100'000'000;

// Other dtypes of the safetensors specification: named as unsupported, not unknown.
bool isSafetensorsDtype(const std::string& d) {
  static const char* const kKnown[] = {"BOOL", "U8",      "I8",   "F8_E5M2", "F8_E4M3", "I16",
                                       "U16",  "F16",     "BF16", "I32",     "U32",     "I64",
                                       "U64",  "F8_E8M0", "F4",   "F6_E2M3", "F6_E3M2", "C64"};
  return std::find(std::begin(kKnown), std::end(kKnown), d) != std::end(kKnown);
}

bool nonNegativeInteger(const nlohmann::json& v, uint64_t& out) {
  if (!v.is_number_unsigned()) return false;  // nlohmann parses every n >= 0 as unsigned
  out = v.get<uint64_t>();
  return true;
}

struct Entry {
  TensorEntry tensor;
  uint64_t begin = 0, end = 0;
  size_t order = 0;  // position of its key in the header
};

// The keys of the header's top-level object in file order, in one pass: the parsed header is
// a std::map (ordered_json's inserts search linearly, quadratic in the tensor count), and
// the file order breaks ties between tensors at the same data offset (empty ones).
class TopLevelKeys : public nlohmann::json_sax<nlohmann::json> {
 public:
  std::vector<std::string> keys;

  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return ++depth_, true; }
  bool end_object() override { return --depth_, true; }
  bool start_array(std::size_t) override { return ++depth_, true; }
  bool end_array() override { return --depth_, true; }
  bool key(string_t& k) override {
    if (depth_ == 1) keys.push_back(k);
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return false;
  }

 private:
  int depth_ = 0;
};

}  // namespace

std::string safetensorsHeader(const std::string& metadataJson,
                              const std::vector<TensorEntry>& entries) {
  // Built entry by entry: an ordered_json object searches its keys on every insert, which
  // is quadratic in the tensor count. The bytes are those of ordered_json's dump.
  std::string text = "{";
  uint64_t offset = 0;
  try {
    if (!metadataJson.empty())
      text += "\"__metadata__\":" + ordered_json{{"lsrl", metadataJson}}.dump();
    for (const TensorEntry& t : entries) {
      if (text.size() > 1) text += ',';
      text += ordered_json(t.name).dump() + ":" +
              ordered_json{{"dtype", dtypeName(t.dtype)},
                           {"shape", t.shape},
                           {"data_offsets", {offset, offset + t.bytes}}}
                  .dump();
      offset += t.bytes;
    }
  } catch (const nlohmann::json::exception& e) {
    throw Error(std::string("safetensors: tensor names and metadata must be valid UTF-8 (") +
                e.what() + ")");
  }
  text += '}';
  text.append((8 - text.size() % 8) % 8, ' ');
  std::string out;
  for (int i = 0; i < 8; ++i)
    out.push_back(static_cast<char>((uint64_t{text.size()} >> (8 * i)) & 0xFF));
  return out + text;
}

std::string safetensorsToBytes(const TensorFile& file) {
  checkTensorFile(file, "safetensors");
  std::vector<TensorEntry> entries;
  uint64_t dataBytes = 0;
  for (const Tensor& t : file.tensors) {
    entries.push_back({t.name, t.dtype, t.shape, t.data.size() * dtypeSize(t.dtype)});
    dataBytes += entries.back().bytes;
  }
  std::string out = safetensorsHeader(file.metadataJson, entries);
  out.reserve(out.size() + dataBytes);
  for (const Tensor& t : file.tensors) appendTensorData(t, out);
  return out;
}

void writeSafetensors(const std::string& path, const TensorFile& file) {
  writeTensorFile(path, file, safetensorsToBytes);
}

SafetensorsLayout safetensorsLayout(std::string_view bytes, const std::string& source) {
  const std::string where = "safetensors file \"" + source + "\"";
  auto fail = [&](const std::string& message) { return Error(where + ": " + message); };
  if (bytes.size() < 8) {
    throw fail("truncated: " + std::to_string(bytes.size()) +
               " bytes, fewer than the 8 of the header length");
  }
  uint64_t n = 0;
  for (int i = 0; i < 8; ++i) n |= uint64_t{static_cast<unsigned char>(bytes[i])} << (8 * i);
  if (n > bytes.size() - 8) {
    throw fail("header length " + std::to_string(n) + " exceeds the " +
               std::to_string(bytes.size() - 8) + " bytes after it (truncated or not safetensors)");
  }
  if (n > kMaxHeaderBytes) {
    throw fail("header length " + std::to_string(n) + " exceeds the limit of " +
               std::to_string(kMaxHeaderBytes) + " bytes");
  }
  const std::string_view text = bytes.substr(8, n);
  if (text.empty() || text[0] != '{') throw fail("the header does not start with '{'");
  // Clear errors; rejects duplicate names. A std::map-backed object (not ordered_json,
  // whose inserts search linearly): the tensors are put in data order below anyway, and
  // 200k tensor entries must not cost a quadratic parse.
  const nlohmann::json header = io::parseJson(text, where + " header");
  TopLevelKeys order;
  nlohmann::json::sax_parse(text, &order);
  std::map<std::string, size_t> positionOf;
  for (size_t i = 0; i < order.keys.size(); ++i) positionOf.emplace(order.keys[i], i);
  if (!header.is_object()) throw fail("the header is not a JSON object");
  const std::string_view data = bytes.substr(8 + n);

  SafetensorsLayout file;
  std::vector<Entry> entries;
  for (const auto& [name, info] : header.items()) {
    if (name == "__metadata__") {
      if (!info.is_object()) throw fail("__metadata__ is not an object");
      for (const auto& [key, value] : info.items()) {
        if (!value.is_string())
          throw fail("__metadata__ entry " + inQuotes(key) + " is not a string");
      }
      if (info.contains("lsrl")) file.metadataJson = info["lsrl"].get<std::string>();
      continue;
    }
    const std::string what = "tensor " + inQuotes(name);
    if (!info.is_object()) throw fail(what + " is not described by an object");
    for (const char* key : {"dtype", "shape", "data_offsets"}) {
      if (!info.contains(key)) throw fail(what + " has no \"" + key + "\"");
    }
    Entry e;
    e.tensor.name = name;
    e.order = positionOf[name];
    const nlohmann::json& dtype = info["dtype"];
    if (!dtype.is_string()) throw fail(what + ": dtype is not a string");
    const std::string& d = dtype.get_ref<const std::string&>();
    if (d == "F64") {
      e.tensor.dtype = Tensor::F64;
    } else if (d == "F32") {
      e.tensor.dtype = Tensor::F32;
    } else if (isSafetensorsDtype(d)) {
      throw fail(what + ": dtype " + inQuotes(d) + " is not supported (LSRL reads F64 and F32)");
    } else {
      throw fail(what + ": unknown dtype " + inQuotes(d));
    }
    const nlohmann::json& shape = info["shape"];
    if (!shape.is_array()) throw fail(what + ": shape is not an array");
    if (shape.size() > 64) throw fail(what + ": shape has more than 64 dimensions");
    for (const nlohmann::json& dim : shape) {
      uint64_t u = 0;
      if (!nonNegativeInteger(dim, u) || u > uint64_t{INT64_MAX}) {
        throw fail(what + ": shape " + shape.dump() + " is not a list of non-negative integers");
      }
      e.tensor.shape.push_back(static_cast<int64_t>(u));
    }
    const uint64_t count = elementCount(e.tensor.shape, e.tensor.dtype, where + ": " + what);
    const nlohmann::json& offsets = info["data_offsets"];
    if (!offsets.is_array() || offsets.size() != 2 || !nonNegativeInteger(offsets[0], e.begin) ||
        !nonNegativeInteger(offsets[1], e.end)) {
      throw fail(what + ": data_offsets " + offsets.dump() +
                 " is not a pair of non-negative integers");
    }
    const std::string span = "data_offsets " + offsets.dump();
    if (e.begin > e.end) throw fail(what + ": " + span + " ends before it begins");
    if (e.end > data.size()) {
      throw fail(what + ": " + span + " out of range: the data section has " +
                 std::to_string(data.size()) + " bytes (truncated file?)");
    }
    const uint64_t need = count * dtypeSize(e.tensor.dtype);
    if (e.end - e.begin != need) {
      throw fail(what + ": " + span + " span " + std::to_string(e.end - e.begin) +
                 " bytes but shape " + shapeText(e.tensor.shape) + " in " + d + " needs " +
                 std::to_string(need));
    }
    e.tensor.bytes = need;
    entries.push_back(std::move(e));
  }

  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return std::tie(a.begin, a.end, a.order) < std::tie(b.begin, b.end, b.order);
  });
  uint64_t end = 0;
  const Entry* previous = nullptr;
  for (const Entry& e : entries) {
    if (e.begin < end) {
      throw fail("tensors " + inQuotes(previous->tensor.name) + " and " + inQuotes(e.tensor.name) +
                 " overlap (data_offsets [" + std::to_string(previous->begin) + ", " +
                 std::to_string(previous->end) + "] and [" + std::to_string(e.begin) + ", " +
                 std::to_string(e.end) + "])");
    }
    if (e.begin > end) {
      throw fail("a gap of " + std::to_string(e.begin - end) + " bytes before tensor " +
                 inQuotes(e.tensor.name));
    }
    end = e.end;
    previous = &e;
  }
  if (end != data.size()) {
    throw fail(std::to_string(data.size() - end) + " bytes after the last tensor's data");
  }
  for (Entry& e : entries)
    file.tensors.push_back({std::move(e.tensor), data.substr(e.begin, e.end - e.begin)});
  return file;
}

TensorFile safetensorsFromBytes(std::string_view bytes, const std::string& source) {
  SafetensorsLayout layout = safetensorsLayout(bytes, source);
  TensorFile file;
  file.metadataJson = std::move(layout.metadataJson);
  for (StoredTensor& stored : layout.tensors) {
    TensorEntry& e = stored.entry;
    file.tensors.push_back({std::move(e.name), std::move(e.shape), e.dtype,
                            decodeTensorData(stored.data, e.dtype, e.bytes / dtypeSize(e.dtype))});
  }
  return file;
}

TensorFile readSafetensors(const std::string& path) {
  return safetensorsFromBytes(readWholeFile(path), path);
}

}  // namespace lsrl
