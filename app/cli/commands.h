// The subcommands of `lsrl`. Each takes the arguments after its name and returns
// an exit code; errors are thrown as lsrl::Error and reported by runCli.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace lsrl::cli {

using Argv = std::vector<std::string>;

int cmdProgram(const Argv& args, std::ostream& out);
int cmdInfo(const Argv& args, std::ostream& out);
int cmdCheck(const Argv& args, std::ostream& out);
int cmdRun(const Argv& args, std::ostream& out);
int cmdPrompt(const Argv& args, std::ostream& out);
int cmdBench(const Argv& args, std::ostream& out);
int cmdCompile(const Argv& args, std::ostream& out);
int cmdExport(const Argv& args, std::ostream& out);
int cmdNoise(const Argv& args, std::ostream& out);
int cmdDevices(const Argv& args, std::ostream& out);
int cmdModel(const Argv& args, std::ostream& out);
int cmdTrain(const Argv& args, std::ostream& out);
int cmdSweep(const Argv& args, std::ostream& out);

}  // namespace lsrl::cli
