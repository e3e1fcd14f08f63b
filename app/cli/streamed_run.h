// `lsrl run` of a program or compiled model on the float64 or exact executor, as a
// stream: the input file is validated in one pass (core/io/sequence_stream.h) and run in
// a second, and each output row is written as soon as it is computed. Long sequences run
// token by token; short ones are gathered into chunks run on all threads (runBatch), so
// memory stays bounded by a chunk, not by the run. The output is byte for byte what the
// whole-batch run printed: {"outputs": [...]} or {"batch_outputs": [...]}.
#pragma once

#include <ostream>
#include <string>

#include "core/graph/graph.h"
#include "core/io/sequence_stream.h"

namespace lsrl::cli {

struct StreamedRunOptions {
  bool exact = false;
  bool compiled = false;  // a compiled model: sparse layers may exceed the dense limit
  int threads = 0;        // for chunks of short sequences (0: all cores)
  bool progress = false;  // progress lines on stderr
};

// The first pass: the whole input checked (located errors, as loadSequenceFile gives
// them), nothing kept but its shape; for float64 runs every value must be a finite double.
SequenceFileShape checkStreamedInput(const std::string& inputPath, bool exact);

// The second pass: runs `graph` and writes the rows to `out` as they are computed.
void runStreamed(const Graph& graph, const std::string& inputPath, const SequenceFileShape& shape,
                 const StreamedRunOptions& options, std::ostream& out);

}  // namespace lsrl::cli
