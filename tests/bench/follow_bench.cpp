// sparkscope-follow-bench: what one update of a followed trace costs, three ways side by side: the
// kept streaming pass, streaming the complete part again (the follower before the pass was kept), and
// reading it whole again (what the follower does below followStreamThresholdBytes).
//   sparkscope-follow-bench TRACE [--updates N] [--step-mb M]
// The file stands in for a trace being written: its complete parts at N + 1 points M MB apart, the
// last being the whole file, are the parts a follower would see. The first part is opened (streamed
// once, not counted); then, for each later part, the update is timed each way: the kept pass
// (TraceDataStreamer::advance over the new blocks, then snapshot), a fresh streamTraceData of the
// part, and the part's bytes read and indexed whole (readTraceDataPart). Prints each update's wall
// and CPU time (process CPU: the pyramid is built in parallel), their medians and the ratios, and
// that all give the same view (event and span counts).
#include "bench_stats.h"
#include "sparkscope/core/complete_prefix.h"
#include "ui/loading/trace_data.h"

#include <boost/iostreams/device/mapped_file.hpp>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

using namespace sparkscope;

namespace {

using bench::cpuSeconds;

double peakRssMb() { return double(bench::peakRssKb()) / 1024.0; }

double wallSeconds()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct Cost {
    double wall = 0, cpu = 0;
};

template <class F> Cost timed(F&& f)
{
    const double w = wallSeconds(), c = cpuSeconds();
    f();
    return { wallSeconds() - w, cpuSeconds() - c };
}

size_t spanCount(const ui::TraceData& d)
{
    size_t n = 0;
    for (size_t e = 0; e < d.engineCount(); ++e)
        n += d.lod.spans(e).size();
    return n;
}

} // namespace

