// Where the files shipped in examples/ are found (example graphs, trained checkpoints
// under examples/models/): the folders searched and the file a name resolves to.
#pragma once

#include <QString>
#include <QStringList>

namespace lsrl::studio {

// Folders searched for example files, first match wins: $LSRL_EXAMPLES_DIR, the
// installed share/lsrl-studio/examples beside the binary, the configured install
// prefix, the source tree.
QStringList exampleDirectories();
// `fileName` (relative: "more_ones.json", "models/lattice.safetensors") in the first
// folder that has it; empty if none does.
QString exampleFilePath(const QString& fileName);

}  // namespace lsrl::studio
