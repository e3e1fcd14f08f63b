#include "core/targets/weights_file.h"

#include "core/compiler/compiler.h"
#include "core/io/npz.h"
#include "core/io/safetensors.h"
#include "core/util/error.h"

namespace lsrl {

std::string weightsFormat(const std::string& path, const std::string& format) {
  std::string f = format;
  if (f.empty()) {
    const bool npz = path.size() >= 4 && path.substr(path.size() - 4) == ".npz";
    f = npz ? "npz" : "safetensors";
  }
  if (f != "safetensors" && f != "npz") {
    throw Error("unknown weight file format \"" + f + "\"; expected safetensors or npz");
  }
  return f;
}

void requireExportableSize(const Graph& path, const std::string& what) {
  const GraphSize size = graphSize(path);
  if (size.denseParams > kMaxExportValues) {
    throw Error(what + " has " + std::to_string(size.denseParams) +
                " dense parameters, more than the " + std::to_string(kMaxExportValues) +
                " that dense weight files may hold here; compile with optimisation on (the "
                "default) for a smaller model");
  }
}

TensorFile weightsFile(const TargetModel& model) {
  TensorFile file;
  file.tensors = model.tensors();
  file.metadataJson = model.metadata().dump();
  return file;
}

long long writeWeightsFile(const TensorFile& file, const std::string& path,
                           const std::string& format) {
  if (weightsFormat(path, format) == "npz") {
    writeNpz(path, file);
  } else {
    writeSafetensors(path, file);
  }
  long long values = 0;
  for (const Tensor& t : file.tensors) values += static_cast<long long>(t.data.size());
  return values;
}

TensorFile readWeightsFile(const std::string& path) {
  return weightsFormat(path) == "npz" ? readNpz(path) : readSafetensors(path);
}

}  // namespace lsrl
