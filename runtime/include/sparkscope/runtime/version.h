#pragma once
namespace sparkscope::runtime {
// The runtime library's version, as "major.minor.patch".
const char* version() noexcept;
} // namespace sparkscope::runtime
