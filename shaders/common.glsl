// Shared by every compute shader (included with GL_GOOGLE_include_directive).
// Buffers are plain arrays of `real` values; sizes and strides come in push constants.
//
// `real` is float, or double when the shader is compiled a second time with -DLSRL_F64
// (core/gpu/CMakeLists.txt's LSRL_F64_SHADERS, embedded as `<name>_f64`; docs/vulkan.md,
// "Float64 on the device"). Float literals convert to double implicitly, so a shader written
// with `real` needs nothing else; GLSL has no double exp/pow, which these shaders never call.
#extension GL_GOOGLE_include_directive : require

#ifdef LSRL_F64
#define real double
#define real2 dvec2
#define real4 dvec4
#else
#define real float
#define real2 vec2
#define real4 vec4
#endif
