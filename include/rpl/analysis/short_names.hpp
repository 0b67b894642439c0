#pragma once
// Kernel names people can read. PyTorch, CUTLASS and Triton kernels demangle to names of several
// kilobytes; human outputs show a short form (JSON keeps the full name in `name`, the short one in
// `short_name`; `--names full` shows the full one).
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace rpl::analysis {

/// The function's qualified name without its return type, parameters and anonymous namespaces;
/// of its template arguments the first three at most, each without its namespaces, a long one
/// (a lambda, a functor with arguments of its own) cut to its name and "…" after which the rest
/// are dropped: "at::native::vectorized_elementwise_kernel<4, sin_kernel_cuda…>". A name without
/// parameters or template arguments (a mangled one, "triton_poi_fused_add_0") is returned as is.
std::string short_kernel_name(std::string_view demangled);

/// The function's qualified name alone: no return type, parameters, anonymous namespaces or
/// template arguments ("void tile<64, 4>(float*)" is "tile"). What stays the same when a tuner's
/// configurations change a kernel's template arguments.
std::string kernel_function_name(std::string_view demangled);

/// Each name's short form, unique among names: where several shorten alike, each gets " (i of n)"
/// in the order of their full names.
std::map<std::string, std::string> unique_short_names(std::vector<std::string> names);

/// How human outputs name kernels: short (the default) or full (--names full).
enum class NameStyle { short_names, full_names };

/// name as style shows it, for an output that names one kernel.
std::string kernel_label(const std::string& name, NameStyle style);

}  // namespace rpl::analysis
