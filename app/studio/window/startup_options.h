// The command line of lsrl-studio:
//   lsrl-studio [FILE] [--screenshot OUT.png]
//               [--view graph|debranch|stepper|trajectory|heatmap|noise|
//                       lattice|gateloop|gates|looped]
//               [--model mingru|minlstm|gateloop|lattice|looped [--task T]]
//               [--step N] [--size WxH] [--example NAME] [--no-recovery]
//   lsrl-studio --bench live FILE [--fit prompt|declared]
#pragma once

#include <QSize>
#include <QString>
#include <QStringList>
#include <optional>

namespace lsrl::studio {

struct StartupOptions {
  QString file;
  QString example;     // an Examples menu title or file name ("tok2tok_L3_direct.json")
  QString screenshot;  // non-empty: render, write this PNG and exit
  QString view;        // empty: "graph", or the model's view with --model
  QString model;       // a seed model to run in the Models tab ("lattice")
  QString task;        // its synthetic task (default: the model's first)
  QString bench;       // "live": time the Live panel over edits of the file (offscreen)
  QString benchFit;    // --bench live: "prompt" (default) or "declared" domain
  int step = -1;
  QSize size{1600, 1000};
  bool recovery = true;
};

// Parses the arguments (argv without the program name is fine too: the first is skipped
// only if it is the program). Returns the options, or an error message in `error`.
std::optional<StartupOptions> parseStartupOptions(const QStringList& arguments, QString* error);
QString startupUsage();
// The views --view names, in the order of the window's tabs.
const QStringList& studioViewNames();
// The Models tab's views (--view with --model).
const QStringList& studioModelViewNames();

}  // namespace lsrl::studio
