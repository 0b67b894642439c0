#pragma once
// The rules of the Trace Event Format (JSON Object Format) that Perfetto and chrome://tracing rely
// on, as far as rocm-perf's export uses them: every event has a phase and a process; slices have a
// name, a track and a duration >= 0 on a named track; each flow is one start and one end, each
// inside a slice of its own track; counter values are numbers.
#include <string>

namespace rpl::test {

/// Empty when the document keeps those rules, else the first one it breaks.
std::string trace_event_errors(const std::string& json_text);

}  // namespace rpl::test
