#include "core/gpu/copy_kernel.h"

#include <algorithm>
#include <vector>

#include "core/gpu/row_tiles.h"
#include "core/gpu/workgroups.h"

namespace lsrl::gpu {

void recordCopy(Device& dev, Batch& batch, const Buffer& from, const Buffer& to, size_t bytes) {
  if (bytes % 16 != 0 || bytes > from.bytes() || bytes > to.bytes())
    throw Error("copy: " + std::to_string(bytes) +
                " bytes (a multiple of 16 within both buffers of " + std::to_string(from.bytes()) +
                " and " + std::to_string(to.bytes()) + " bytes expected)");
  const uint32_t count4 = static_cast<uint32_t>(bytes / 16);
  const Kernel& k = shaderKernel(dev, "copy", 2, sizeof(uint32_t));
  batch.dispatch(k, {&from, &to}, &count4, sizeof count4, cappedGroups(count4, k.workgroup().x));
}

double timeCopy(Device& dev, size_t bytes, int repeats) {
  bytes -= bytes % 16;
  auto from = dev.buffer(bytes);
  auto to = dev.buffer(bytes);
  std::vector<float> ones(bytes / sizeof(float), 1.0f);
  dev.upload(*from, ones.data(), bytes);
  std::vector<double> times;
  for (int r = 0; r <= std::max(1, repeats); ++r) {
    Batch batch = dev.batch(Timing::PerDispatch);
    recordCopy(dev, batch, *from, *to, bytes);
    const std::vector<double> ms = dev.run(batch);
    if (r > 0 && !ms.empty()) times.push_back(ms.front());  // run 0 warms up
  }
  if (times.empty()) return 0;
  std::nth_element(times.begin(), times.begin() + static_cast<std::ptrdiff_t>(times.size() / 2),
                   times.end());
  return times[times.size() / 2];
}

}  // namespace lsrl::gpu
