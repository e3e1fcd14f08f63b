#include "core/io/npy.h"

#include <optional>

#include "core/util/error.h"

namespace lsrl {

namespace {

constexpr std::string_view kMagic = "\x93NUMPY";

std::string shapeTuple(const std::vector<int64_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  if (shape.size() == 1) s += ",";
  return s + ")";
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

}  // namespace

std::string npyHeader(std::string_view descr, const std::vector<int64_t>& shape) {
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
  return out;
}

const char* npyDescr(Tensor::DType dtype) { return dtype == Tensor::F32 ? "<f4" : "<f8"; }

std::string npyToBytes(const Tensor& tensor) {
  std::string out = npyHeader(npyDescr(tensor.dtype), tensor.shape);
  appendTensorData(tensor, out);
  return out;
}

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

void requireNpyDataSize(const NpyLayout& layout, uint64_t got, const std::string& where) {
  if (got != layout.dataBytes) {
    throw Error(where + ": shape " + shapeText(layout.shape) + " of " + inQuotes(layout.descr) +
                " needs " + std::to_string(layout.dataBytes) + " data bytes, the file has " +
                std::to_string(got));
  }
}

Tensor npyFromBytes(std::string_view bytes, const std::string& name, const std::string& source,
                    bool allowBytes) {
  const std::string& where = source;
  const NpyLayout layout = npyLayout(bytes, where, allowBytes);
  const std::string_view data = bytes.substr(layout.dataStart);
  requireNpyDataSize(layout, data.size(), where);
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

}  // namespace lsrl
