// The chunked diagonal scan, its lanes scanned with subgroup shuffles (WIDTH divides the subgroup size):
// see diag_scan_chunk.glsl.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#define SCAN_WITH_SUBGROUP 1
#include "diag_scan_chunk.glsl"
