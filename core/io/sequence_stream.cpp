#include "core/io/sequence_stream.h"

#include <nlohmann/json.hpp>
#include <numeric>
#include <optional>
#include <set>
#include <utility>

#include "core/graph/checks.h"
#include "core/io/json_util.h"
#include "core/io/sequence_file.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"

namespace lsrl {

namespace {

using nlohmann::json;

// SAX events of a token file, checked against its shape as they come. Anything that
// loadSequenceFile would refuse makes the handler stop (returns false); the caller then
// asks loadSequenceFile for its located message, so both readers say the same.
class TokenStream {
 public:
  using OnToken = std::function<void(size_t, size_t, ExactVector&&)>;
  TokenStream(const OnToken& onToken, SequenceFileShape& shape)
      : onToken_(onToken), shape_(shape) {}

  bool null() { return scalar(json(nullptr)); }
  bool boolean(bool v) { return scalar(json(v)); }
  bool number_integer(json::number_integer_t v) { return scalar(json(v)); }
  bool number_unsigned(json::number_unsigned_t v) { return scalar(json(v)); }
  bool number_float(json::number_float_t v, const std::string& /*text*/) { return scalar(json(v)); }
  bool string(std::string& v) { return scalar(json(std::move(v))); }
  bool binary(json::binary_t& /*v*/) { return false; }

  bool start_object(std::size_t /*size*/) { return open(true); }
  bool start_array(std::size_t /*size*/) { return open(false); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }

  bool key(std::string& k) {
    Level& level = stack_.back();
    if (!level.keys.insert(k).second) return false;  // a duplicate key
    if (level.frame == Frame::Root) {
      if ((k == "tokens" && sawBatch_) || (k == "batch" && sawTokens_)) return false;
      sawTokens_ = sawTokens_ || k == "tokens";
      sawBatch_ = sawBatch_ || k == "batch";
    } else if (level.frame == Frame::BatchEntry && k != "tokens") {
      return false;
    }
    level.key = k;
    return true;
  }

  template <class Exception>
  bool parse_error(std::size_t /*position*/, const std::string& /*token*/,
                   const Exception& /*ex*/) {
    return false;
  }

  bool complete() const { return done_; }

 private:
  // Root: the document; Extra: any value under another top-level key (kept out of the
  // run); Batch: the "batch" array; BatchEntry: {"tokens": ...}; Sequence: an array of
  // rows; Row: one token.
  enum class Frame { Root, Extra, Batch, BatchEntry, Sequence, Row };
  struct Level {
    Frame frame;
    bool object;
    std::set<std::string> keys;  // objects: the keys seen (duplicates are refused)
    std::string key;             // objects: the key of the value being read
    size_t items = 0;            // arrays: elements seen
  };

  // What a value opened inside the current level is.
  std::optional<Frame> childFrame(bool object) {
    if (stack_.empty()) return object ? std::optional(Frame::Root) : std::nullopt;
    const Level& level = stack_.back();
    switch (level.frame) {
      case Frame::Root:
        if (level.key == "tokens") return object ? std::nullopt : std::optional(Frame::Sequence);
        if (level.key == "batch") return object ? std::nullopt : std::optional(Frame::Batch);
        return Frame::Extra;
      case Frame::Extra:
        return Frame::Extra;
      case Frame::Batch:
        return object ? std::optional(Frame::BatchEntry) : std::nullopt;
      case Frame::BatchEntry:
        return object ? std::nullopt : std::optional(Frame::Sequence);
      case Frame::Sequence:
        return object ? std::nullopt : std::optional(Frame::Row);
      case Frame::Row:
        return std::nullopt;
    }
    return std::nullopt;
  }

  bool open(bool object) {
    if (stack_.size() >= static_cast<size_t>(io::kMaxJsonDepth)) return false;
    const std::optional<Frame> frame = childFrame(object);
    if (!frame) return false;
    if (!stack_.empty()) ++stack_.back().items;
    if (*frame == Frame::Sequence) {
      shape_.lengths.push_back(0);
    } else if (*frame == Frame::Row) {
      row_.clear();
    } else if (*frame == Frame::Batch) {
      shape_.isBatch = true;
    }
    stack_.push_back(Level{*frame, object, {}, {}, 0});
    return true;
  }

  bool close() {
    const Level level = std::move(stack_.back());
    stack_.pop_back();
    switch (level.frame) {
      case Frame::Root:
        done_ = sawTokens_ || sawBatch_;
        return done_;
      case Frame::Batch:
      case Frame::Sequence:
        return level.items > 0;  // an empty batch or sequence
      case Frame::BatchEntry:
        return level.keys.count("tokens") > 0;
      case Frame::Row:
        return endRow();
      case Frame::Extra:
        return true;
    }
    return true;
  }

  bool scalar(json v) {
    if (stack_.empty()) return false;  // the document is not an object
    Level& level = stack_.back();
    ++level.items;
    switch (level.frame) {
      case Frame::Extra:
        return true;
      case Frame::Root:
        return level.key != "tokens" && level.key != "batch";
      case Frame::Row: {
        const size_t limit =
            shape_.width > 0 ? static_cast<size_t>(shape_.width) : static_cast<size_t>(kMaxNodeDim);
        if (row_.size() >= limit) return false;
        Exact x;
        if (!io::tryExactFromJson(v, x)) return false;
        shape_.conductor = std::lcm(shape_.conductor, static_cast<long long>(x.conductor()));
        row_.push_back(std::move(x));
        return true;
      }
      default:
        return false;  // a value where an array or object belongs
    }
  }

  bool endRow() {
    if (row_.empty()) return false;
    if (shape_.width == 0) {
      shape_.width = static_cast<int>(row_.size());
    } else if (row_.size() != static_cast<size_t>(shape_.width)) {
      return false;
    }
    const size_t sequence = shape_.lengths.size() - 1;
    const size_t token = shape_.lengths.back()++;
    ++shape_.tokens;
    if (onToken_) onToken_(sequence, token, std::move(row_));
    row_ = ExactVector();
    return true;
  }

  const OnToken& onToken_;
  SequenceFileShape& shape_;
  std::vector<Level> stack_;
  ExactVector row_;
  bool sawTokens_ = false;
  bool sawBatch_ = false;
  bool done_ = false;
};

}  // namespace

SequenceFileShape streamSequenceFile(
    const std::string& path,
    const std::function<void(size_t sequence, size_t token, ExactVector&& row)>& onToken) {
  const std::string text = readWholeFile(path);
  SequenceFileShape shape;
  TokenStream handler(onToken, shape);
  bool ok = false;
  try {
    // A NUL byte ends nlohmann's input: what follows it is refused by the DOM reader below.
    ok = json::sax_parse(text, &handler) && handler.complete() &&
         text.find('\0') == std::string::npos;
  } catch (const json::exception&) {
    ok = false;  // not expected with a SAX handler; the DOM reader says what is wrong
  }
  if (ok) return shape;
  // Refused: the whole-file reader gives the located message.
  (void)sequencesFromString(text, path);
  throw Error(path +
              ": not a token file the stream reader accepts (expected {\"tokens\": "
              "[[...], ...]} or {\"batch\": [{\"tokens\": ...}, ...]})");
}

}  // namespace lsrl
