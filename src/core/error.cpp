#include <rpl/core/error.hpp>
// Error is header-only; this file anchors the module's object library.
