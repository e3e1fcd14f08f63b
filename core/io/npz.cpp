#include "core/io/npz.h"

#include <zip.h>

#include <algorithm>
#include <memory>

#include "core/util/atomic_file.h"
#include "core/util/error.h"

namespace lsrl {

namespace {

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

std::string npzToBytes(const TensorFile& file) {
  checkTensorFile(file, "npz");
  std::vector<std::pair<std::string, std::string>> members;  // must outlive zip_close
  members.reserve(file.tensors.size() + 1);
  for (const Tensor& t : file.tensors) members.emplace_back(t.name + ".npy", npyToBytes(t));
  if (!file.metadataJson.empty()) {
    members.emplace_back(
        kMetadataMember,
        npyHeader("|u1", {static_cast<int64_t>(file.metadataJson.size())}) + file.metadataJson);
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
