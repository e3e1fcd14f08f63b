#include "core/io/npz.h"

#include <zip.h>

#include <algorithm>
#include <memory>
#include <optional>

#include "core/util/atomic_file.h"
#include "core/util/error.h"

namespace lsrl {

namespace {

constexpr std::string_view kMagic = "\x93NUMPY";
// Zip members larger than this multiple of the archive are refused before reading
// (deflate cannot compress by much more than 1032:1).
constexpr uint64_t kMaxExpansion = 1100;
constexpr const char* kMetadataMember = "__metadata__.npy";
// A .npy header fits in its first 64 KiB (a version-1 header length is 16 bits).
constexpr uint64_t kNpyHeadRead = 65536 + 16;
// The values an npz weights file may hold in all (256 MiB as float64): the seed models and
// compiled exports hold far fewer, and a deflated archive of ~1 MB could otherwise claim
// a gigabyte of zeros.
constexpr uint64_t kMaxNpzValues = uint64_t{1} << 25;

std::string shapeTuple(const std::vector<int64_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  if (shape.size() == 1) s += ",";
  return s + ")";
}

std::string npyBytes(std::string_view descr, const std::vector<int64_t>& shape,
                     std::string_view data) {
  const std::string dict = "{'descr': '" + std::string(descr) +
                           "', 'fortran_order': False, 'shape': " + shapeTuple(shape) + ", }";
  size_t preamble = kMagic.size() + 2 + 2;  // magic, version, uint16 header length
  int major = 1;
  if (preamble + dict.size() + 1 > 65535) {
    preamble += 2;  // version 2.0: uint32 header length
    major = 2;
  }
  std::string header = dict;
  header.append((64 - (preamble + dict.size() + 1) % 64) % 64, ' ');
  header += '\n';
  std::string out(kMagic);
  out.push_back(static_cast<char>(major));
  out.push_back('\0');
  for (size_t i = 0; i < preamble - 8; ++i)
    out.push_back(static_cast<char>((header.size() >> (8 * i)) & 0xFF));
  out += header;
  out += data;
  return out;
}

// The Python literal of a .npy header: {'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }
class HeaderParser {
 public:
  HeaderParser(std::string_view text, std::string where) : text_(text), where_(std::move(where)) {}

  struct Result {
    std::optional<std::string> descr;
    std::optional<bool> fortranOrder;
    std::optional<std::vector<int64_t>> shape;
  };

  Result parse() {
    Result r;
    expect('{');
    while (true) {
      skipSpace();
      if (peek() == '}') break;
      const std::string key = string();
      expect(':');
      skipSpace();
      if (key == "descr") {
        r.descr = string();
      } else if (key == "fortran_order") {
        r.fortranOrder = boolean();
      } else if (key == "shape") {
        r.shape = tuple();
      } else {
        fail("unexpected key " + inQuotes(key));
      }
      skipSpace();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      if (peek() != '}') fail("expected ',' or '}'");
    }
    ++pos_;
    skipSpace();
    if (pos_ != text_.size()) fail("unexpected text after the dictionary");
    return r;
  }

 private:
  [[noreturn]] void fail(const std::string& message) const {
    throw Error(where_ + ": malformed .npy header (" + message + " at byte " +
                std::to_string(pos_) + "): " + std::string(text_.substr(0, 200)));
  }
  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  void skipSpace() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\n')) ++pos_;
  }
  void expect(char c) {
    skipSpace();
    if (peek() != c) fail(std::string("expected '") + c + "'");
    ++pos_;
  }
  std::string string() {
    skipSpace();
    const char q = peek();
    if (q != '\'' && q != '"') fail("expected a string");
    const size_t close = text_.find(q, pos_ + 1);
    if (close == std::string_view::npos) fail("unterminated string");
    std::string s(text_.substr(pos_ + 1, close - pos_ - 1));
    pos_ = close + 1;
    return s;
  }
  bool boolean() {
    if (text_.substr(pos_, 4) == "True") {
      pos_ += 4;
      return true;
    }
    if (text_.substr(pos_, 5) == "False") {
      pos_ += 5;
      return false;
    }
    fail("expected True or False");
  }
  std::vector<int64_t> tuple() {
    std::vector<int64_t> dims;
    expect('(');
    while (true) {
      skipSpace();
      if (peek() == ')') break;
      if (peek() < '0' || peek() > '9') fail("expected a non-negative integer");
      int64_t d = 0;
      while (peek() >= '0' && peek() <= '9') {
        if (d > (INT64_MAX - 9) / 10) fail("dimension too large");
        d = d * 10 + (peek() - '0');
        ++pos_;
      }
      if (peek() == 'L') ++pos_;  // Python 2 long
      dims.push_back(d);
      if (dims.size() > 64) fail("more than 64 dimensions");
      skipSpace();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      if (peek() != ')') fail("expected ',' or ')'");
    }
    ++pos_;
    return dims;
  }

