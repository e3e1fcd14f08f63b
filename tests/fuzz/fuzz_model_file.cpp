// Fuzzes compiled-model loading and every consumer of its path graph: any bytes must
// either be refused with lsrl::Error (by the reader or by requireValidPath, the validation
// every entry runs) or build the fp32 layer program and the exact linear-RNN target. A
// crash there is what `lsrl export` did on a model with a short bias vector.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/compiler/model_file.h"
#include "core/float_batch/layer_program.h"
#include "core/graph/checks.h"
#include "core/io/json_util.h"
#include "core/targets/targets.h"
#include "core/util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    // No sidecar can be found next to this name, so only inline models load.
    const lsrl::CompiledModel model =
        lsrl::modelFromJson(lsrl::io::parseJson(text, "fuzz.model.json"), "fuzz.model.json");
    lsrl::requireValidPath(model.path, "fuzz.model.json");
    (void)lsrl::float_batch::layerProgramFromPath(model.path);
    (void)lsrl::buildTarget(model.path, lsrl::Target::GatedLinearRnn);
  } catch (const lsrl::Error&) {
    // Refused, as the API promises.
  }
  return 0;
}
