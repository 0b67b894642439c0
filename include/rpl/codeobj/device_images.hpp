#pragma once
// The machine code a binary embeds, image by image: what two builds are compared by when the
// optimizer checks that a rebuild is deterministic.
#include <string>
#include <string_view>
#include <vector>

namespace rpl::codeobj {

struct DeviceImage {
  std::string arch;   // "sm_90", "gfx942"
  std::string bytes;  // the image, decompressed
};

/// Every NVIDIA cubin and AMD code object in a file's bytes, in file order; empty when it holds
/// none (a host-only file). Error(bad_input), naming origin, for a malformed one.
std::vector<DeviceImage> device_images(std::string_view content, const std::string& origin);

}  // namespace rpl::codeobj
