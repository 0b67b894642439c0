#include <rpl/optimize/prompt.hpp>

#include <algorithm>

#include <fmt/format.h>

namespace rpl::optimize {
namespace {

using Json = nlohmann::json;

std::string number(const Json& v, const char* format = "{:.4g}") {
  return v.is_number() ? fmt::format(fmt::runtime(format), v.get<double>()) : std::string("unknown");
}

std::string triple(const Json& v) {
  if (!v.is_array() || v.size() != 3) return "?";
  return fmt::format("{} x {} x {}", v[0].dump(), v[1].dump(), v[2].dump());
}

constexpr const char* kRules = R"(You optimize one GPU kernel for speed. Rules, each checked by a tool; a candidate that breaks one is rejected:
1. Answer with exactly one fenced code block holding the complete new definition of the kernel. You may put new __device__ helper functions before it in the same block. Nothing else: no includes, macros, host code, global variables or other kernels.
2. Keep the kernel's signature identical: its name, its parameters' types and order, its template parameters.
3. The host code does not change, so the launch geometry (grid and block) stays as measured below: use the threads you are given. Threads of a block may cooperate (shared memory, warp shuffles, barriers).
4. The kernel must write exactly what the original writes (bitwise unless told otherwise) for any input of the launch below, and must not read or write out of bounds. It must work for every size: read every parameter the original reads, never the measured values in their place.
5. No data races, no barrier that some threads of a block miss: it is replayed under compute-sanitizer's racecheck, synccheck and memcheck, and its output must not depend on what the output memory held before.
6. It is compiled with the program's own build command and timed alone on the same captured inputs; only a faster, correct kernel is kept. Registers, spills and occupancy are reported to you, not rules: the measured time decides.)";

}  // namespace

std::string measured_facts(const Json& profile, const Json& analysis) {
  std::vector<std::string> lines;
  const Json none = Json::object();
  const Json& gpu = profile.value("gpu", none).is_object() ? profile["gpu"] : none;
  const Json& kernel = profile.value("kernel", none).is_object() ? profile["kernel"] : none;
  lines.push_back(fmt::format("Device: {} ({}), {} compute units, warp/wave size {}", gpu.value("product", std::string("unknown")),
                              gpu.value("architecture", std::string("?")), number(gpu.value("compute_units", Json())),
                              number(gpu.value("wave_size", Json()))));
  const Json& st = profile.value("stability", none).is_object() ? profile["stability"] : none;
  lines.push_back(fmt::format("Time per dispatch: {} ms (median {} ms over {} dispatches, cv {}, {}); {} % of the program's kernel time",
                              number(profile.value("runtime_ms", Json())), number(st.value("median_ms", Json())),
                              number(st.value("samples", Json())), number(st.value("cv", Json()), "{:.3f}"),
                              st.value("classification", std::string("unknown")),
                              number(kernel.is_object() && kernel.contains("time_fraction") ? Json(kernel["time_fraction"].get<double>() * 100) : Json(), "{:.1f}")));
  lines.push_back(fmt::format("Launch: grid {} work-items, block {} threads", triple(kernel.value("grid", Json())),
                              triple(kernel.value("block", Json()))));
  if (const auto& r = profile.value("resources", Json()); r.is_object()) {
    lines.push_back(fmt::format("Resources: {} registers per thread, {} bytes of shared memory per block, {} bytes of local memory (spills) per thread",
                                number(r.value("vgpr_per_thread", Json())), number(r.value("lds_bytes", Json())),
                                number(r.value("scratch_bytes", Json()))));
  }
  if (const auto& o = profile.value("occupancy", Json()); o.is_object()) {
    lines.push_back(fmt::format("Theoretical occupancy: {} % (limited by {})", number(Json(o.value("theoretical", 0.0) * 100), "{:.0f}"),
                                o.value("limiter", std::string("?"))));
  }
  const Json& c = analysis.is_object() && analysis.value("classification", Json()).is_object() ? analysis["classification"] : none;
  if (!c.empty()) {
    if (c.value("roofline_position", Json()).is_string()) {
      lines.push_back(fmt::format("Roofline: {}, at {} % of its roof, operational intensity {} FLOP/byte",
                                  c["roofline_position"].get<std::string>(), number(c.value("percent_of_roof", Json()), "{:.1f}"),
                                  number(c.value("operational_intensity", Json()))));
    }
    std::string reasons;
    for (const auto& r : c.value("reasons", Json::array())) reasons += "; " + r.get<std::string>();
    lines.push_back(fmt::format("Bottleneck: {} (confidence {}){}", c.value("bottleneck", std::string("unknown")),
                                number(c.value("confidence", Json()), "{:.2f}"), reasons));
    if (c.value("critical_path_score", Json()).is_number()) {
      lines.push_back(fmt::format("Share of the program's critical path: {} %", number(Json(c["critical_path_score"].get<double>() * 100), "{:.1f}")));
    }
  }
  const Json& s = analysis.is_object() && analysis.value("stalls", Json()).is_object() ? analysis["stalls"] : none;
  if (s.value("stalls", Json()).is_object()) {
    std::vector<std::pair<double, std::string>> top;
    for (const auto& [reason, share] : s["stalls"].items()) {
      if (share.is_number()) top.emplace_back(share.get<double>(), reason);
    }
    std::sort(top.rbegin(), top.rend());
    std::string text;
    for (size_t i = 0; i < std::min<size_t>(top.size(), 5); ++i) text += fmt::format("{}{} {:.0f} %", i ? ", " : "", top[i].second, top[i].first * 100);
    if (!text.empty()) lines.push_back("Stall reasons (share of stalled time): " + text);
  }
  for (const auto& h : s.value("hot_lines", Json::array())) {
    lines.push_back(fmt::format("Hot line {} ({:.0f} % of samples): {}", h.value("line", 0), h.value("share", 0.0) * 100,
                                h.value("text", std::string())));
  }
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

std::vector<ChatMessage> optimization_request(const KernelDefinition& kernel, const std::string& definition,
                                              const std::string& facts, const std::string& earlier) {
  std::string ask = fmt::format("Make the kernel {} faster.\n\nIts definition:\n```cuda\n{}\n```\n\nWhat was measured:\n{}",
                                kernel.name, definition, facts);
  if (!earlier.empty()) ask += "\nWhat the tool found of the earlier candidates:\n" + earlier;
  return {{"system", kRules}, {"user", ask}};
}

std::vector<ChatMessage> repair_request(std::vector<ChatMessage> conversation, const std::string& answer,
                                        const std::string& build_log) {
  conversation.push_back({"assistant", answer});
  conversation.push_back({"user", fmt::format("That definition did not compile. The compiler said:\n```\n{}\n```\nAnswer with the "
                                              "corrected complete definition in one code block, under the same rules.",
                                              build_log)});
  return conversation;
}

}  // namespace rpl::optimize
