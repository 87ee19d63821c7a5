#include "sparkscope/runtime/version.h"
namespace sparkscope::runtime {
const char* version() noexcept { return SPARKSCOPE_VERSION; }
} // namespace sparkscope::runtime
