#pragma once
// Ready report: with SPARKSCOPE_REPORT_READY=1 in the environment, the app prints to stdout, once
// the metrics are ready and the panels have painted, the geometry a script needs to drive the real
// window (tests/ui/panels_xvfb_shots.py under Xvfb): the timeline's place on the screen and its
// time axis, the first conjunction instances with the screen position of their start tick (when
// the timeline shows it), the centre of every dock tab, and with a comparison open (File > Compare
// With…) both stacked timelines' places and axes and the A / B / B − A figures of the docks, and
// whether the optional rows are drawn yet ("rows ready" or "rows pending"). Lines start with "sparkscope-ready:";
// the last one is "sparkscope-ready: done". GUI thread only; costs nothing when not enabled.
namespace sparkscope::ui {

class MainWindow;

// Installs the report on `window` when SPARKSCOPE_REPORT_READY is set (call before loading).
void installReadyReport(MainWindow* window);

} // namespace sparkscope::ui
