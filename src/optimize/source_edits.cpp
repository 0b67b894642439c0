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

}  // namespace rpl::optimize
