#pragma once
// The shared eventlogs as plain files: the streaming readers map files, and compressed ones cannot
// be mapped, so those are decompressed into a scratch directory first.
#include <filesystem>
#include <string>
#include <vector>

namespace sparkscope::test {

// Every eventlog under ../shared/testdata, compressed ones decompressed into scratchDir(scratch).
// Empty (with the WARN of sharedTestData) when ../shared is absent.
std::vector<std::filesystem::path> plainSharedEventlogs(const std::string& scratch);

} // namespace sparkscope::test
