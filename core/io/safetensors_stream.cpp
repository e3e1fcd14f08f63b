#include "core/io/safetensors_stream.h"

#include <nlohmann/json.hpp>

#include "core/io/graph_hash.h"
#include "core/io/json_util.h"
#include "core/util/error.h"

namespace lsrl {

void SafetensorsStream::add(const Tensor& tensor) {
  checkTensor(tensor, "safetensors", names_);
  std::string data;
  appendTensorData(tensor, data);
  data_.append(data);
  entries_.push_back({tensor.name, tensor.dtype, tensor.shape, data.size()});
}

SafetensorsStream::Written SafetensorsStream::writeTo(AtomicFileWriter& out,
                                                      const std::string& metadataJson) const {
  if (!metadataJson.empty()) (void)io::parseJson(metadataJson, "safetensors: metadata");
  const std::string header = safetensorsHeader(metadataJson, entries_);
  Written w;
  w.bytes = header.size() + data_.size();
  w.hash = fnv1a64(header);
  out.write(header);
  data_.readBack([&](std::string_view piece) {
    w.hash = fnv1a64(piece, w.hash);
    out.write(piece);
  });
  return w;
}

}  // namespace lsrl
