#include "support/test_data.h"

#include <algorithm>

#include <catch2/catch.hpp>

#include <cctype>
#include <cstdio>
#include <functional>

namespace sparkscope::test {

std::optional<std::filesystem::path> sharedTestData(const std::string& relative)
{
    const std::filesystem::path p = std::filesystem::path(SPARKSCOPE_SHARED_DIR) / "testdata" / relative;
    if (std::filesystem::exists(p))
        return p;
    WARN("NOT RUN: " << p.string() << " is missing (the shared test data is not beside this clone)");
    return std::nullopt;
}

std::vector<std::filesystem::path> sharedEventlogs()
{
    std::vector<std::filesystem::path> out;
    for (const char* dir : { "ghc", "ghc-events" }) {
        const auto d = sharedTestData(dir);
        if (!d)
            return {};
        for (const auto& entry : std::filesystem::directory_iterator(*d)) {
            const std::string name = entry.path().filename().string();
            if (name.ends_with(".eventlog") || name.ends_with(".eventlog.zst"))
                out.push_back(entry.path());
        }
    }
    std::sort(out.begin(), out.end());
    return out;
}

std::filesystem::path scratchDir(const std::string& name)
{
    // One folder per test case: CTest runs each case as a process of its own, in parallel, and two
    // cases that share a helper (and so a name) emptied each other's folder while the other read it.
    const std::string test = Catch::getResultCapture().getCurrentTestName();
    std::string slug;
    for (char c : test.substr(0, 60))
        slug += std::isalnum(static_cast<unsigned char>(c)) ? c : '-';
    char hash[20];
    std::snprintf(hash, sizeof hash, "%08zx", std::hash<std::string> {}(test)&0xffffffffu);
    const std::filesystem::path p
        = std::filesystem::path(SPARKSCOPE_BINARY_DIR) / "test-scratch" / name / (slug + '-' + hash);
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
