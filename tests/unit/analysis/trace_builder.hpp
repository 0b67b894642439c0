#pragma once
// Small in-memory traces for analysis tests.
#include <cstdint>
#include <string>

#include <rpl/trace/model.hpp>

namespace rpl::test {

// The index of the kernel symbol of that mangled name in the trace, added where it is new.
inline int32_t symbol_named(trace::Trace& trace, const std::string& mangled) {
  for (size_t i = 0; i < trace.symbols.size(); ++i) {
    if (trace.symbols[i].mangled_name == mangled) return static_cast<int32_t>(i);
  }
  trace::KernelSymbol s;
  s.id = static_cast<int64_t>(trace.symbols.size()) + 1;
  s.mangled_name = mangled;
  trace.symbols.push_back(s);
  return static_cast<int32_t>(trace.symbols.size()) - 1;
}

class TraceBuilder {
 public:
  TraceBuilder() {
    trace.sources.push_back({"run1.db", {"g"}, {}, {}, {}});
    trace::Agent gpu;
    gpu.guid = "g";
    gpu.id = 1;
    gpu.type = "GPU";
    gpu.name = "gfx942";
    gpu.vendor_name = "AMD";
    trace.agents.push_back(gpu);
  }
  int symbol(const std::string& mangled, const std::string& display = "", int vgpr = 32) {
    trace::KernelSymbol s;
    s.id = static_cast<int64_t>(trace.symbols.size()) + 1;
    s.mangled_name = mangled;
    s.display_name = display.empty() ? mangled : display;
    s.arch_vgpr_count = vgpr;
    trace.symbols.push_back(s);
    return static_cast<int>(trace.symbols.size()) - 1;
  }
  void dispatch(int symbol, int64_t duration_ns, int16_t source = 0, uint32_t block = 256) {
    trace::Dispatch d{};
    d.symbol = symbol;
    d.agent = 0;
    d.source = source;
    d.id = static_cast<int64_t>(trace.dispatches.size()) + 1;
    d.start_ns = clock_;
    d.end_ns = clock_ + duration_ns;
    trace::DispatchGeometry g;
    g.workgroup = {block, 1, 1};
    g.grid = {block * 100, 1, 1};
    d.geometry = static_cast<uint32_t>(trace.geometries.size());
    trace.geometries.push_back(g);
    clock_ = d.end_ns + 10;
    trace.dispatches.push_back(d);
  }
  trace::Trace trace;

 private:
  int64_t clock_ = 1000;
};

}  // namespace rpl::test
