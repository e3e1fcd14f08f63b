// Large matrices and vectors of a JSON document (a compiled model, a compile history) kept
// in a binary safetensors "sidecar" next to it (docs/model-format.md), so that millions of
// non-zeros stay compact and load fast while every value still round-trips exactly.
//
// A matrix in the sidecar is referenced from the JSON as
//   {"shape": [rows, cols], "sidecar": "KEY", "exact": [[k, "1/3"], ...]}
// with three tensors in compressed-row form: KEY.row_start (F64, rows + 1), KEY.col (F32,
// one per non-zero: exact for indices below 2^24, and widths are at most 2^20) and
// KEY.val (F64). A vector is {"shape": [n], "sidecar": "KEY", "exact": [...]} with the
// tensor KEY (F64, n values). Every value that is a double is stored as that double;
// "exact" lists, by position in the values, the other ones (1/3, cos(pi/6)) in the scalar
// grammar, whose tensor slot then holds the nearest double as a hint for other readers.
#pragma once

#include <cstddef>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <unordered_map>

#include "core/graph/matrix.h"
#include "core/io/safetensors_stream.h"
#include "core/io/tensor.h"

namespace lsrl {

// Matrices with at least this many non-zeros, and vectors at least this long, go to the
// sidecar; smaller ones stay readable in the JSON.
constexpr size_t kDefaultSidecarMinEntries = 256;
constexpr long long kMaxInlineCells = 1LL << 20;

// Collects the sidecar's tensors while a document is written: in memory, or, given a
// stream, on disk as they come (for documents too big to hold).
class SidecarWriter {
 public:
  explicit SidecarWriter(size_t minEntries = kDefaultSidecarMinEntries,
                         SafetensorsStream* stream = nullptr)
      : minEntries_(minEntries), stream_(stream) {}

  // Also every matrix of more than kMaxInlineCells cells, however sparse: graph files
  // refuse huge shapes (docs/graph-format.md), and such shapes are cheap in the sidecar.
  bool wants(const ExactMatrix& m) const {
    return (m.nonZeros() >= minEntries_ && m.nonZeros() > 0) ||
           static_cast<long long>(m.rows()) * m.cols() > kMaxInlineCells;
  }
  bool wants(const ExactVector& v) const { return v.size() >= minEntries_ && !v.empty(); }

  // The reference form (see above); adds the tensors. Keys must be unique.
  nlohmann::json putMatrix(const std::string& key, const ExactMatrix& m);
  nlohmann::json putVector(const std::string& key, const ExactVector& v);
  // The reference form when wants(), else the inline form: {"shape", "entries":
  // [[row, col, value], ...]} for a matrix, an array of values for a vector (values as in
  // graph files: JSON integers below 2^53, else scalar-grammar strings).
  nlohmann::json matrix(const std::string& key, const ExactMatrix& m);
  nlohmann::json vector(const std::string& key, const ExactVector& v);

  bool empty() const { return stream_ != nullptr ? stream_->empty() : file_.tensors.empty(); }
  const TensorFile& file() const { return file_; }  // without a stream

 private:
  void put(Tensor t);

  size_t minEntries_;
  SafetensorsStream* stream_;
  TensorFile file_;
};

// Resolves references against a loaded sidecar (kept alive by the caller); `fileName`
// names it in errors.
class SidecarReader {
 public:
  SidecarReader() = default;
  SidecarReader(const TensorFile& file, const std::string& fileName);

  // True for an object with a "sidecar" key.
  static bool isReference(const nlohmann::json& v);
  // Reference form only; `where` names the JSON location ("m.json: nodes[3].A").
  ExactMatrix matrix(const nlohmann::json& ref, const std::string& where) const;
  ExactVector vector(const nlohmann::json& ref, const std::string& where) const;
  // Either form.
  ExactMatrix anyMatrix(const nlohmann::json& v, const std::string& where) const;
  ExactVector anyVector(const nlohmann::json& v, const std::string& where) const;

 private:
  const Tensor& tensor(const std::string& name, const std::string& where) const;

  std::unordered_map<std::string, const Tensor*> byName_;
  static constexpr const char* kNoSidecar = "<no sidecar>";
  std::string source_ = kNoSidecar;
};

// The sidecar's file name for a JSON file and the sidecar's content hash (fnv1a64Text):
// "out/model.json" -> "model.0123456789abcdef.safetensors". Named by content, a new
// sidecar never replaces the one the old JSON names, so the pair is replaced atomically:
// the sidecar is written first, the JSON renamed over the old one last, and a kill at any
// moment leaves the old pair or the new one (docs/model-format.md).
std::string sidecarFileName(const std::string& jsonPath, const std::string& hash);
// Writes the sidecar atomically beside `jsonPath` and returns its description for the
// JSON: {"file": "model.<hash>.safetensors", "bytes": N, "hash": "fnv1a64:..."}.
nlohmann::json writeSidecar(const std::string& jsonPath, const TensorFile& file);
// The same for tensors gathered by a SafetensorsStream (copied from its scratch file).
nlohmann::json writeSidecar(const std::string& jsonPath, const SafetensorsStream& stream);
// After the JSON is in place: removes the sidecars named for `jsonPath` (by the pattern
// above) other than `keepFile` ("" keeps none), i.e. those of earlier saves, including
// those a killed save left behind.
void removeSupersededSidecars(const std::string& jsonPath, const std::string& keepFile);
// Reads the sidecar a description names (relative to the JSON's folder) and checks its
// size and hash, so that a sidecar from another save is refused rather than misread.
TensorFile readSidecar(const std::string& jsonPath, const nlohmann::json& description);

}  // namespace lsrl
