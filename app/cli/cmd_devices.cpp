// lsrl devices: the Vulkan devices this machine offers, the one runs would take, and
// why there are none when there are none (then runs use the CPU).
#include <nlohmann/json.hpp>
#include <ostream>

#include "app/cli/args.h"
#include "app/cli/commands.h"
#include "core/util/error.h"
#ifdef LSRL_HAVE_VULKAN
#include <cstdlib>

#include "core/gpu/device.h"
#endif

namespace lsrl::cli {

int cmdDevices(const Argv& argv, std::ostream& out) {
  const CommandSpec spec{"lsrl devices",
                         "Lists the Vulkan devices (index, type, name, driver, subgroup sizes, "
                         "limits, and\nfloat64 in shaders, which lsrl run --precision fp64 "
                         "needs); the one marked * is used\n(LSRL_VULKAN_DEVICE=index or part "
                         "of the name picks another). Ends with one JSON line.\nExit code 1, "
                         "with the reason, when there is none.",
                         {},
                         0,
                         0};
  const auto args = parseOrHelp(spec, argv, out);
  if (!args) return 0;
#ifdef LSRL_HAVE_VULKAN
  const std::vector<gpu::DeviceInfo> devices = gpu::listDevices();
  const char* env = std::getenv("LSRL_VULKAN_DEVICE");
  const int chosen = gpu::chooseDevice(devices, env ? env : "");
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const gpu::DeviceInfo& d : devices) {
    out << (d.index == chosen ? "* " : "  ") << d.index << "  " << d.type << "  " << d.name
        << "  (Vulkan " << d.apiVersionText << ", " << d.driver << ")\n"
        << "     subgroup " << d.subgroupSize << " (" << d.minSubgroupSize << ".."
        << d.maxSubgroupSize << ", arithmetic " << (d.subgroupArithmetic ? "yes" : "no")
        << "), workgroup <= " << d.maxWorkgroupSize << ", shared " << d.maxSharedMemory
        << " B, storage buffer <= " << d.maxStorageBufferRange << " B, timestamps "
        << (d.timestampPeriodNs > 0 ? "yes" : "no") << ", float64 "
        << (d.shaderFloat64 ? "yes" : "no") << "\n";
    list.push_back({{"index", d.index},
                    {"name", d.name},
                    {"type", d.type},
                    {"driver", d.driver},
                    {"api", d.apiVersionText},
                    {"subgroup_size", d.subgroupSize},
                    {"min_subgroup_size", d.minSubgroupSize},
                    {"max_subgroup_size", d.maxSubgroupSize},
                    {"subgroup_arithmetic", d.subgroupArithmetic},
                    {"max_workgroup_size", d.maxWorkgroupSize},
                    {"max_shared_memory", d.maxSharedMemory},
                    {"max_storage_buffer_range", d.maxStorageBufferRange},
                    {"timestamps", d.timestampPeriodNs > 0},
                    {"shader_float64", d.shaderFloat64}});
  }
  nlohmann::ordered_json j;
  j["devices"] = list;
  j["chosen"] = chosen;
  out << j.dump() << "\n";
  return 0;
#else
  throw Error("this lsrl was built without Vulkan (LSRL_WITH_VULKAN=OFF); runs use the CPU");
#endif
}

}  // namespace lsrl::cli
