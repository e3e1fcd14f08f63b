#include "app/cli/cli.h"

#include <cerrno>
#include <cstring>
#include <functional>
#include <iostream>

#include "app/cli/commands.h"
#include "core/util/error.h"

namespace lsrl::cli {

namespace {

struct Subcommand {
  const char* name;
  const char* summary;
  int (*run)(const Argv&, std::ostream&);
};

constexpr Subcommand kSubcommands[] = {
    {"program", "build one of the paper's programs and write it as a graph file", cmdProgram},
    {"info", "summarise a graph file as one JSON object", cmdInfo},
    {"check", "validate a graph file and list every problem found", cmdCheck},
    {"run", "run a program on token sequences (float64 or exact)", cmdRun},
    {"prompt", "write an input file for vec2vec or tok2tok", cmdPrompt},
    {"bench", "benchmarks (lsrl bench run)", cmdBench},
    {"compile", "compile a program into a model file (path of layers)", cmdCompile},
    {"export", "write a compiled model's weights for a target (safetensors, npz)", cmdExport},
    {"noise", "weight-noise robustness of compiled models (paper Fig. 4)", cmdNoise},
    {"devices", "list the Vulkan compute devices (and why there are none)", cmdDevices},
    {"model", "the seed architectures: mingru, minlstm, gateloop, lattice, looped", cmdModel},
    {"train", "train a seed model (PyTorch; lsrl train NAME --help)", cmdTrain},
};

void printUsage(std::ostream& os) {
  os << "usage: lsrl <command> [arguments]   (lsrl <command> --help for details)\n\ncommands:\n";
  for (const Subcommand& s : kSubcommands) {
    std::string name = s.name;
    name.resize(10, ' ');
    os << "  " << name << s.summary << "\n";
  }
}

}  // namespace

int runCli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    printUsage(args.empty() ? err : out);
    return args.empty() ? 2 : 0;
  }
  for (const Subcommand& s : kSubcommands) {
    if (args[0] != s.name) continue;
    try {
      const int code = s.run(Argv(args.begin() + 1, args.end()), out);
      // A full disk or a closed pipe must not pass for success (lsrl info > /dev/full).
      errno = 0;
      out.flush();
      if (!out) {
        const int why = errno;
        err << "lsrl " << s.name << ": error: writing the output failed"
            << (why != 0 ? std::string(" (") + std::strerror(why) + ")" : std::string()) << "\n";
        return 1;
      }
      return code;
    } catch (const Error& e) {
      err << "lsrl " << s.name << ": error: " << e.what() << "\n";
      return 1;
    } catch (const std::bad_alloc&) {
      err << "lsrl " << s.name << ": error: out of memory\n";
      return 1;
    } catch (const std::exception& e) {
      err << "lsrl " << s.name << ": internal error: " << e.what() << "\n";
      return 3;
    }
  }
  err << "lsrl: unknown command \"" << args[0] << "\"\n";
  printUsage(err);
  return 2;
}

}  // namespace lsrl::cli
