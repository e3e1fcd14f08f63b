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

class NonFiniteWatch;

struct StreamedRunOptions {
  bool exact = false;
  bool compiled = false;  // a compiled model: sparse layers may exceed the dense limit
  int threads = 0;        // for chunks of short sequences (0: all cores)
  bool progress = false;  // progress lines on stderr
  // Float64: every node's value is checked at every token and the first non-finite one
  // offered to it (the caller finishes it). When it refuses such runs, the rows are held
  // back (held_output.h) and written only once the whole run has succeeded.
  NonFiniteWatch* watch = nullptr;
};

// The first pass: the whole input checked (located errors, as loadSequenceFile gives
// them), nothing kept but its shape; for float64 runs every value must be a finite double.
SequenceFileShape checkStreamedInput(const std::string& inputPath, bool exact);

// The second pass: runs `graph` and writes the rows to `out` as they are computed (or, when
// the watch refuses non-finite values, once they all are).
void runStreamed(const Graph& graph, const std::string& inputPath, const SequenceFileShape& shape,
                 const StreamedRunOptions& options, std::ostream& out);

}  // namespace lsrl::cli
