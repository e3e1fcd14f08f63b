// Must not compile: core/io sits below core/executor (docs/architecture.md, "Layers").
#include "core/executor/plan.h"