  std::string_view text_;
  std::string where_;
  size_t pos_ = 0;
};

// RAII for libzip handles.
struct ZipDiscard {
  void operator()(zip_t* z) const { zip_discard(z); }
};
struct SourceFree {
  void operator()(zip_source_t* s) const { zip_source_free(s); }
};
struct FileClose {
  void operator()(zip_file_t* f) const { zip_fclose(f); }
};
using ZipPtr = std::unique_ptr<zip_t, ZipDiscard>;
using SourcePtr = std::unique_ptr<zip_source_t, SourceFree>;
using FilePtr = std::unique_ptr<zip_file_t, FileClose>;

struct ZipError {
  zip_error_t error;
  ZipError() { zip_error_init(&error); }
  ~ZipError() { zip_error_fini(&error); }
  ZipError(const ZipError&) = delete;
  ZipError& operator=(const ZipError&) = delete;
  std::string text() { return zip_error_strerror(&error); }
};

// A fixed modification time (2000-01-01) so that archives are reproducible.
constexpr time_t kFixedTime = 946684800;

}  // namespace

std::string npyToBytes(const Tensor& tensor) {
  std::string data;
  appendTensorData(tensor, data);
  return npyBytes(tensor.dtype == Tensor::F32 ? "<f4" : "<f8", tensor.shape, data);
}

namespace {

// What a .npy preamble and header say: the tensor's dtype and shape, where its data starts
// and how many bytes it needs. Parsed from the first bytes only, so that a zip member can be
// checked before it is decompressed.
struct NpyLayout {
  Tensor::DType dtype = Tensor::F64;
  bool isBytes = false;  // '|u1' (metadata)
  std::vector<int64_t> shape;
  std::string descr;
  uint64_t count = 0;      // elements
  uint64_t dataStart = 0;  // offset of the data
  uint64_t dataBytes = 0;  // bytes the data needs
};

NpyLayout npyLayout(std::string_view bytes, const std::string& where, bool allowBytes) {
  if (bytes.size() < 10 || bytes.substr(0, kMagic.size()) != kMagic) {
    throw Error(where + ": not a .npy file (no \\x93NUMPY magic)");
  }
  const int major = static_cast<unsigned char>(bytes[6]);
  if (major < 1 || major > 3) {
    throw Error(where + ": unsupported .npy format version " + std::to_string(major) + "." +
                std::to_string(static_cast<unsigned char>(bytes[7])));
  }
  const size_t lengthBytes = major == 1 ? 2 : 4;
  if (bytes.size() < 8 + lengthBytes) throw Error(where + ": truncated .npy preamble");
  uint64_t headerLength = 0;
  for (size_t i = 0; i < lengthBytes; ++i) {
    headerLength |= uint64_t{static_cast<unsigned char>(bytes[8 + i])} << (8 * i);
  }
  const size_t start = 8 + lengthBytes;
  if (headerLength > bytes.size() - start) {
    throw Error(where + ": .npy header length " + std::to_string(headerLength) + " exceeds the " +
                std::to_string(bytes.size() - start) + " bytes after it (truncated?)");
  }
  const auto header = HeaderParser(bytes.substr(start, headerLength), where).parse();
  if (!header.descr || !header.fortranOrder || !header.shape) {
    throw Error(where + ": .npy header lacks 'descr', 'fortran_order' or 'shape'");
  }
  if (*header.fortranOrder) throw Error(where + ": Fortran-order arrays are not supported");
  NpyLayout layout;
  layout.shape = *header.shape;
  layout.descr = *header.descr;
  if (layout.descr == "<f8") {
    layout.dtype = Tensor::F64;
  } else if (layout.descr == "<f4") {
    layout.dtype = Tensor::F32;
  } else if (allowBytes && (layout.descr == "|u1" || layout.descr == "<u1")) {
    layout.isBytes = true;
  } else {
    throw Error(where + ": dtype " + inQuotes(layout.descr) +
                " is not supported (LSRL reads '<f8' and '<f4')");
  }
  layout.count = elementCount(layout.shape, layout.dtype, where);
  layout.dataStart = start + headerLength;
  layout.dataBytes = layout.isBytes ? layout.count : layout.count * dtypeSize(layout.dtype);
  return layout;
}

void requireDataSize(const NpyLayout& layout, uint64_t got, const std::string& where) {
  if (got != layout.dataBytes) {
    throw Error(where + ": shape " + shapeText(layout.shape) + " of " + inQuotes(layout.descr) +
                " needs " + std::to_string(layout.dataBytes) + " data bytes, the file has " +
                std::to_string(got));
  }
}

}  // namespace

