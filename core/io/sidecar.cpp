#include "core/io/sidecar.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/io/graph_hash.h"
#include "core/io/json_util.h"
#include "core/io/safetensors.h"
#include "core/io/sequence_file.h"
#include "core/numbers/exact_field.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"

namespace lsrl {

namespace {

using nlohmann::json;

// Largest matrix side or vector length (as in graph files).
constexpr long long kMaxSide = 1 << 20;

// The value as a double when it is exactly one; else false and its nearest double.
bool exactDouble(const Exact& x, double& d) {
  if (!x.isRational()) {
    d = x.toDouble();
    return false;
  }
  const mpq_class q = x.toRational();
  d = q.get_d();
  return std::isfinite(d) && mpq_class(d) == q;
}

// Appends the values as doubles, listing the non-doubles in `exact`.
std::vector<double> valuesToDoubles(const std::vector<Exact>& values, json& exact) {
  std::vector<double> out(values.size());
  for (size_t k = 0; k < values.size(); ++k) {
    if (!exactDouble(values[k], out[k])) exact.push_back(json::array({k, values[k].toString()}));
  }
  return out;
}

// The "exact" list of a reference: position -> exact text, checked.
std::unordered_map<size_t, std::string> exactOverrides(const json& ref, size_t count,
                                                       const std::string& where) {
  std::unordered_map<size_t, std::string> out;
  if (!ref.contains("exact")) return out;
  const json& list = ref["exact"];
  if (!list.is_array())
    throw Error(where + ".exact: expected an array, got " + io::describeJson(list));
  for (size_t i = 0; i < list.size(); ++i) {
    const json& e = list[i];
    const std::string at = where + ".exact[" + std::to_string(i) + "]";
    long long k = 0;
    if (!e.is_array() || e.size() != 2 || !io::jsonInteger(e[0], k) || !e[1].is_string())
      throw Error(at + ": expected [position, \"exact value\"], got " + e.dump());
    if (k < 0 || static_cast<size_t>(k) >= count)
      throw Error(at + ": position " + std::to_string(k) + " is outside the " +
                  std::to_string(count) + " stored values");
    if (!out.emplace(static_cast<size_t>(k), e[1].get<std::string>()).second)
      throw Error(at + ": position " + std::to_string(k) + " is listed twice");
  }
  return out;
}

Exact valueAt(const std::vector<double>& vals, size_t k,
              const std::unordered_map<size_t, std::string>& exact, const std::string& where,
              const std::string& tensorName) {
  if (!exact.empty()) {
    auto it = exact.find(k);
    if (it != exact.end()) {
      try {
        return Exact::parse(it->second);
      } catch (const Error& e) {
        throw Error(where + ".exact: value at position " + std::to_string(k) + ": " + e.what());
      }
    }
  }
  if (!std::isfinite(vals[k]))
    throw Error(where + ": tensor '" + tensorName + "' holds a non-finite value at position " +
                std::to_string(k));
  return Exact(vals[k]);
}

void checkKeys(const json& ref, std::initializer_list<const char*> allowed,
               const std::string& where) {
  for (auto it = ref.begin(); it != ref.end(); ++it) {
    bool ok = false;
    for (const char* k : allowed) ok = ok || it.key() == k;
    if (!ok) throw Error(where + ": unknown key \"" + it.key() + "\"");
  }
}

std::vector<long long> shapeOf(const json& ref, size_t rank, const std::string& where) {
  if (!ref.contains("shape")) throw Error(where + ": missing key \"shape\"");
  const json& s = ref["shape"];
  if (!s.is_array() || s.size() != rank)
    throw Error(where + ".shape: expected " + std::to_string(rank) + " sizes, got " + s.dump());
  std::vector<long long> out;
  for (const json& x : s) {
    long long v = 0;
    if (!io::jsonInteger(x, v) || v < 0 || v > kMaxSide)
      throw Error(where + ".shape: each size must be an integer in 0.." + std::to_string(kMaxSide) +
                  ", got " + s.dump());
    out.push_back(v);
  }
  return out;
}

std::string sidecarKey(const json& ref, const std::string& where) {
  const json& k = ref["sidecar"];
  if (!k.is_string() || k.get<std::string>().empty())
    throw Error(where + ".sidecar: expected a tensor name, got " + io::describeJson(k));
  return k.get<std::string>();
}

// An integer stored in a double tensor (an index), checked to lie in [lo, hi].
long long indexValue(double v, long long lo, long long hi, const std::string& what) {
  if (!(v >= static_cast<double>(lo) && v <= static_cast<double>(hi)) || v != std::floor(v))
    throw Error(what + " is " + json(v).dump() + ", expected an integer in " + std::to_string(lo) +
                ".." + std::to_string(hi));
  return static_cast<long long>(v);
}

}  // namespace

// ---------------------------------------------------------------------------------------
// Writing

void SidecarWriter::put(Tensor t) {
  if (stream_ != nullptr) {
    stream_->add(t);
  } else {
    file_.tensors.push_back(std::move(t));
  }
}

json SidecarWriter::putMatrix(const std::string& key, const ExactMatrix& m) {
  json exact = json::array();
  Tensor rowStart{key + ".row_start", {m.rows() + 1}, Tensor::F64, {}};
  rowStart.data.assign(m.rowStart().begin(), m.rowStart().end());
  Tensor col{key + ".col", {static_cast<int64_t>(m.nonZeros())}, Tensor::F32, {}};
  col.data.assign(m.colIndex().begin(), m.colIndex().end());
  Tensor val{key + ".val",
             {static_cast<int64_t>(m.nonZeros())},
             Tensor::F64,
             valuesToDoubles(m.values(), exact)};
  put(std::move(rowStart));
  put(std::move(col));
  put(std::move(val));
  json ref = {{"shape", json::array({m.rows(), m.cols()})}, {"sidecar", key}};
  if (!exact.empty()) ref["exact"] = std::move(exact);
  return ref;
}

json SidecarWriter::putVector(const std::string& key, const ExactVector& v) {
  json exact = json::array();
  put(Tensor{key, {static_cast<int64_t>(v.size())}, Tensor::F64, valuesToDoubles(v, exact)});
  json ref = {{"shape", json::array({v.size()})}, {"sidecar", key}};
  if (!exact.empty()) ref["exact"] = std::move(exact);
  return ref;
}

json SidecarWriter::matrix(const std::string& key, const ExactMatrix& m) {
  if (wants(m)) return putMatrix(key, m);
  json entries = json::array();
  for (const ExactMatrix::Entry& e : m.entries())
    entries.push_back(json::array({e.row, e.col, exactToJson(e.value)}));
  return json{{"shape", json::array({m.rows(), m.cols()})}, {"entries", std::move(entries)}};
}

json SidecarWriter::vector(const std::string& key, const ExactVector& v) {
  if (wants(v)) return putVector(key, v);
  json a = json::array();
  for (const Exact& x : v) a.push_back(exactToJson(x));
  return a;
}

// ---------------------------------------------------------------------------------------
// Reading

SidecarReader::SidecarReader(const TensorFile& file, const std::string& fileName) {
  source_.assign(1, '"');
  source_ += fileName;
  source_ += '"';
  for (const Tensor& t : file.tensors) byName_.emplace(t.name, &t);
}

bool SidecarReader::isReference(const json& v) { return v.is_object() && v.contains("sidecar"); }

const Tensor& SidecarReader::tensor(const std::string& name, const std::string& where) const {
  auto it = byName_.find(name);
  if (it == byName_.end() && byName_.empty() && source_ == kNoSidecar)
    throw Error(where + ": refers to the sidecar tensor '" + name +
                "', but the file names no sidecar");
  if (it == byName_.end())
    throw Error(where + ": the sidecar " + source_ + " has no tensor '" + name + "'");
  return *it->second;
}

ExactMatrix SidecarReader::matrix(const json& ref, const std::string& where) const {
  checkKeys(ref, {"shape", "sidecar", "exact"}, where);
  const std::vector<long long> shape = shapeOf(ref, 2, where);
  const int rows = static_cast<int>(shape[0]);
  const int cols = static_cast<int>(shape[1]);
  const std::string key = sidecarKey(ref, where);
  const Tensor& rs = tensor(key + ".row_start", where);
  const Tensor& ci = tensor(key + ".col", where);
  const Tensor& vs = tensor(key + ".val", where);
  auto expectShape = [&](const Tensor& t, int64_t n, const std::string& why) {
    if (t.shape != std::vector<int64_t>{n})
      throw Error(where + ": tensor '" + t.name + "' in " + source_ + " has shape " +
                  shapeText(t.shape) + ", expected [" + std::to_string(n) + "] (" + why + ")");
  };
  expectShape(rs, rows + 1, "rows + 1 for a " + std::to_string(rows) + "-row matrix");
  const std::string rsWhat = where + ": tensor '" + rs.name + "' in " + source_;
  const long long nnz = indexValue(rs.data.back(), 0, kMaxTensorBytes, rsWhat + " last entry");
  expectShape(ci, nnz, "one per non-zero: row_start ends at " + std::to_string(nnz));
  expectShape(vs, nnz, "one per non-zero: row_start ends at " + std::to_string(nnz));
  const auto exact = exactOverrides(ref, static_cast<size_t>(nnz), where);

  std::vector<ExactMatrix::Entry> entries;
  entries.reserve(static_cast<size_t>(nnz));
  long long begin = indexValue(rs.data[0], 0, 0, rsWhat + " entry 0");
  for (int r = 0; r < rows; ++r) {
    const long long end = indexValue(rs.data[static_cast<size_t>(r) + 1], begin, nnz,
                                     rsWhat + " entry " + std::to_string(r + 1));
    long long lastCol = -1;
    for (long long k = begin; k < end; ++k) {
      const long long c = indexValue(
          ci.data[static_cast<size_t>(k)], lastCol + 1, cols - 1,
          where + ": tensor '" + ci.name + "' in " + source_ + " entry " + std::to_string(k) +
              " (row " + std::to_string(r) + "; columns must increase within a row and be below " +
              std::to_string(cols) + ")");
      lastCol = c;
      entries.push_back({r, static_cast<int>(c),
                         valueAt(vs.data, static_cast<size_t>(k), exact, where, vs.name)});
    }
    begin = end;
  }
  return ExactMatrix::fromEntries(rows, cols, std::move(entries));
}

ExactVector SidecarReader::vector(const json& ref, const std::string& where) const {
  checkKeys(ref, {"shape", "sidecar", "exact"}, where);
  const long long n = shapeOf(ref, 1, where)[0];
  const Tensor& t = tensor(sidecarKey(ref, where), where);
  if (t.shape != std::vector<int64_t>{n})
    throw Error(where + ": tensor '" + t.name + "' in " + source_ + " has shape " +
                shapeText(t.shape) + ", expected [" + std::to_string(n) + "]");
  const auto exact = exactOverrides(ref, static_cast<size_t>(n), where);
  ExactVector out;
  out.reserve(static_cast<size_t>(n));
  for (size_t k = 0; k < static_cast<size_t>(n); ++k)
    out.push_back(valueAt(t.data, k, exact, where, t.name));
  return out;
}

ExactMatrix SidecarReader::anyMatrix(const json& v, const std::string& where) const {
  if (isReference(v)) return matrix(v, where);
  if (!v.is_object()) throw Error(where + ": expected a matrix object, got " + io::describeJson(v));
  checkKeys(v, {"shape", "entries"}, where);
  const std::vector<long long> shape = shapeOf(v, 2, where);
  std::vector<ExactMatrix::Entry> entries;
  if (v.contains("entries")) {
    const json& list = v["entries"];
    if (!list.is_array())
      throw Error(where + ".entries: expected an array, got " + io::describeJson(list));
    for (size_t i = 0; i < list.size(); ++i) {
      const json& e = list[i];
      const std::string at = where + ".entries[" + std::to_string(i) + "]";
      long long r = 0, c = 0;
      if (!e.is_array() || e.size() != 3 || !io::jsonInteger(e[0], r) || !io::jsonInteger(e[1], c))
        throw Error(at + ": expected [row, col, value], got " + e.dump());
      if (r < 0 || r >= shape[0] || c < 0 || c >= shape[1])
        throw Error(at + ": position (" + std::to_string(r) + ", " + std::to_string(c) +
                    ") is outside the " + std::to_string(shape[0]) + "x" +
                    std::to_string(shape[1]) + " matrix");
      Exact x;
      if (!io::tryExactFromJson(e[2], x)) io::exactValueError(e[2], at + "[2]");
      entries.push_back({static_cast<int>(r), static_cast<int>(c), std::move(x)});
    }
  }
  // A position listed twice is malformed (fromEntries would sum the values).
  std::vector<std::pair<int, int>> positions;
  for (const auto& e : entries) positions.emplace_back(e.row, e.col);
  std::sort(positions.begin(), positions.end());
  const auto dup = std::adjacent_find(positions.begin(), positions.end());
  if (dup != positions.end())
    throw Error(where + ".entries: position (" + std::to_string(dup->first) + ", " +
                std::to_string(dup->second) + ") is listed more than once");
  ExactMatrix m = ExactMatrix::fromEntries(static_cast<int>(shape[0]), static_cast<int>(shape[1]),
                                           std::move(entries));
  return m;
}

ExactVector SidecarReader::anyVector(const json& v, const std::string& where) const {
  if (isReference(v)) return vector(v, where);
  if (!v.is_array())
    throw Error(where + ": expected an array of values, got " + io::describeJson(v));
  ExactVector out;
  out.reserve(v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    Exact x;
    if (!io::tryExactFromJson(v[i], x))
      io::exactValueError(v[i], where + "[" + std::to_string(i) + "]");
    out.push_back(std::move(x));
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// Files

namespace {

// "out/model.json" -> "model"; the part of a sidecar's name before its hash.
std::string sidecarStem(const std::string& jsonPath) {
  return std::filesystem::path(jsonPath).filename().replace_extension().string();
}

constexpr size_t kHashDigits = 16;
constexpr const char* kSidecarSuffix = ".safetensors";

}  // namespace

std::string sidecarFileName(const std::string& jsonPath, const std::string& hash) {
  std::string digits = hash.substr(hash.find(':') == std::string::npos ? 0 : hash.find(':') + 1);
  digits.resize(kHashDigits, '0');
  return sidecarStem(jsonPath) + "." + digits + kSidecarSuffix;
}

namespace {

std::string besideJson(const std::string& jsonPath, const std::string& name) {
  return (std::filesystem::path(jsonPath).parent_path() / name).string();
}

}  // namespace

json writeSidecar(const std::string& jsonPath, const TensorFile& file) {
  const std::string bytes = safetensorsToBytes(file);
  const std::string hash = fnv1a64Text(bytes);
  const std::string name = sidecarFileName(jsonPath, hash);
  writeFileAtomically(besideJson(jsonPath, name), bytes);
  return json{{"file", name}, {"bytes", bytes.size()}, {"hash", hash}};
}

json writeSidecar(const std::string& jsonPath, const SafetensorsStream& stream) {
  // The name holds the content's hash, known once the bytes are written: the temporary
  // file is made for a name of zeros (removed with the other sidecars' temporaries if a
  // kill leaves it) and renamed to the real name.
  AtomicFileWriter file(besideJson(jsonPath, sidecarFileName(jsonPath, "")));
  const SafetensorsStream::Written written = stream.writeTo(file);
  const std::string hash = fnv1a64Text(written.hash);
  const std::string name = sidecarFileName(jsonPath, hash);
  file.commit(name);
  return json{{"file", name}, {"bytes", written.bytes}, {"hash", hash}};
}

void removeSupersededSidecars(const std::string& jsonPath, const std::string& keepFile) {
  namespace fs = std::filesystem;
  const fs::path parent = fs::path(jsonPath).parent_path();
  const fs::path dir = parent.empty() ? fs::path(".") : parent;
  const std::string prefix = sidecarStem(jsonPath) + ".";
  const std::string suffix = kSidecarSuffix;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    // A killed save's temporary of a sidecar goes too ("<sidecar>.tmp-<pid>-<random>").
    const bool temporary = isStaleTemporary(name);
    if (temporary) name = name.substr(0, name.rfind(".tmp-"));
    if ((name == keepFile && !temporary) ||
        name.size() != prefix.size() + kHashDigits + suffix.size())
      continue;
    if (name.compare(0, prefix.size(), prefix) != 0 ||
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
      continue;
    const std::string digits = name.substr(prefix.size(), kHashDigits);
    if (digits.find_first_not_of("0123456789abcdef") != std::string::npos) continue;
    std::error_code ignored;
    fs::remove(it->path(), ignored);
  }
}

TensorFile readSidecar(const std::string& jsonPath, const json& description) {
  const std::string where = jsonPath + ": sidecar";
  if (!description.is_object() || !description.contains("file") || !description["file"].is_string())
    throw Error(where + ": expected {\"file\": NAME, \"bytes\": N, \"hash\": H}, got " +
                description.dump());
  const std::string name = description["file"].get<std::string>();
  if (name.empty() || name.find('/') != std::string::npos || name.find('\\') != std::string::npos ||
      name == "." || name == "..")
    throw Error(where + ": file \"" + name +
                "\" must be a plain file name in the same folder as the JSON file");
  const std::string path = (std::filesystem::path(jsonPath).parent_path() / name).string();
  if (!std::filesystem::exists(path))
    throw Error(where + " \"" + path +
                "\" is missing (it holds the large matrices; keep it next to " + jsonPath + ")");
  const std::string bytes = readWholeFile(path);
  long long expectedBytes = -1;
  if (description.contains("bytes") && io::jsonInteger(description["bytes"], expectedBytes) &&
      expectedBytes != static_cast<long long>(bytes.size()))
    throw Error(where + " \"" + path + "\" has " + std::to_string(bytes.size()) +
                " bytes, expected " + std::to_string(expectedBytes) +
                " (it does not belong to this file, or it was cut short)");
  if (description.contains("hash")) {
    const std::string got = fnv1a64Text(bytes);
    if (!description["hash"].is_string() || description["hash"].get<std::string>() != got)
      throw Error(where + " \"" + path + "\" has hash " + got + ", expected " +
                  description["hash"].dump() + " (it belongs to another save of the file)");
  }
  return safetensorsFromBytes(bytes, path);
}

}  // namespace lsrl
