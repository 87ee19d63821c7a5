#include "shared_plain.h"

#include "format/reader_input.h"
#include "support/test_data.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>

namespace fs = std::filesystem;

namespace sparkscope::test {

std::vector<fs::path> plainSharedEventlogs(const std::string& scratch)
{
    std::vector<fs::path> out;
    const auto root = sharedTestData("");
    if (!root)
        return out;
    const fs::path dir = scratchDir(scratch);
    for (const auto& entry : fs::recursive_directory_iterator(*root)) {
        const std::string name = entry.path().filename().string();
        if (!entry.is_regular_file() || name.find(".eventlog") == std::string::npos || name.ends_with(".txt")
            || name.ends_with(".reference"))
            continue;
        fs::path path = entry.path();
        std::ifstream in(path, std::ios::binary);
        std::vector<uint8_t> head(8);
        in.read(reinterpret_cast<char*>(head.data()), 8);
        head.resize(size_t(in.gcount()));
        if (core::detail::detectCompression(head) != core::Compression::None) {
            auto loaded = core::detail::loadFile(path.string(), nullptr, {});
            REQUIRE(loaded);
            path = dir / (name + ".plain");
            std::ofstream plain(path, std::ios::binary);
            plain.write(reinterpret_cast<const char*>(loaded->bytes.data()), std::streamsize(loaded->bytes.size()));
        }
        out.push_back(path);
    }
    std::sort(out.begin(), out.end());
    return out;
}

} // namespace sparkscope::test
