#include "core/models/model_eval.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "core/util/error.h"

namespace lsrl::models {

Score evaluateSeedModel(const SeedModel& model, const std::string& task, uint64_t seed, int samples,
                        int threads, const SeedModelRunner& run) {
  if (samples < 1) throw Error("samples must be at least 1, got " + std::to_string(samples));
  scoredSample(model, task, seed);  // an unscored task fails here, on this thread
  if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  threads = std::min(threads, samples);
  std::vector<Score> partial(static_cast<size_t>(threads));
  std::atomic<int> next{0};
  std::exception_ptr failure;
  std::mutex failureLock;
  const auto work = [&](Score& score) {
    try {
      for (int i = next++; i < samples; i = next++) {
        const ScoredSample s = scoredSample(model, task, seed + static_cast<uint64_t>(i));
        score += scoreOutputs(run ? run(s.input) : model.run(s.input), s.targets);
      }
    } catch (...) {
      const std::lock_guard<std::mutex> lock(failureLock);
      if (!failure) failure = std::current_exception();
      next = samples;
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t)
    pool.emplace_back(work, std::ref(partial[static_cast<size_t>(t)]));
  work(partial[0]);
  for (std::thread& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
  Score total;
  for (const Score& s : partial) total += s;
  return total;
}

}  // namespace lsrl::models
