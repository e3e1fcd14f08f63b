#include "core/io/safetensors_stream.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "core/io/graph_hash.h"
#include "core/io/json_util.h"
#include "core/util/error.h"
#include "core/util/fd_write.h"

namespace lsrl {

namespace {

constexpr size_t kCopyChunk = size_t{1} << 20;

// An unnamed file in `folder`: O_TMPFILE where the file system has it, else a file that
// is unlinked as soon as it is open.
int openScratchFile(const std::string& folder) {
  int fd = ::open(folder.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd >= 0) return fd;
  std::string name = folder + "/.lsrl-scratch-XXXXXX";
  fd = ::mkostemp(name.data(), O_CLOEXEC);
  if (fd < 0) {
    throw Error("cannot create a scratch file in \"" + folder + "\": " + std::strerror(errno));
  }
  ::unlink(name.c_str());
  return fd;
}

}  // namespace

SafetensorsStream::SafetensorsStream(const std::string& folder)
    : folder_(folder.empty() ? "." : folder), fd_(openScratchFile(folder_)) {}

SafetensorsStream::~SafetensorsStream() {
  if (fd_ >= 0) ::close(fd_);
}

void SafetensorsStream::add(const Tensor& tensor) {
  checkTensor(tensor, "safetensors");
  if (!names_.insert(tensor.name).second)
    throw Error("safetensors: tensor '" + tensor.name + "': the name is used twice");
  std::string data;
  appendTensorData(tensor, data);
  if (!writeAllToFd(fd_, data.data(), data.size())) {
    throw Error("cannot write to the scratch file in \"" + folder_ + "\": " + std::strerror(errno) +
                " (after " + std::to_string(dataBytes_) + " bytes)");
  }
  entries_.push_back({tensor.name, tensor.dtype, tensor.shape, data.size()});
  dataBytes_ += data.size();
}

SafetensorsStream::Written SafetensorsStream::writeTo(AtomicFileWriter& out,
                                                      const std::string& metadataJson) const {
  if (!metadataJson.empty()) (void)io::parseJson(metadataJson, "safetensors: metadata");
  const std::string header = safetensorsHeader(metadataJson, entries_);
  Written w;
  w.bytes = header.size();
  w.hash = fnv1a64(header);
  out.write(header);
  std::string chunk(kCopyChunk, '\0');
  for (uint64_t at = 0; at < dataBytes_;) {
    const ssize_t n = ::pread(fd_, chunk.data(), chunk.size(), static_cast<off_t>(at));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      throw Error("cannot read back the scratch file in \"" + folder_ + "\" at byte " +
                  std::to_string(at) + ": " + (n < 0 ? std::strerror(errno) : "it is shorter"));
    }
    const std::string_view piece(chunk.data(), static_cast<size_t>(n));
    w.hash = fnv1a64(piece, w.hash);
    out.write(piece);
    at += static_cast<uint64_t>(n);
    w.bytes += static_cast<uint64_t>(n);
  }
  return w;
}

}  // namespace lsrl
