#include "app/studio/zoo/trained_checkpoints.h"

#include "app/studio/window/examples_catalog.h"

namespace lsrl::studio {

QString trainedCheckpoint(const QString& kind) {
  return exampleFilePath(QStringLiteral("models/") + kind + QStringLiteral(".safetensors"));
}

}  // namespace lsrl::studio
