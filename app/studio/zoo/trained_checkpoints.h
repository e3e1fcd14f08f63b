// The trained seed models shipped in examples/models/ (docs/results.md says how each was
// trained): the Models tab opens them by default.
#pragma once

#include <QString>

namespace lsrl::studio {

// examples/models/<kind>.safetensors where an example folder has it (examples_catalog.h),
// else empty.
QString trainedCheckpoint(const QString& kind);

}  // namespace lsrl::studio
