#include "support/test_data.h"

#include <catch2/catch.hpp>

namespace sparkscope::test {

std::optional<std::filesystem::path> sharedTestData(const std::string& relative)
{
    const std::filesystem::path p = std::filesystem::path(SPARKSCOPE_SHARED_DIR) / "testdata" / relative;
    if (std::filesystem::exists(p))
        return p;
    WARN("NOT RUN: " << p.string() << " is missing (the shared test data is not beside this clone)");
    return std::nullopt;
}

std::filesystem::path scratchDir(const std::string& name)
{
    const std::filesystem::path p = std::filesystem::path(SPARKSCOPE_BINARY_DIR) / "test-scratch" / name;
    std::filesystem::remove_all(p);
    std::filesystem::create_directories(p);
    return p;
}

} // namespace sparkscope::test
