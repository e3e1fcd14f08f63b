#include "core/seed_models/model_eval.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>

#include "core/util/error.h"
#include "core/util/parallel_for.h"

namespace lsrl::seed_models {

namespace {

void requireAtLeastOne(int value, const char* what) {
  if (value < 1)
    throw Error(std::string(what) + " must be at least 1, got " + std::to_string(value));
}

// Samples seed + first … seed + first + count − 1: generated, run as one batch, scored.
// A batch's samples are drawn and scored a sample per core (a device's batch would
// otherwise wait on one host thread; the totals are summed in sample order all the same).
Score scoreChunk(const SeedModel& model, const std::string& task, uint64_t seed, int first,
                 int count, const SeedModelBatchRunner& run) {
  const size_t n = static_cast<size_t>(count);
  std::vector<Sequence> inputs(n);
  std::vector<std::vector<int>> targets(n), ages(n);
  parallelFor(n, [&](size_t b) {
    ScoredSample s = scoredSample(model, task, seed + static_cast<uint64_t>(first) + b);
    inputs[b] = std::move(s.input);
    targets[b] = std::move(s.targets);
    ages[b] = std::move(s.ages);
  });
  const std::vector<Sequence> outputs = run(inputs);
  if (outputs.size() != inputs.size())
    throw Error("the batch runner returned " + std::to_string(outputs.size()) +
                " output sequences for " + std::to_string(inputs.size()) + " samples");
  std::vector<Score> scores(n);
  parallelFor(n, [&](size_t b) { scores[b] = scoreOutputs(outputs[b], targets[b], ages[b]); });
  Score score;
  for (const Score& s : scores) score += s;
  return score;
}

// Every sample in chunks of `chunk`, which `threads` threads take in turn; the first
// failure stops them all and reaches the caller.
Score scoreInChunks(const SeedModel& model, const std::string& task, uint64_t seed, int samples,
                    int chunk, int threads, const SeedModelBatchRunner& run) {
  scoredSample(model, task, seed);  // an unscored task fails here, on this thread
  const int chunks = (samples - 1) / chunk + 1;
  threads = std::min(threads, chunks);
  std::vector<Score> partial(static_cast<size_t>(threads));
  std::atomic<int> next{0};
  std::exception_ptr failure;
  std::mutex failureLock;
  const auto work = [&](Score& score) {
    try {
      for (int c = next++; c < chunks; c = next++) {
        const int first = c * chunk;
        score += scoreChunk(model, task, seed, first, std::min(chunk, samples - first), run);
      }
    } catch (...) {
      const std::lock_guard<std::mutex> lock(failureLock);
      if (!failure) failure = std::current_exception();
      next = chunks;
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

}  // namespace

Score evaluateSeedModel(const SeedModel& model, const std::string& task, uint64_t seed, int samples,
                        int threads, const SeedModelRunner& run) {
  requireAtLeastOne(samples, "samples");
  if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  // Chunks of one sample: the threads share the work sample by sample.
  const SeedModelBatchRunner one = [&](const std::vector<Sequence>& inputs) {
    return std::vector<Sequence>{run ? run(inputs[0]) : model.run(inputs[0])};
  };
  return scoreInChunks(model, task, seed, samples, 1, threads, one);
}

Score evaluateSeedModelInBatches(const SeedModel& model, const std::string& task, uint64_t seed,
                                 int samples, const SeedModelBatchRunner& run, int batch) {
  requireAtLeastOne(samples, "samples");
  requireAtLeastOne(batch, "batch");
  if (!run) throw Error("evaluateSeedModelInBatches needs a batch runner");
  return scoreInChunks(model, task, seed, samples, batch, 1, run);
}

}  // namespace lsrl::seed_models
