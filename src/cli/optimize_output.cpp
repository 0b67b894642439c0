#include "optimize_output.hpp"

#include <fmt/format.h>

namespace rpl::cli {

using workflow::OptimizeResult;

std::string optimize_text(const OptimizeResult& r, const std::filesystem::path& source, const std::filesystem::path& out) {
  std::string t = fmt::format("kernel      {} ({}:{})\n", r.kernel_name, source.filename().string(), r.kernel_line);
  t += fmt::format("            {:.1f}% of the critical path; Amdahl's ceiling for the program {}\n", r.critical_path_share * 100,
                   r.amdahl_ceiling ? fmt::format("{:.2f}x", *r.amdahl_ceiling) : "unbounded");
  uint64_t poisoned = 0;
  std::string dispatches;
  for (const auto& o : r.oracles) {
    poisoned += o.poisoned_bytes;
    dispatches += (dispatches.empty() ? "" : ", ") + std::to_string(o.dispatch);
  }
  t += fmt::format("oracle      dispatch {} on {}, {} written bytes poisoned (0x{:02X}, then 0x{:02X})\n", dispatches, r.device, poisoned,
                   optimize::kPoisonByte, optimize::kSecondPoisonByte);
  if (r.oracle_shapes == 1) {
    t += "            one input shape: a kernel specialised to it would pass; --check-args with another shape adds a second\n";
  }
  if (r.sanitizer.open) {
    t += fmt::format("sanitizer   racecheck, synccheck and memcheck on each correct candidate (the original's replay took {:.1f} s)\n",
                     r.sanitizer.original_seconds);
  } else {
    t += fmt::format("sanitizer   not run: {}\n", r.sanitizer.reason);
  }
  size_t accepted = 0;
  for (const auto& c : r.candidates) accepted += c.verdict == "accepted";
  std::string why;
  for (const auto& [stage, n] : workflow::rejections_by_stage(r)) why += fmt::format("{}{} {}", why.empty() ? "" : ", ", stage, n);
  t += fmt::format("candidates  {}: {} accepted, {} rejected{}\n", r.candidates.size(), accepted, r.candidates.size() - accepted,
                   why.empty() ? "" : " (" + why + ")");
  if (r.best) {
    const auto& b = r.candidates[*r.best];
    t += fmt::format("best        [{}] {}: the kernel {:.2f}x faster on replay ({:.4f} -> {:.4f} ms), {:+.1f}% in the program; "
                     "critical path {:+.1f}%\n",
                     b.id, b.origin, b.replay->before_mean / b.replay->after_mean, b.replay->before_mean, b.replay->after_mean,
                     b.program_kernel->change_pct, b.program_critical_path->change_pct);
    for (const auto& a : b.advisories) t += fmt::format("            advisory, {}: {}\n", a.guard, a.reason);
    if (r.oracle_shapes == 1) t += fmt::format("            {}\n", optimize::kOneShapeVerdict);
    t += fmt::format("            {}{}\n", (out / "best.patch").string(),
                     r.applied ? fmt::format(", applied to {}", source.string()) : " (--apply writes it into the source)");
  } else {
    t += "best        none: nothing was both correct and faster than the original; the source is as it was\n";
  }
  t += fmt::format("took        {:.1f} s; every candidate in {} (rocm-perf report {} draws them)\n", r.elapsed_seconds,
                   (out / "optimize.json").string(), out.string());
  return t;
}

}  // namespace rpl::cli
