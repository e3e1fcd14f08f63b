#include "app/cli/cli.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <functional>
#include <iostream>

#include "app/cli/commands.h"
#include "core/util/error.h"
#include "core/util/quote_input.h"

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
    {"sweep", "run a sweep spec's tasks on a Dask cluster (lsrl sweep --help)", cmdSweep},
};

void printUsage(std::ostream& os) {
  os << "usage: lsrl <command> [arguments]   (lsrl <command> --help for details)\n\ncommands:\n";
  for (const Subcommand& s : kSubcommands) {
    std::string name = s.name;
    name.resize(10, ' ');
    os << "  " << name << s.summary << "\n";
  }
}

constexpr size_t kMaxMessageLine = 300;

// The last safety net of "every message line at most 300 characters": messages bound what
// they echo where they are made (quoteInput), and a line that is still longer keeps its
// head and says how much was cut.
std::string cappedLines(const std::string& message) {
  std::string out;
  size_t start = 0;
  while (start <= message.size()) {
    const size_t newline = std::min(message.find('\n', start), message.size());
    const std::string_view line(message.data() + start, newline - start);
    size_t characters = 0;
    size_t cut = line.size();
    constexpr size_t kKept = kMaxMessageLine - 40;  // room for the note
    for (size_t i = 0; i < line.size(); ++i) {
      if ((static_cast<unsigned char>(line[i]) & 0xC0) == 0x80) continue;  // inside a character
      if (characters == kKept) cut = i;
      ++characters;
    }
    if (characters <= kMaxMessageLine) {
      out += line;
    } else {
      out += std::string(line.substr(0, cut)) + " [... " + std::to_string(characters - kKept) +
             " characters left out]";
    }
    if (newline == message.size()) break;
    out += '\n';
    start = newline + 1;
  }
  return out;
}

void printError(std::ostream& err, const std::string& message) {
  err << cappedLines(message) << "\n";
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
      printError(err, "lsrl " + std::string(s.name) + ": error: " + e.what());
      return 1;
    } catch (const std::bad_alloc&) {
      err << "lsrl " << s.name << ": error: out of memory\n";
      return 1;
    } catch (const std::exception& e) {
      printError(err, "lsrl " + std::string(s.name) + ": internal error: " + e.what());
      return 3;
    }
  }
  printError(err, "lsrl: unknown command " + quoteInput(args[0]));
  printUsage(err);
  return 2;
}

}  // namespace lsrl::cli
