// The chunked diagonal scan's single pass (decoupled look-back), its lanes scanned with
// shared memory and barriers: see diag_scan_chunk.glsl.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#define SCAN_WITH_SUBGROUP 0
#define SINGLE_PASS 1
#include "diag_scan_chunk.glsl"
