#include "core/io/sequence_file.h"

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "core/graph/checks.h"
#include "core/io/json_util.h"
#include "core/numbers/exact_field.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "core/util/out_of_memory.h"
#include "core/util/quote_input.h"

namespace lsrl {

namespace {

using nlohmann::json;

class SequenceLoader {
 public:
  explicit SequenceLoader(const std::string& source) : source_(source) {}

  SequenceBatch load(const json& doc) {
    if (!doc.is_object()) {
      fail("",
           "expected a JSON object {\"tokens\": [[...], ...]} or {\"batch\": [{\"tokens\": "
           "...}, ...]}, got " +
               io::describeJson(doc));
    }
    const auto tokens = doc.find("tokens");
    const auto batch = doc.find("batch");
    if (tokens != doc.end() && batch != doc.end()) {
      fail("",
           "has both \"tokens\" and \"batch\"; use \"tokens\" for one sequence or \"batch\" "
           "for several");
    }
    SequenceBatch out;
    out.extra = json::object();
    for (auto it = doc.begin(); it != doc.end(); ++it) {
      if (it.key() != "tokens" && it.key() != "batch") out.extra[it.key()] = it.value();
    }
    if (tokens != doc.end()) {
      out.sequences.push_back(sequence(*tokens, "tokens"));
    } else if (batch != doc.end()) {
      out.isBatch = true;
      if (!batch->is_array()) {
        fail("batch", "expected an array of {\"tokens\": [[...], ...]} objects, got " +
                          io::describeJson(*batch));
      }
      if (batch->empty()) fail("batch", "the batch is empty; expected at least one sequence");
      out.sequences.reserve(batch->size());
      for (size_t i = 0; i < batch->size(); ++i) {
        const json& item = (*batch)[i];
        const std::string where = "batch[" + std::to_string(i) + "]";
        if (!item.is_object()) {
          fail(where,
               "expected an object {\"tokens\": [[...], ...]}, got " + io::describeJson(item));
        }
        for (auto it = item.begin(); it != item.end(); ++it) {
          if (it.key() != "tokens") {
            fail(where, "unknown key \"" + it.key() + "\" (a batch entry has only \"tokens\")");
          }
        }
        const auto t = item.find("tokens");
        if (t == item.end()) fail(where, "missing key \"tokens\"");
        out.sequences.push_back(sequence(*t, where + ".tokens"));
      }
    } else {
      fail("",
           "missing key \"tokens\" (one sequence: {\"tokens\": [[...], ...]}) or \"batch\" "
           "(several: {\"batch\": [{\"tokens\": ...}, ...]})");
    }
    out.width = width_;
    return out;
  }

 private:
  [[noreturn]] void fail(const std::string& where, const std::string& message) const {
    io::failAt(source_, where, message);
  }

  ExactSequence sequence(const json& v, const std::string& where) {
    if (!v.is_array()) {
      fail(where,
           "expected an array of tokens (one row of values per token), got " + io::describeJson(v));
    }
    if (v.empty()) fail(where, "the sequence is empty; expected at least one token");
    ExactSequence seq;
    seq.reserve(v.size());
    for (size_t t = 0; t < v.size(); ++t) {
      const json& row = v[t];
      const std::string rowAt = where + "[" + std::to_string(t) + "]";
      if (!row.is_array()) {
        std::string hint;
        if (row.is_number() || row.is_string()) hint = "; write [[1], [0]] for tokens of width 1";
        fail(rowAt, "expected a row (an array of values), got " + io::describeJson(row) + hint);
      }
      if (row.empty()) fail(rowAt, "the row is empty; a token has at least one value");
      if (width_ == 0) {
        if (row.size() > static_cast<size_t>(kMaxNodeDim)) {
          fail(rowAt, "row has " + std::to_string(row.size()) + " values, more than the limit " +
                          std::to_string(kMaxNodeDim));
        }
        width_ = static_cast<int>(row.size());
        widthFrom_ = rowAt;
      } else if (row.size() != static_cast<size_t>(width_)) {
        fail(rowAt, "row has " + std::to_string(row.size()) + " value" +
                        (row.size() == 1 ? "" : "s") + ", expected " + std::to_string(width_) +
                        " (the width of " + widthFrom_ + ")");
      }
      ExactVector values;
      values.reserve(row.size());
      for (size_t k = 0; k < row.size(); ++k) {
        Exact x;
        if (!io::tryExactFromJson(row[k], x)) {
          io::exactValueError(row[k], source_ + ": " + rowAt + "[" + std::to_string(k) + "]");
        }
        values.push_back(std::move(x));
      }
      seq.push_back(std::move(values));
    }
    return seq;
  }

  const std::string& source_;
  int width_ = 0;
  std::string widthFrom_;
};

}  // namespace

SequenceBatch sequencesFromJson(const json& doc, const std::string& source) {
  return SequenceLoader(source).load(doc);
}

SequenceBatch sequencesFromString(std::string_view text, const std::string& source) {
  return sequencesFromJson(io::parseJson(text, source), source);
}

SequenceBatch loadSequenceFile(const std::string& path) {
  return whileBuilding("reading the input file " + quotePath(path),
                       [&] { return sequencesFromString(readWholeFile(path), path); });
}

json exactToJson(const Exact& x) {
  if (x.isInteger()) {
    const mpq_class q = x.toRational();
    const mpz_class& n = q.get_num();
    static const mpz_class kLimit = mpz_class(1) << 53;
    if (abs(n) < kLimit) return json(static_cast<long long>(n.get_si()));
  }
  return json(x.toString());
}

json exactRowsToJson(const std::vector<ExactVector>& rows) {
  json out = json::array();
  for (const ExactVector& row : rows) {
    json r = json::array();
    for (const Exact& x : row) r.push_back(exactToJson(x));
    out.push_back(std::move(r));
  }
  return out;
}

json doubleRowsToJson(const std::vector<std::vector<double>>& rows) {
  json out = json::array();
  for (const auto& row : rows) {
    json r = json::array();
    for (double x : row) {
      if (std::isfinite(x)) {
        r.push_back(x);
      } else {
        // JSON has no inf/nan; keep the information as text instead of null.
        r.push_back(std::isnan(x) ? "nan" : (x > 0 ? "inf" : "-inf"));
      }
    }
    out.push_back(std::move(r));
  }
  return out;
}

Exact exactFromJson(const json& v, const std::string& where) {
  Exact x;
  if (!io::tryExactFromJson(v, x)) io::exactValueError(v, where);
  return x;
}

}  // namespace lsrl
