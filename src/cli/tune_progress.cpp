#include "tune_progress.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <optional>

#include <fmt/format.h>

namespace rpl::cli {

TuneProgressView::TuneProgressView(bool enabled, std::string unit)
    : enabled_(enabled), terminal_(::isatty(STDERR_FILENO) != 0), unit_(std::move(unit)) {}

TuneProgressView::~TuneProgressView() { finish(); }

void TuneProgressView::update(const autotune::TuneProgress& p) {
  if (!enabled_) return;
  const std::string best =
      p.best_value ? fmt::format("best {:.4g}{}{}", *p.best_value, unit_.empty() ? "" : " ", unit_) : "best -";
  // The budget's count at the pace so far, or what is left of a time budget where that comes first
  // (a time budget alone plans the whole space's count).
  std::optional<double> left;
  if (p.done > 0 && p.planned > p.done) {
    left = p.elapsed_seconds / static_cast<double>(p.done) * static_cast<double>(p.planned - p.done);
  } else if (p.planned <= p.done) {
    left = 0;
  }
  if (p.time_left_seconds) left = std::min(left.value_or(*p.time_left_seconds), *p.time_left_seconds);
  std::string eta = "-";
  if (left) eta = *left >= 60 ? fmt::format("{:.0f} min", *left / 60) : fmt::format("{:.0f} s", *left);
  const std::string busy = p.workers > 1 ? fmt::format("  {}/{} workers busy", p.busy, p.workers) : "";
  if (terminal_) {
    constexpr int width = 24;
    const int filled = p.planned ? static_cast<int>(width * std::min<size_t>(p.done, p.planned) / p.planned) : 0;
    const std::string bar = std::string(static_cast<size_t>(filled), '#') + std::string(static_cast<size_t>(width - filled), '.');
    std::fprintf(stderr, "\r\033[Kautotune %-9s [%s] %zu/%zu  %s  ETA %s%s", p.phase.c_str(), bar.c_str(), p.done, p.planned,
                 best.c_str(), eta.c_str(), busy.c_str());
    drawn_ = true;
  } else {
    std::fprintf(stderr, "autotune: %s %zu/%zu, %s, ETA %s%s\n", p.phase.c_str(), p.done, p.planned, best.c_str(), eta.c_str(),
                 busy.empty() ? "" : std::string(",").append(busy, 1).c_str());
  }
  std::fflush(stderr);
}

void TuneProgressView::finish() {
  if (drawn_) std::fputs("\r\033[K", stderr);
  drawn_ = false;
}

}  // namespace rpl::cli