Tensor npyFromBytes(std::string_view bytes, const std::string& name, const std::string& source,
                    bool allowBytes) {
  const std::string& where = source;
  const NpyLayout layout = npyLayout(bytes, where, allowBytes);
  const std::string_view data = bytes.substr(layout.dataStart);
  requireDataSize(layout, data.size(), where);
  Tensor t;
  t.name = name;
  t.shape = layout.shape;
  t.dtype = layout.dtype;
  if (layout.isBytes) {
    t.data.reserve(layout.count);
    for (char c : data) t.data.push_back(static_cast<unsigned char>(c));
  } else {
    t.data = decodeTensorData(data, t.dtype, layout.count);
  }
  return t;
}

std::string npzToBytes(const TensorFile& file) {
  checkTensorFile(file, "npz");
  std::vector<std::pair<std::string, std::string>> members;  // must outlive zip_close
  members.reserve(file.tensors.size() + 1);
  for (const Tensor& t : file.tensors) members.emplace_back(t.name + ".npy", npyToBytes(t));
  if (!file.metadataJson.empty()) {
    members.emplace_back(
        kMetadataMember,
        npyBytes("|u1", {static_cast<int64_t>(file.metadataJson.size())}, file.metadataJson));
  }

  if (members.empty()) {
    // libzip writes nothing for an archive without members; an empty zip is its end record.
    return std::string("PK\x05\x06", 4) + std::string(18, '\0');
  }
  ZipError error;
  SourcePtr archive(zip_source_buffer_create(nullptr, 0, 0, &error.error));
  if (!archive) throw Error("npz: cannot create an in-memory archive: " + error.text());
  ZipPtr zip(zip_open_from_source(archive.get(), ZIP_TRUNCATE, &error.error));
  if (!zip) throw Error("npz: cannot create an in-memory archive: " + error.text());
  zip_source_keep(archive.get());  // zip_close/zip_discard release one reference
  auto zipFailure = [&](const std::string& what) {
    return Error("npz: " + what + ": " + zip_error_strerror(zip_get_error(zip.get())));
  };
  for (const auto& [name, bytes] : members) {
    zip_source_t* source = zip_source_buffer(zip.get(), bytes.data(), bytes.size(), 0);
    if (!source) throw zipFailure("cannot add member '" + name + "'");
    const zip_int64_t index = zip_file_add(zip.get(), name.c_str(), source, ZIP_FL_ENC_UTF_8);
    if (index < 0) {
      zip_source_free(source);
      throw zipFailure("cannot add member '" + name + "'");
    }
    const auto i = static_cast<zip_uint64_t>(index);
    if (zip_set_file_compression(zip.get(), i, ZIP_CM_STORE, 0) != 0 ||
        zip_file_set_mtime(zip.get(), i, kFixedTime, 0) != 0) {
      throw zipFailure("cannot set up member '" + name + "'");
    }
  }
  if (zip_close(zip.get()) != 0) throw zipFailure("cannot write the archive");
  zip.release();  // closed (and freed) by zip_close

  zip_stat_t stat;
  zip_stat_init(&stat);
  if (zip_source_stat(archive.get(), &stat) != 0 || !(stat.valid & ZIP_STAT_SIZE) ||
      zip_source_open(archive.get()) != 0) {
    throw Error("npz: cannot read back the in-memory archive: " +
                std::string(zip_error_strerror(zip_source_error(archive.get()))));
  }
  std::string out(stat.size, '\0');
  const zip_int64_t got = zip_source_read(archive.get(), out.data(), out.size());
  zip_source_close(archive.get());
  if (got < 0 || static_cast<zip_uint64_t>(got) != stat.size) {
    throw Error("npz: cannot read back the in-memory archive");
  }
  return out;
}

void writeNpz(const std::string& path, const TensorFile& file) {
  writeTensorFile(path, file, npzToBytes);
}

