// forEachEventInTimeOrder (time_ordered_events.h): one streaming pass for the extents and the
// events outside every block, then a merge that decodes each extent again just before it is needed.
#include "sparkscope/core/time_ordered_events.h"

#include "sparkscope/core/decompressed_file.h"
#include "sparkscope/core/trace_stream.h"

#include <algorithm>
#include <memory>
#include <queue>
#include <span>
#include <tuple>
#include <vector>

namespace sparkscope::core {

namespace {

    // An extent still to decode (taken by the earliest time it holds) and its engine.
    struct Pending {
        uint16_t engine;
        const BlockExtent* extent;
    };

    // A sorted run of events being handed out: a decoded extent, or the events outside every block.
    // `events` points into `trace` (a vector's buffer does not move with the vector).
    struct Run {
        Trace trace;
        std::span<const Event> events;
        size_t next = 0;
        uint32_t rank = 0; // 0 for the events outside every block, 1 + engine
        uint64_t base = 0; // the file offset of the run's buffer's first byte: ties in file order
    };

    // The heap's key: the run's next event by (time, rank, file position), the order of
    // Trace::forEachInTimeOrder (trace_merge.h) over readTrace's stably sorted engines.
    struct Head {
        uint64_t timeNs;
        uint32_t rank;
        uint64_t fileOffset;
        size_t run;
        bool operator>(const Head& o) const noexcept
        {
            return std::tie(timeNs, rank, fileOffset) > std::tie(o.timeNs, o.rank, o.fileOffset);
        }
    };

    // The events outside every block, copied out of the first pass (they are few), sorted as readTrace
    // sorts them: by time, then file order.
    std::unique_ptr<Run> globalRun(std::vector<std::pair<uint64_t, Event>>& events, std::vector<uint8_t>& bytes)
    {
        std::stable_sort(events.begin(), events.end(), [](const auto& a, const auto& b) {
            return std::tie(a.second.timeNs, a.first) < std::tie(b.second.timeNs, b.first);
        });
        auto run = std::make_unique<Run>();
        for (const auto& [fileOffset, e] : events)
            run->trace.global.push_back(e);
        run->trace.setBytes(std::make_shared<std::vector<uint8_t>>(std::move(bytes)));
        run->events = run->trace.global;
        return run;
    }

} // namespace

Result<Trace> forEachEventInTimeOrder(const std::string& path,
    const std::function<bool(const Event&, const Payload&)>& f, const TimeOrderOptions& options)
{
    auto made = DecompressedFile::ifCompressed(path, options.cancel);
    if (!made)
        return made.error();
    const std::shared_ptr<const DecompressedFile> copy = std::move(made).value();
    const std::string& plain = copy ? copy->path() : path;
    auto wanted = [&](uint16_t engine) { return !options.engine || *options.engine == engine; };

    // First pass: the extents, and the events outside every block with their bytes.
    std::vector<std::pair<uint64_t, Event>> globals; // (file offset, event with its offset in globalBytes)
    std::vector<uint8_t> globalBytes;
    StreamOptions streamOptions;
    streamOptions.cancel = options.cancel;
    auto streamed = streamTrace(
        plain,
        [&](const StreamBatch& batch) {
            if (batch.engine != kNoEngine || !wanted(kNoEngine))
                return;
            for (const Event& e : batch.events) {
                if (e.timeNs < options.fromNs || e.timeNs > options.toNs)
                    continue;
                Event copied = e;
                copied.offset = globalBytes.size();
                globalBytes.insert(globalBytes.end(), batch.stream.begin() + ptrdiff_t(e.offset),
                    batch.stream.begin() + ptrdiff_t(e.endOffset()));
                globals.emplace_back(e.offset, copied);
            }
        },
        streamOptions);
    if (!streamed)
        return streamed.error();
    StreamedTrace& s = streamed.value();
    if (copy)
        copy->nameAfterSource(s.summary);

    std::vector<Pending> pending;
    for (size_t e = 0; e < s.blocks.size(); ++e)
        if (wanted(uint16_t(e)))
            for (const BlockExtent& x : s.blocks[e])
                if (x.firstNs != UINT64_MAX && x.lastNs >= options.fromNs && x.firstNs <= options.toNs)
                    pending.push_back({ uint16_t(e), &x });
    std::sort(pending.begin(), pending.end(), [](const Pending& a, const Pending& b) {
        return std::tie(a.extent->firstNs, a.engine, a.extent->offset)
            < std::tie(b.extent->firstNs, b.engine, b.extent->offset);
    });

    // Second pass: the merge. A run's slot is reused once it is handed out; runs stay where they are
    // made (unique_ptr), so their spans into their own traces stay valid.
    std::vector<std::unique_ptr<Run>> runs;
    std::vector<size_t> freeSlots;
    std::priority_queue<Head, std::vector<Head>, std::greater<>> heap;
    auto push = [&](size_t r) {
        const Run& run = *runs[r];
        if (run.next == run.events.size()) {
            runs[r].reset();
            freeSlots.push_back(r);
            return;
        }
        const Event& e = run.events[run.next];
        heap.push({ e.timeNs, run.rank, run.base + e.offset, r });
    };
    auto add = [&](std::unique_ptr<Run> run) {
        size_t r = runs.size();
        if (freeSlots.empty()) {
            runs.push_back(std::move(run));
        } else {
            r = freeSlots.back();
            freeSlots.pop_back();
            runs[r] = std::move(run);
        }
        push(r);
    };
    if (!globals.empty())
        add(globalRun(globals, globalBytes));

    size_t next = 0;
    uint64_t handed = 0;
    for (;;) {
        if (options.cancel && (++handed & 0xFFFF) == 0 && options.cancel->load(std::memory_order_relaxed))
            return Error { ErrorCode::Cancelled, "cancelled", std::nullopt };
        // No event of an extent not yet decoded comes before its first time: decode it once the
        // merge's earliest event is not before that.
        const uint64_t head = heap.empty() ? UINT64_MAX : heap.top().timeNs;
        if (next < pending.size() && pending[next].extent->firstNs <= head) {
            const Pending& p = pending[next++];
            auto decoded = decodeBlocks(plain, s.summary.header, p.engine, std::span(p.extent, 1));
            if (!decoded)
                return decoded.error();
            auto run = std::make_unique<Run>();
            run->trace = std::move(decoded).value();
            run->events = run->trace.engines[p.engine];
            run->rank = uint32_t(p.engine) + 1;
            run->base = p.extent->offset;
            add(std::move(run));
            continue;
        }
        if (heap.empty() || head > options.toNs)
            break;
        const size_t r = heap.top().run;
        heap.pop();
        Run& run = *runs[r];
        const Event& e = run.events[run.next++];
        if (e.timeNs >= options.fromNs && !f(e, run.trace.payload(e)))
            break;
        push(r);
    }
    return std::move(s.summary);
}

} // namespace sparkscope::core
