// Must compile: the control for the probes that must not (tests/CMakeLists.txt).
#include "core/io/graph_file.h"