TensorFile npzFromBytes(std::string_view bytes, const std::string& source) {
  const std::string where = "npz file \"" + source + "\"";
  if (bytes.size() < 22) {  // libzip would open an empty buffer as a new, empty archive
    throw Error(where + ": not a readable zip archive: " + std::to_string(bytes.size()) +
                " bytes, fewer than the 22 of a zip end record");
  }
  ZipError error;
  SourcePtr archive(zip_source_buffer_create(bytes.data(), bytes.size(), 0, &error.error));
  if (!archive) throw Error(where + ": " + error.text());
  ZipPtr zip(zip_open_from_source(archive.get(), ZIP_RDONLY | ZIP_CHECKCONS, &error.error));
  if (!zip) throw Error(where + ": not a readable zip archive: " + error.text());
  archive.release();  // owned by the archive now

  TensorFile file;
  uint64_t values = 0;  // declared by the headers so far
  const zip_int64_t count = zip_get_num_entries(zip.get(), 0);
  for (zip_int64_t i = 0; i < count; ++i) {
    const auto index = static_cast<zip_uint64_t>(i);
    zip_stat_t stat;
    zip_stat_init(&stat);
    if (zip_stat_index(zip.get(), index, 0, &stat) != 0 || !(stat.valid & ZIP_STAT_NAME) ||
        !(stat.valid & ZIP_STAT_SIZE)) {
      throw Error(where + ": cannot read the directory entry of member " + std::to_string(i));
    }
    const std::string member = stat.name;
    const std::string what = where + ", member '" + member + "'";
    if (member.size() <= 4 || member.substr(member.size() - 4) != ".npy") {
      throw Error(what + ": not a .npy member");
    }
    const uint64_t limit = (stat.valid & ZIP_STAT_COMP_METHOD) && stat.comp_method == ZIP_CM_STORE
                               ? bytes.size()
                               : bytes.size() * kMaxExpansion;
    if (stat.size > limit) {
      throw Error(what + ": its size " + std::to_string(stat.size) +
                  " does not fit the archive's " + std::to_string(bytes.size()) + " bytes");
    }
    FilePtr f(zip_fopen_index(zip.get(), index, 0));
    if (!f) throw Error(what + ": " + zip_error_strerror(zip_get_error(zip.get())));
    // The .npy header first: a member whose header and directory entry disagree, or whose
    // data would blow the value budget, is refused before it is decompressed.
    std::string content(std::min<uint64_t>(stat.size, kNpyHeadRead), '\0');
    zip_uint64_t done = 0;
    const auto readUpTo = [&](zip_uint64_t end) {
      while (done < end) {
        const zip_int64_t got = zip_fread(f.get(), content.data() + done, end - done);
        if (got < 0) throw Error(what + ": " + zip_error_strerror(zip_file_get_error(f.get())));
        if (got == 0) break;
        done += static_cast<zip_uint64_t>(got);
      }
    };
    readUpTo(content.size());
    const NpyLayout layout =
        npyLayout(std::string_view(content.data(), done), what, member == kMetadataMember);
    if (layout.dataStart + layout.dataBytes != stat.size) {
      throw Error(what + ": its .npy header says shape " + shapeText(layout.shape) + " of " +
                  inQuotes(layout.descr) + " (" + std::to_string(layout.dataStart) + " + " +
                  std::to_string(layout.dataBytes) + " bytes), but the archive lists " +
                  std::to_string(stat.size) + " bytes");
    }
    values += layout.count;
    if (values > kMaxNpzValues) {
      throw Error(what + ": with shape " + shapeText(layout.shape) + " the archive holds " +
                  std::to_string(values) + " values or more, expected at most " +
                  std::to_string(kMaxNpzValues) + " in a weights file");
    }
    content.resize(stat.size);
    readUpTo(content.size());
    char extra = 0;  // reading past the end makes libzip check the CRC
    const zip_int64_t tail = zip_fread(f.get(), &extra, 1);
    if (tail < 0) throw Error(what + ": " + zip_error_strerror(zip_file_get_error(f.get())));
    if (done != content.size() || tail != 0) {
      throw Error(what + ": its size does not match the directory entry");
    }
    const std::string name = member.substr(0, member.size() - 4);
    if (member == kMetadataMember) {
      const Tensor t = npyFromBytes(content, name, what, true);
      if (t.shape.size() != 1) throw Error(what + ": metadata must be a 1-d uint8 array");
      std::string text;
      text.reserve(t.data.size());
      for (double v : t.data) {
        if (v < 0 || v > 255 || v != static_cast<int>(v)) {
          throw Error(what + ": metadata must be a 1-d uint8 array");
        }
        text.push_back(static_cast<char>(static_cast<unsigned char>(v)));
      }
      file.metadataJson = std::move(text);
      continue;
    }
    file.tensors.push_back(npyFromBytes(content, name, what));
  }
  return file;
}

TensorFile readNpz(const std::string& path) { return npzFromBytes(readWholeFile(path), path); }

}  // namespace lsrl
