#include "app/cli/streamed_run.h"

#include <memory>
#include <optional>
#include <type_traits>
#include <vector>

#include "app/cli/held_output.h"
#include "app/cli/nonfinite_watch.h"
#include "app/cli/progress_printer.h"
#include "core/executor/executor.h"
#include "core/io/sequence_file.h"
#include "core/io/sequence_stream.h"
#include "core/util/error.h"
#include "core/util/thousands.h"

namespace lsrl::cli {

namespace {

// A sequence longer than this runs token by token as it is read; shorter ones wait in a
// chunk of about this many tokens that runs in parallel.
constexpr size_t kChunkTokens = 1 << 16;

template <class V>
class StreamedRun {
 public:
  using Row = std::vector<V>;
  using Sequence = std::vector<Row>;

  StreamedRun(std::shared_ptr<const Plan> plan, const SequenceFileShape& shape,
              const StreamedRunOptions& options, std::ostream& out)
      : plan_(std::move(plan)),
        shape_(shape),
        options_(options),
        held_(out, options.watch != nullptr && !options.watch->allowed()),
        out_(held_.stream()),
        executor_(plan_),
        progress_("lsrl run", options.progress) {
    executor_.watchNonFinite(options.watch != nullptr);
  }

  void token(size_t sequence, size_t token, ExactVector&& exactRow) {
    Row row;
    if constexpr (std::is_same_v<V, double>) {
      row = floatToken(exactRow, token);
    } else {
      row = std::move(exactRow);
    }
    if (token == 0) startSequence(sequence);
    if (streaming_) {
      executor_.step(row, output_);
      if (executor_.nonFiniteSite() && !siteOffered_) {
        NonFiniteSite site = *executor_.nonFiniteSite();
        site.sequence = sequence;
        offer(std::move(site));
        siteOffered_ = true;
      }
      writeRow(output_);
      ++done_;
    } else {
      chunk_.back().push_back(std::move(row));
      ++chunkTokens_;
      if (token + 1 == shape_.lengths[sequence] && chunkTokens_ >= kChunkTokens) runChunk();
    }
    progress_.update([this] {
      return withThousands(done_) + " of " + withThousands(shape_.tokens) + " tokens (" +
             std::to_string(done_ * 100 / std::max<size_t>(1, shape_.tokens)) + " %)";
    });
  }

  void finish() {
    if (streaming_) out_ << ']';
    runChunk();
    out_ << (shape_.isBatch ? "]}" : "}") << '\n';
    progress_.finish(withThousands(done_) + " tokens");
    held_.release();
  }

 private:
  void startSequence(size_t sequence) {
    if (sequence == 0) out_ << (shape_.isBatch ? "{\"batch_outputs\":[" : "{\"outputs\":");
    if (streaming_) out_ << ']';
    streaming_ = shape_.lengths[sequence] > kChunkTokens;
    if (streaming_) {
      runChunk();  // the sequences before this one are written first
      openSequence(sequence);
      executor_.reset();
      siteOffered_ = false;
    } else {
      chunk_.emplace_back();
      if (chunk_.size() == 1) chunkFirst_ = sequence;
    }
  }

  void openSequence(size_t sequence) {
    if (sequence > 0) out_ << ',';
    out_ << '[';
    firstRow_ = true;
  }

  void writeRow(const Row& row) {
    if (!firstRow_) out_ << ',';
    firstRow_ = false;
    held_.spillIfLarge();
    if constexpr (std::is_same_v<V, double>) {
      out_ << doubleRowsToJson({row}).at(0).dump();
    } else {
      out_ << exactRowsToJson({row}).at(0).dump();
    }
  }

  void runChunk() {
    if (chunk_.empty()) return;
    std::optional<NonFiniteSite> site;
    BatchOptions batch{options_.threads};
    if (options_.watch != nullptr) batch.nonFinite = &site;
    const std::vector<Sequence> outputs = runBatch<V>(plan_, chunk_, batch);
    if (site) {
      site->sequence += chunkFirst_;
      offer(std::move(*site));
    }
    for (size_t i = 0; i < outputs.size(); ++i) {
      openSequence(chunkFirst_ + i);
      for (const Row& row : outputs[i]) writeRow(row);
      out_ << ']';
    }
    done_ += chunkTokens_;
    chunk_.clear();
    chunkTokens_ = 0;
  }

  // Refused runs stop here, before their rows are written.
  void offer(NonFiniteSite site) {
    options_.watch->offer(std::move(site));
    options_.watch->refuseIfFound();
  }

  std::shared_ptr<const Plan> plan_;
  const SequenceFileShape& shape_;
  StreamedRunOptions options_;
  HeldOutput held_;
  std::ostream& out_;
  Executor<V> executor_;
  ProgressPrinter progress_;
  bool streaming_ = false;  // the current sequence runs token by token
  bool firstRow_ = true;
  bool siteOffered_ = false;  // the streamed sequence's non-finite site went to the watch
  Row output_;
  std::vector<Sequence> chunk_;
  size_t chunkFirst_ = 0;  // the sequence index of chunk_[0]
  size_t chunkTokens_ = 0;
  size_t done_ = 0;
};

template <class V>
void run(const std::shared_ptr<const Plan>& plan, const std::string& inputPath,
         const SequenceFileShape& shape, const StreamedRunOptions& options, std::ostream& out) {
  StreamedRun<V> runner(plan, shape, options, out);
  streamSequenceFile(inputPath, [&runner](size_t sequence, size_t token, ExactVector&& row) {
    runner.token(sequence, token, std::move(row));
  });
  runner.finish();
}

}  // namespace

SequenceFileShape checkStreamedInput(const std::string& inputPath, bool exact) {
  // Float64 runs also check that every value is a finite double.
  return streamSequenceFile(inputPath, [exact](size_t, size_t token, ExactVector&& row) {
    if (!exact) (void)floatToken(row, token);
  });
}

void runStreamed(const Graph& graph, const std::string& inputPath, const SequenceFileShape& shape,
                 const StreamedRunOptions& options, std::ostream& out) {
  PlanOptions planOptions;
  planOptions.exact = options.exact;
  planOptions.extraConductor = shape.conductor;
  planOptions.allowHugeSparse = options.compiled;  // validated by loadRunnableGraph
  const auto plan = Plan::make(graph, planOptions);
  if (options.exact) {
    run<Exact>(plan, inputPath, shape, options, out);
  } else {
    run<double>(plan, inputPath, shape, options, out);
  }
}

}  // namespace lsrl::cli
