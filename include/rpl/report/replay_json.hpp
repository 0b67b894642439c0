#pragma once
// The document and summary of `replay compare` (schemas/replay-compare.schema.json).
#include <string>

#include <nlohmann/json.hpp>

#include <rpl/isolate/memory_compare.hpp>

namespace rpl::report {

nlohmann::ordered_json memory_comparison_json(const isolate::MemoryComparison& result, const isolate::MemoryImage& a,
                                              const isolate::MemoryImage& b, const isolate::CompareOptions& options);
std::string memory_comparison_text(const isolate::MemoryComparison& result, const isolate::CompareOptions& options);

}  // namespace rpl::report
