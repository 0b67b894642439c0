#pragma once
// What the optimizer asks a model: the kernel's source, what the tool measured about it (from the
// profile's documents), and the rules every candidate is held to; and, after a candidate that did
// not build, the compiler's words to repair it from.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <rpl/optimize/kernel_source.hpp>
#include <rpl/optimize/llm_client.hpp>

namespace rpl::optimize {

/// The measurements, a line each: device, runtime and stability, launch geometry, registers,
/// shared and local memory, occupancy and its limiter, roofline position, the bottleneck with its
/// reasons, the share of the critical path, and with --deep the stall reasons and hottest lines.
/// profile: profile.json; analysis: analysis.json (null when absent).
std::string measured_facts(const nlohmann::json& profile, const nlohmann::json& analysis);

/// The request for a faster definition of kernel (definition: its source text, the fastest correct
/// one so far); earlier: what the tool found of the earlier candidates, a line each (none at first).
std::vector<ChatMessage> optimization_request(const KernelDefinition& kernel, const std::string& definition,
                                              const std::string& facts, const std::string& earlier = "");

/// The conversation continued after answer gave a candidate that did not build.
std::vector<ChatMessage> repair_request(std::vector<ChatMessage> conversation, const std::string& answer,
                                        const std::string& build_log);

}  // namespace rpl::optimize
