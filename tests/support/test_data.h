#pragma once
// Where tests find their data. Shared real eventlogs live in ../shared/testdata beside the clone;
// a clone without it still passes: tests that need it call sharedTestData() and, when it is absent,
// report "not run" with the reason instead of failing.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace sparkscope::test {

// ../shared/testdata/<relative> if it exists, else nullopt (and a WARN in the current test).
std::optional<std::filesystem::path> sharedTestData(const std::string& relative);
// Every shared eventlog (testdata/ghc and testdata/ghc-events, plain and zstd), sorted; empty (with a
// WARN "NOT RUN") when the shared data is absent.
std::vector<std::filesystem::path> sharedEventlogs();
// A fresh empty directory under the build tree for this test case's output files: test-scratch/NAME/
// followed by a folder named after the test case, so that cases running at once never share one.
std::filesystem::path scratchDir(const std::string& name);
// `workload` ("parfib --n 24 --cutoff 12", …) recorded by the built sparkscope-demo on `engines`
// engines into dir/<workload's name>-<engines>.eventlog. nullopt (with a WARN "NOT RUN") when the
// demo is not built; a demo that fails fails the test.
std::optional<std::filesystem::path> recordDemoTrace(
    const std::filesystem::path& dir, const std::string& workload, unsigned engines = 2);

} // namespace sparkscope::test
