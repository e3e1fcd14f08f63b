// Must not compile: the CLI sees core and app/layout only (docs/architecture.md).
#include "app/studio/document/document.h"
