// lsrl-studio --bench live FILE: the Live panel's latency as the editor sees it. The window
// opens FILE offscreen, then makes 50 edits of the program through the document (as the
// Properties panel's matrix editor does: one entry of a Linear's bias, changed and changed
// back), waiting after each until the panel shows the program as it now is. A 1 ms timer
// on the event loop measures the longest time the loop did not run. Prints one JSON line:
// edits, median_ms and worst_ms (edit -> panel updated), max_event_gap_ms, nodes.
#pragma once

#include <QString>

namespace lsrl::studio {

class MainWindow;

// Returns the process's exit code; the line goes to stdout, errors to stderr. With
// `fitToDeclared` the panel fits the constants to the file's declared domain.
int runLiveBench(MainWindow& window, bool fitToDeclared = false, int edits = 50);

}  // namespace lsrl::studio
