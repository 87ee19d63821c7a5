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

std::optional<std::filesystem::path> recordDemoTrace(
    const std::filesystem::path& dir, const std::string& workload, unsigned engines)
{
    const std::filesystem::path demo = std::filesystem::path(SPARKSCOPE_BINARY_DIR) / "app" / "sparkscope-demo";
    if (!std::filesystem::exists(demo)) {
        WARN("NOT RUN: " << demo.string() << " is not built");
        return std::nullopt;
    }
    const auto file = dir / (workload.substr(0, workload.find(' ')) + "-" + std::to_string(engines) + ".eventlog");
    const std::string cmd = demo.string() + " " + workload + " --engines " + std::to_string(engines) + " --trace "
        + file.string() + " > /dev/null";
    INFO(cmd);
    REQUIRE(std::system(cmd.c_str()) == 0);
    return file;
}

} // namespace sparkscope::test
