#include "core/seed_models/char_text.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>

#include "core/io/json_util.h"
#include "core/seed_models/config_reader.h"
#include "core/seed_models/model_common.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"

namespace lsrl::seed_models {

namespace {

namespace fs = std::filesystem;

// More text than a character model here could use; the limit keeps a wrong path (a disk
// image, say) from filling memory.
constexpr uint64_t kMaxCorpusBytes = uint64_t{1} << 30;

[[noreturn]] void missingCorpus(const std::string& path) {
  const std::string hint =
      path == kDefaultCharCorpus
          ? std::string(
                " (Debian: apt-get install fortunes), or set \"text\" to a text file or "
                "folder")
          : std::string(": set \"text\" to a text file or folder, or leave it empty for ") +
                kDefaultCharCorpus + " (Debian: apt-get install fortunes)";
  throw Error("char_lm: no text corpus at " + path + hint);
}

// The folder's regular files without a dot in their names, in name order.
std::vector<std::string> corpusFiles(const std::string& folder) {
  std::vector<std::string> names;
  std::error_code ec;
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.find('.') != std::string::npos) continue;
    std::error_code typeError;
    if (it->is_symlink(typeError) || !it->is_regular_file(typeError)) continue;
    names.push_back(name);
  }
  if (ec) throw Error("char_lm: cannot list the text folder " + folder + ": " + ec.message());
  std::sort(names.begin(), names.end());
  if (names.empty())
    throw Error("char_lm: the text folder " + folder +
                " has no regular files without a dot in their names");
  return names;
}

std::string readCorpusText(const std::string& path) {
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (ec || !fs::exists(status)) missingCorpus(path);
  if (!fs::is_directory(status)) return readWholeFile(path, kMaxCorpusBytes);
  std::string text;
  for (const std::string& name : corpusFiles(path)) {
    text += readWholeFile((fs::path(path) / name).string(), kMaxCorpusBytes);
    if (text.size() > kMaxCorpusBytes)
      throw Error("char_lm: the text folder " + path + " holds more than 1 GiB");
  }
  return text;
}

std::shared_ptr<const CharCorpus> loadCharCorpus(const std::string& path) {
  const std::string text = readCorpusText(path);
  auto corpus = std::make_shared<CharCorpus>();
  corpus->path = path;
  corpus->classes.resize(text.size());
  for (size_t i = 0; i < text.size(); ++i)
    corpus->classes[i] = static_cast<uint8_t>(charClass(static_cast<unsigned char>(text[i])));
  corpus->trainEnd = text.size() / 10 * 9 + text.size() % 10 * 9 / 10;  // ⌊0.9·n⌋, no overflow
  return corpus;
}

}  // namespace

int charClass(unsigned char byte) {
  if (byte == '\n') return 0;
  if (byte >= 32 && byte <= 126) return byte - 31;
  return 96;
}

CharLmParams charLmParams(const nlohmann::json& config) {
  const ConfigReader read{"lattice"};
  CharLmParams p;
  if (!config.is_object()) return p;
  if (config.contains("text")) {
    if (!config["text"].is_string())
      read.bad("text", "expected a file or folder name (a string), got " +
                           io::describeJson(config["text"]));
    p.text = config["text"].get<std::string>();
  }
  if (config.contains("lm_context"))
    p.context = read.integer(config["lm_context"], "lm_context", 1, kMaxElements);
  return p;
}

void checkCharLmWidths(int dIn, int dOut) {
  if (dIn != kCharClasses)
    throw Error("char_lm: d_in " + std::to_string(dIn) + " must equal the " +
                std::to_string(kCharClasses) +
                " character classes (newline, printable ASCII, other)");
  if (dOut < kCharClasses)
    throw Error("char_lm: d_out " + std::to_string(dOut) + " is less than the " +
                std::to_string(kCharClasses) + " character classes the targets name");
}

std::shared_ptr<const CharCorpus> charCorpus(const std::string& path) {
  // Loaded under the lock: the threads of one evaluation all want the same corpus, and
  // one read serves them all.
  static std::mutex lock;
  static std::map<std::string, std::shared_ptr<const CharCorpus>> cache;
  const std::lock_guard<std::mutex> guard(lock);
  auto& slot = cache[path];
  if (!slot) {
    try {
      slot = loadCharCorpus(path);
    } catch (...) {
      cache.erase(path);  // a corpus installed later is found then
      throw;
    }
  }
  return slot;
}

CharLmSample charLmSample(const CharLmParams& p, uint64_t seed) {
  if (p.context < 1 || p.context > kMaxElements)
    throw Error("char_lm: lm_context must be in 1..1000000, got " + std::to_string(p.context));
  const std::shared_ptr<const CharCorpus> corpus = charCorpus(p.corpusPath());
  CharLmSample s;
  s.heldOut = seed < kCharHeldOutSeeds;
  const size_t begin = s.heldOut ? corpus->trainEnd : 0;
  const size_t end = s.heldOut ? corpus->classes.size() : corpus->trainEnd;
  const size_t window = static_cast<size_t>(p.context) + 1;
  if (end - begin < window)
    throw Error("char_lm: the " + std::string(s.heldOut ? "held-out" : "training") + " part of " +
                corpus->path + " has " + std::to_string(end - begin) +
                " characters, fewer than a window of lm_context + 1 = " + std::to_string(window));
  Rng rng(seed);
  s.offset = begin + static_cast<size_t>(rng.next() % (end - begin - window + 1));
  const auto* text = corpus->classes.data() + s.offset;
  s.tokens.assign(text, text + window - 1);
  s.targets.assign(text + 1, text + window);
  return s;
}

}  // namespace lsrl::seed_models