int main(int argc, char** argv)
{
    if (argc < 2) {
        std::fprintf(stderr, "usage: sparkscope-follow-bench TRACE [--updates N] [--step-mb M]\n");
        return 2;
    }
    const std::string path = argv[1];
    int updates = 5;
    uint64_t step = uint64_t(8) << 20;
    for (int i = 2; i + 1 < argc; i += 2) {
        if (std::strcmp(argv[i], "--updates") == 0)
            updates = std::max(1, std::atoi(argv[i + 1]));
        else if (std::strcmp(argv[i], "--step-mb") == 0)
            step = std::strtoull(argv[i + 1], nullptr, 10) << 20;
    }

    // The complete parts: block boundaries at or before size - k * step (walked once, resumed).
    std::vector<uint64_t> ends;
    std::vector<bool> ended; // the part ends with DATA_END (the last, the whole file)
    {
        boost::iostreams::mapped_file_source file(path);
        const std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(file.data()), file.size());
        core::CompletePrefix p;
        // Walked 64 MB at a time, each walked stretch's pages handed back as the follower does
        // (completePrefixOfFile), so that the peak RSS printed is the pass's, not this walk's.
        constexpr uint64_t kWindow = uint64_t(64) << 20;
        const uint64_t page = uint64_t(::sysconf(_SC_PAGESIZE));
        for (int k = updates; k >= 0; --k) {
            const uint64_t at = bytes.size() > uint64_t(k) * step ? bytes.size() - uint64_t(k) * step : 0;
            for (uint64_t to = std::min(at, p.bytes + kWindow);; to = std::min(at, to + kWindow)) {
                p = core::completePrefix(bytes.first(to), p);
                ::madvise(const_cast<char*>(file.data()), p.bytes / page * page, MADV_DONTNEED);
                if (to == at)
                    break;
            }
            if (p.bytes > p.dataStart && (ends.empty() || p.bytes > ends.back())) {
                ends.push_back(p.bytes);
                ended.push_back(p.ended);
            }
        }
    }
    if (ends.size() < 2) {
        std::fprintf(stderr, "%s: fewer than two complete parts %llu MB apart\n", path.c_str(),
            (unsigned long long)(step >> 20));
        return 2;
    }

    ui::TraceDataStreamer kept(path);
    const Cost open = timed([&] {
        if (auto failed = kept.advance(ends.front())) {
            std::fprintf(stderr, "%s: %s\n", path.c_str(), failed->toString().c_str());
            std::exit(2);
        }
        (void)kept.snapshot();
    });
    std::printf("follow-bench: %s, opened at %.1f MB (wall %.2f s, CPU %.2f s, peak RSS %.0f MB); %zu updates of "
                "~%llu MB\n",
        path.c_str(), double(ends.front()) / 1048576.0, open.wall, open.cpu, peakRssMb(), ends.size() - 1,
        (unsigned long long)(step >> 20));
    std::vector<double> keptWall, keptCpu, freshWall, freshCpu, wholeWall, wholeCpu;
    bool same = true;
    for (size_t i = 1; i < ends.size(); ++i) {
        std::shared_ptr<const ui::TraceData> a, b;
        const Cost k = timed([&] {
            if (kept.advance(ends[i]))
                std::exit(2);
            a = kept.snapshot();
        });
        const Cost f = timed([&] {
            auto fresh = ui::streamTraceData(path, {}, nullptr, ends[i]);
            if (!fresh)
                std::exit(2);
            b = fresh.value();
        });
        std::shared_ptr<const ui::TraceData> c;
        const Cost w = timed([&] {
            std::vector<uint8_t> bytes(ends[i]);
            std::ifstream in(path, std::ios::binary);
            if (!in.read(reinterpret_cast<char*>(bytes.data()), std::streamsize(bytes.size())))
                std::exit(2);
            auto whole = ui::readTraceDataPart(std::move(bytes), ends[i], ended[i], path);
            if (!whole)
                std::exit(2);
            c = whole.value();
        });
        same = same && a->eventCount() == b->eventCount() && spanCount(*a) == spanCount(*b)
            && a->cpus.steps().size() == b->cpus.steps().size() && c->eventCount() == a->eventCount()
            && spanCount(*c) == spanCount(*a);
        std::printf("  update to %8.1f MB: kept pass wall %7.3f s CPU %7.3f s | streamed again wall %7.3f s CPU "
                    "%7.3f s | read whole again wall %7.3f s CPU %7.3f s\n",
            double(ends[i]) / 1048576.0, k.wall, k.cpu, f.wall, f.cpu, w.wall, w.cpu);
        keptWall.push_back(k.wall);
        keptCpu.push_back(k.cpu);
        freshWall.push_back(f.wall);
        freshCpu.push_back(f.cpu);
        wholeWall.push_back(w.wall);
        wholeCpu.push_back(w.cpu);
    }
    const auto last = ends.size() > 1 ? kept.snapshot() : nullptr;
    std::printf("  median update: kept pass wall %.3f s CPU %.3f s; streamed again wall %.3f s CPU %.3f s; "
                "kept / again: wall %.3fx CPU %.3fx\n",
        bench::median(keptWall), bench::median(keptCpu), bench::median(freshWall), bench::median(freshCpu),
        bench::median(keptWall) / bench::median(freshWall), bench::median(keptCpu) / bench::median(freshCpu));
    std::printf("  median update read whole again: wall %.3f s CPU %.3f s; kept / whole: wall %.3fx CPU %.3fx\n",
        bench::median(wholeWall), bench::median(wholeCpu), bench::median(keptWall) / bench::median(wholeWall),
        bench::median(keptCpu) / bench::median(wholeCpu));
    std::printf("  the last view: %llu events, %zu state spans; all three ways give the same counts: %s; peak RSS %.0f MB "
                "(the three ways' views held)\n",
        (unsigned long long)last->eventCount(), spanCount(*last), same ? "yes" : "NO", peakRssMb());
    return same ? 0 : 1;
}
