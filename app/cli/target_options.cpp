#include "app/cli/target_options.h"

#include <string_view>

#include "core/util/error.h"

namespace lsrl::cli {

std::vector<OptionSpec> targetOptionSpecs() {
  return {
      {"positivity", "split|shift",
       "rnn, gated-rnn, gru, lstm: non-negative states by split (default) or shift"},
      {"gru-update", "paper|pytorch",
       "gru: state update (default pytorch: needs --box, --horizon)"},
      {"box", "LO,HI", "input box assumed by the shift and gru's pytorch update"},
      {"horizon", "T", "longest sequence for the shift, gru's pytorch update, hawk's conv"},
      {"stacked", "", "gru, lstm: one stacked module, every layer padded to one size"},
      {"hawk-residual", "on|off", "hawk: residual stream (default on)"},
  };
}

TargetOptionValues targetOptionValues(const Args& args) {
  TargetOptionValues values;
  for (const std::string& name : targetOptionNames()) {
    if (args.has(name)) values[name] = args.get(name);
  }
  return values;
}

CompiledWeights compileToWeightsFromCli(const Graph& program, const WeightsOptions& options,
                                        const TargetOptionValues& values) {
  try {
    return compileToWeights(program, options);
  } catch (const Cancelled&) {
    throw;
  } catch (const Error& e) {
    // hawk can only tell whether it needs a horizon once it sees the states.
    if (options.target == Target::Hawk && values.count("horizon") == 0 &&
        std::string_view(e.what()).find("horizon") != std::string_view::npos)
      throw Error(std::string(e.what()) + "; set it with --horizon T");
    throw;
  }
}

}  // namespace lsrl::cli
