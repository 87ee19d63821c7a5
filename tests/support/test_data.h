#pragma once
// Where tests find their data. Shared real eventlogs live in ../shared/testdata beside the clone;
// a clone without it still passes: tests that need it call sharedTestData() and, when it is absent,
// report "not run" with the reason instead of failing.
#include <filesystem>
#include <optional>
#include <string>

namespace sparkscope::test {

// ../shared/testdata/<relative> if it exists, else nullopt (and a WARN in the current test).
std::optional<std::filesystem::path> sharedTestData(const std::string& relative);
// A fresh empty directory under the build tree for this test's output files.
std::filesystem::path scratchDir(const std::string& name);

} // namespace sparkscope::test
