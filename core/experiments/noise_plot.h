// SVG and CSV output of the noise experiment (core/experiments/noise_experiment.h), written by
// hand so that no plotting library is needed.
#pragma once

#include <string>
#include <vector>

#include "core/experiments/noise_experiment.h"

namespace lsrl {

// "program,variant,optimize,sigma,seed,metric" and one row per seed (σ in the shortest
// text that reads back as the same double).
std::string noiseCsv(NoiseProgram program, bool optimize, const std::vector<NoiseRow>& rows);

struct NoisePlotOptions {
  std::string title;
  std::string yLabel;
  bool logY = false;  // for errors that span many orders of magnitude
};

// One line per variant over σ, log-x axis with σ = 0 drawn at its own tick left of an axis
// break, a legend and axis labels. Non-finite or (with logY) non-positive means are
// clamped to the plot's edge.
std::string noisePlotSvg(const std::vector<NoiseSummaryRow>& summary,
                         const NoisePlotOptions& options);

// Reads noiseCsv's text back (to plot an earlier run again). Throws lsrl::Error naming
// the line on malformed rows or rows of another program; `optimize` is the rows' flag.
std::vector<NoiseRow> parseNoiseCsv(const std::string& text, NoiseProgram program, bool& optimize);

// The shortest decimal text that reads back as x ("1e-09", "0", "0.5").
std::string shortestDouble(double x);

}  // namespace lsrl
