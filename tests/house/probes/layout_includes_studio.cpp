// Must not compile: app/layout sees core only (docs/architecture.md).
#include "app/studio/window/main_window.h"
