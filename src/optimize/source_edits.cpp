#include <rpl/optimize/source_edits.hpp>

#include <fmt/format.h>

namespace rpl::optimize {

UnrollProposals unroll_variants(const KernelSource& source, const KernelDefinition& kernel, const std::vector<int>& factors) {
  UnrollProposals out;
  const std::string& t = source.text;
  for (size_t i = 0; i < kernel.loops.size(); ++i) {
    const LoopInfo& loop = kernel.loops[i];
    if (!loop.refusal.empty()) {
      out.refused.push_back({loop.line, loop.refusal});
      continue;
    }
    // The pragma goes on a line of its own before the loop, indented as the loop is; a loop that
    // does not start its line (`if (c) for ...`) gets the pragma on a new line before it.
    const size_t line_start = t.rfind('\n', loop.statement.begin == 0 ? 0 : loop.statement.begin - 1);
    const size_t b = line_start == std::string::npos ? 0 : line_start + 1;
    const std::string before = t.substr(b, loop.statement.begin - b);
    const bool starts_line = before.find_first_not_of(" \t") == std::string::npos;
    for (int factor : factors) {
      SourceVariant v;
      v.origin = fmt::format("unroll loop {} (line {}) by {}", i + 1, loop.line, factor);
      v.loop_line = loop.line;
      v.factor = factor;
      const std::string pragma = starts_line ? fmt::format("#pragma unroll {}\n{}", factor, before)
                                             : fmt::format("\n#pragma unroll {}\n", factor);
      if (loop.unroll_pragma) {
        v.text = t.substr(0, loop.unroll_pragma->begin) + pragma + t.substr(loop.statement.begin);
      } else {
        v.text = t.substr(0, loop.statement.begin) + pragma + t.substr(loop.statement.begin);
      }
      out.variants.push_back(std::move(v));
    }
  }
  return out;
}

std::string splice_definition(const KernelSource& source, const KernelDefinition& kernel, std::string_view new_definition) {
  const std::string& t = source.text;
  std::string out = t.substr(0, kernel.definition.begin);
  out += new_definition;
  out += t.substr(kernel.definition.end);
  return out;
}

std::optional<std::string> fenced_code_block(std::string_view answer, const std::string& kernel_name, std::string& why) {
  std::vector<std::string> blocks;
  size_t at = 0;
  while (true) {
    const size_t open = answer.find("```", at);
    if (open == std::string_view::npos) break;
    const size_t body = answer.find('\n', open);  // past the language tag
    if (body == std::string_view::npos) break;
    const size_t close = answer.find("```", body + 1);
    if (close == std::string_view::npos) {
      why = "a code block that is never closed";
      return std::nullopt;
    }
    blocks.emplace_back(answer.substr(body + 1, close - body - 1));
    at = close + 3;
  }
  if (blocks.empty()) {
    why = "no fenced code block in the answer";
    return std::nullopt;
  }
  if (blocks.size() == 1) return blocks[0];
  std::vector<const std::string*> defining;
  for (const auto& b : blocks) {
    if (b.find("__global__") != std::string::npos && b.find(kernel_name) != std::string::npos) defining.push_back(&b);
  }
  if (defining.size() == 1) return *defining[0];
  why = fmt::format("{} code blocks, {} of them defining {}: which one is meant is unclear", blocks.size(), defining.size(),
                    kernel_name);
  return std::nullopt;
}

namespace {

// The lines of text, each with its newline (the last may lack one).
std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    const size_t end = text.find('\n');
    const size_t n = end == std::string_view::npos ? text.size() : end + 1;
    lines.push_back(text.substr(0, n));
    text.remove_prefix(n);
  }
  return lines;
}

void add_line(std::string& out, char mark, std::string_view line) {
  out += mark;
  out += line;
  if (line.empty() || line.back() != '\n') out += "\n\\ No newline at end of file\n";
}

}  // namespace

std::string unified_diff(std::string_view before, std::string_view after, const std::string& label) {
  if (before == after) return "";
  const auto a = split_lines(before), b = split_lines(after);
  size_t head = 0;
  while (head < a.size() && head < b.size() && a[head] == b[head]) ++head;
  size_t tail = 0;
  while (tail < a.size() - head && tail < b.size() - head && a[a.size() - 1 - tail] == b[b.size() - 1 - tail]) ++tail;
  constexpr size_t kContext = 3;
  const size_t from = head > kContext ? head - kContext : 0;
  const size_t a_end = a.size() - tail + std::min(tail, kContext), b_end = b.size() - tail + std::min(tail, kContext);
  // A hunk of no lines is numbered by the line before it.
  auto range = [](size_t start, size_t count) { return fmt::format("{},{}", count ? start + 1 : start, count); };
  std::string out = fmt::format("--- a/{}\n+++ b/{}\n@@ -{} +{} @@\n", label, label, range(from, a_end - from), range(from, b_end - from));
  for (size_t i = from; i < head; ++i) add_line(out, ' ', a[i]);
  for (size_t i = head; i < a.size() - tail; ++i) add_line(out, '-', a[i]);
  for (size_t i = head; i < b.size() - tail; ++i) add_line(out, '+', b[i]);
  for (size_t i = a.size() - tail; i < a_end; ++i) add_line(out, ' ', a[i]);
  return out;
}

}  // namespace rpl::optimize
