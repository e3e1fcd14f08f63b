// Shared by every compute shader (included with GL_GOOGLE_include_directive).
// Buffers are plain float arrays; sizes and strides come in push constants.
#extension GL_GOOGLE_include_directive : require
