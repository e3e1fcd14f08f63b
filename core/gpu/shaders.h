// The embedded SPIR-V of shaders/*.comp (compiled at build time), by file name.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "core/util/error.h"

namespace lsrl::gpu {

// Throws lsrl::Error for an unknown name.
std::span<const uint32_t> shaderCode(std::string_view name);

}  // namespace lsrl::gpu
