#include "app/cli/bench_models.h"

#include <cmath>
#include <nlohmann/json.hpp>
#include <ostream>
#include <random>

#include "app/cli/bench_timing.h"
#include "core/float_batch/gated_cells.h"
#include "core/seed_models/min_rnn_scan.h"
#include "core/util/error.h"
#ifdef LSRL_HAVE_VULKAN
#include "core/gpu/gated_cell_kernels.h"
#include "core/gpu/kernel_support.h"
#include "core/gpu/matvec_kernels.h"
#include "core/gpu/scan_kernels.h"
#endif

namespace lsrl::cli {

namespace {

constexpr int kLengths[] = {512, 4096};

// Random minGRU gates for one sequence: z in (0, 1) through a sigmoid, candidates in [-1, 1].
seed_models::MinRnnGates randomGates(int steps, int width, std::mt19937& rng) {
  std::normal_distribution<double> pre(0.0, 1.0);
  std::uniform_real_distribution<double> cand(-1.0, 1.0);
  seed_models::MinRnnGates g;
  g.steps = steps;
  g.width = width;
  for (size_t i = 0; i < static_cast<size_t>(steps) * width; ++i) {
    const double z = seed_models::minRnnSigmoid(pre(rng));
    g.logA.push_back(std::log1p(-z));
    g.logW.push_back(std::log(z));
    g.candidate.push_back(cand(rng));
  }
  return g;
}

// A GRU layer with H units: random dense W_hh (3H × H) whose rows sum to at most 0.5 in
// absolute value, so the ReLU-gated state stays bounded (no inf or NaN in the timings).
float_batch::CsrMatrix randomRecurrentMatrix(int hidden, std::mt19937& rng) {
  std::uniform_real_distribution<float> w(-1.0f, 1.0f);
  const float scale = 0.5f / static_cast<float>(hidden);
  float_batch::CsrMatrix m;
  m.rows = 3 * hidden;
  m.cols = hidden;
  for (int r = 0; r < m.rows; ++r) {
    for (int c = 0; c < hidden; ++c) {
      m.col.push_back(static_cast<uint32_t>(c));
      m.val.push_back(w(rng) * scale);
    }
    m.rowPtr.push_back(static_cast<uint32_t>(m.col.size()));
  }
  return m;
}

std::vector<float> randomFloats(size_t n, std::mt19937& rng) {
  std::uniform_real_distribution<float> u(-0.5f, 0.5f);
  std::vector<float> v(n);
  for (float& x : v) x = u(rng);
  return v;
}

}  // namespace

int benchModels(const BenchModelsOptions& o, std::ostream& out) {
  nlohmann::ordered_json j;
  j["bench"] = "models";
  j["channels"] = o.channels;
  j["batch"] = o.batch;
  std::mt19937 rng(3);
  const int H = o.channels;
  out << "minGRU recurrence, d_h = " << H << "; GRU with H = " << H << " units\n"
      << "CPU (one thread):\n";
  for (const int T : kLengths) {
    const seed_models::MinRnnGates gates = randomGates(T, H, rng);
    const std::vector<double> h0(static_cast<size_t>(H), 0.0);
    using seed_models::MinRnnVariant;
    const double seqMs = medianMs(
        o.repeats, [&] { (void)seed_models::minRnnSequential(gates, MinRnnVariant::Vanilla, h0); });
    const double parMs = medianMs(
        o.repeats, [&] { (void)seed_models::minRnnParallel(gates, MinRnnVariant::Vanilla, h0); });
    const float_batch::CsrMatrix whh = randomRecurrentMatrix(H, rng);
    const std::vector<float> bhh = randomFloats(3 * static_cast<size_t>(H), rng);
    const std::vector<float> gi = randomFloats(3 * static_cast<size_t>(H) * T, rng);
    const double gruMs = medianMs(o.repeats, [&] {
      (void)float_batch::gruRecurrence({1, T, H}, whh, bhh, gi, {}, float_batch::GruRule::Pytorch);
    });
    out << "  T=" << T << fmt("  minGRU sequential %8.3f ms", seqMs)
        << fmt("  parallel scan %8.3f ms", parMs)
        << fmt("  (sequential/parallel %.2fx)", seqMs / parMs)
        << fmt("   GRU sequential %8.3f ms", gruMs) << fmt("  (GRU/minGRU %.1fx)", gruMs / seqMs)
        << "\n";
    const std::string k = "cpu_t" + std::to_string(T) + "_";
    j[k + "mingru_sequential_ms"] = seqMs;
    j[k + "mingru_parallel_ms"] = parMs;
    j[k + "sequential_over_parallel"] = seqMs / parMs;
    j[k + "gru_sequential_ms"] = gruMs;
  }
  out << "  (the parallel scan does about twice the work of the loop and one thread gains\n"
         "   nothing from its log T depth: on a CPU the loop wins)\n";
#ifdef LSRL_HAVE_VULKAN
  if (o.vulkan) {
    auto dev = gpu::Device::open();
    const gpu::DeviceInfo& info = dev->info();
    if (info.timestampPeriodNs <= 0)
      throw Error("bench models: " + info.name + " has no compute timestamps");
    j["device"] = info.name;
    out << "Vulkan (" << info.name << ", GPU time):\n";
    gpu::ScanKernels scans(*dev);
    gpu::GatedCellKernels cells(*dev);
    gpu::ScanOptions chunked, sequential;
    sequential.path = gpu::ScanPath::Sequential;
    for (const int B : {1, o.batch}) {
      for (const int T : kLengths) {
        const float_batch::SeriesShape shape{B, T, H};
        const double seqMs = scans.timeDiagScan(shape, sequential, o.repeats);
        const double parMs = scans.timeDiagScan(shape, chunked, o.repeats);
        // The GRU cell on the device: one workgroup per sequence, all T steps.
        const float_batch::CsrMatrix whh = randomRecurrentMatrix(H, rng);
        const gpu::DeviceCsr whhDevice = gpu::uploadCsr(*dev, whh, {});
        auto bhh = gpu::uploadFloats(*dev, randomFloats(3 * static_cast<size_t>(H), rng));
        auto gi = gpu::uploadFloats(
            *dev, randomFloats(3 * static_cast<size_t>(H) * T * static_cast<size_t>(B), rng));
        auto h = dev->buffer(static_cast<size_t>(B) * T * H * sizeof(float));
        gpu::Batch run = dev->batch(gpu::Timing::PerDispatch);
        cells.recordGru(run,
                        {whhDevice.rowPtr.get(), whhDevice.col.get(), whhDevice.val.get(),
                         whhDevice.maxRowNonZeros},
                        whhDevice.nonZeros, *bhh, *gi, nullptr, *h, shape,
                        float_batch::GruRule::Pytorch);
        std::vector<double> gruTimes;
        for (int r = 0; r <= o.repeats; ++r) {
          double total = 0;
          for (const double ms : dev->run(run)) total += ms;
          if (r > 0) gruTimes.push_back(total);  // r = 0 warms up
        }
        const double gruMs = median(gruTimes);
        out << "  B=" << B << " T=" << T << fmt("  minGRU sequential %8.3f ms", seqMs)
            << "  chunked scan (" << gpu::scanPathName(scans.resolve(chunked)) << ")"
            << fmt(" %8.3f ms", parMs) << fmt("  (sequential/parallel %.2fx)", seqMs / parMs)
            << fmt("   GRU %8.3f ms", gruMs) << fmt("  (GRU/minGRU scan %.1fx)", gruMs / parMs)
            << "\n";
        const std::string k = "vulkan_b" + std::to_string(B) + "_t" + std::to_string(T) + "_";
        j[k + "mingru_sequential_ms"] = seqMs;
        j[k + "mingru_parallel_ms"] = parMs;
        j[k + "sequential_over_parallel"] = seqMs / parMs;
        j[k + "gru_ms"] = gruMs;
      }
    }
    out << "  (the chunked scan's depth is T/chunk + chunk steps instead of T, which pays when\n"
           "   B·d_h channels cannot fill the device; lavapipe runs on a few CPU cores, where\n"
           "   both are memory-bound. The paper's 175x / 1324x compare minGRU with GRU\n"
           "   training on a T4: the GRU column is the forward half of that comparison)\n";
  }
#endif
  out << j.dump() << "\n";
  return 0;
}

}  // namespace lsrl::cli
