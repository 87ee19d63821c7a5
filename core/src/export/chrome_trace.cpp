// The Chrome Trace Event Format export (chrome_trace.h). How it is built:
//   - the engine states (engine_states.h) give each engine's Running, GC and Searching intervals;
//     a Running interval is cut into pieces where the running context's innermost conjunct changes,
//     read from that context's timeline in the parallel model (par_model.h), found by id and time;
//   - the context tracks are the model's context timelines, one segment per slice, all timelines of
//     one id (a reused id) on one track;
//   - flows pair what the model already paired (a conjunct's spark creation and start, a future's
//     signal and its waits); their ends are placed where a viewer binds them to the right slice;
//   - markers, thread labels and future-signal engines come from one scan of the events.
// The JSON is written by hand into a 1 MiB buffer flushed to the stream: an event is a short line
// of numbers and a few strings, and every string that is not a literal (source locations, variable
// names, labels, markers: arbitrary bytes) goes through nlohmann-json's escaping, with invalid UTF-8
// replaced, once per distinct name. Building an nlohmann object per event was not needed for that.
#include "sparkscope/core/chrome_trace.h"

#include "sparkscope/core/deque_sizes.h"
#include "sparkscope/core/engine_states.h"
#include "sparkscope/core/par_model.h"
#include "sparkscope/core/step_function.h"

#include "export/chrome_json.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <span>
#include <unordered_map>

namespace sparkscope::core {

using namespace detail::chrome;

namespace {

    // What one scan of the events collects for the export.
    struct Scanned {
        struct Marker {
            uint64_t timeNs;
            uint16_t engine;
            std::string text;
        };
        std::vector<Marker> markers; // by time
        std::unordered_map<uint32_t, std::string> labels; // GHC THREAD_LABEL: thread id -> last label
        // FUT_SIGNAL: (future id, time) -> the engine that posted it.
        std::map<std::pair<uint64_t, uint64_t>, uint16_t> signals;
    };

    Scanned scanEvents(const Trace& trace)
    {
        Scanned s;
        auto scan = [&](const std::vector<Event>& events) {
            for (const Event& e : events) {
                if (e.type == ev::UserMarker) {
                    auto text = trace.payload(e).text(0);
                    text = text.substr(0, text.find('\0'));
                    s.markers.push_back({ e.timeNs, e.engine, std::string(text) });
                } else if (e.type == ev::ThreadLabel) {
                    const Payload p = trace.payload(e);
                    auto text = p.text(4);
                    s.labels[p.u32(0)] = std::string(text.substr(0, text.find('\0')));
                } else if (e.type == ev::MerFutSignal && e.hasEngine())
                    s.signals[{ trace.payload(e).u64(0), e.timeNs }] = e.engine;
            }
        };
        scan(trace.global);
        for (const auto& events : trace.engines)
            scan(events);
        std::stable_sort(s.markers.begin(), s.markers.end(),
            [](const Scanned::Marker& a, const Scanned::Marker& b) { return a.timeNs < b.timeNs; });
        return s;
    }

    class Exporter {
    public:
        Exporter(const Trace& trace, std::ostream& stream, const ChromeTraceOptions& options)
            : m_trace(trace)
            , m_options(options)
            , m_states(computeEngineStates(trace))
            , m_model(buildParModel(trace))
            , m_scanned(scanEvents(trace))
            , m_out(stream)
        {
            // Timelines by context id (stable: a reused id's timelines stay in order of appearance).
            m_byId.reserve(m_model.contexts.size());
            for (uint32_t i = 0; i < m_model.contexts.size(); ++i)
                m_byId.push_back({ m_model.contexts[i].id, i });
            std::stable_sort(m_byId.begin(), m_byId.end(),
                [](const IdTimeline& a, const IdTimeline& b) { return a.id < b.id; });
        }

        ChromeTraceSummary run()
        {
            m_out.buf() += "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"source\":\"SparkScope " SPARKSCOPE_VERSION
                           "\",\"trace\":";
            m_out.buf() += jsonString(m_trace.path);
            m_out.buf() += ",\"engines\":";
            appendUnsigned(m_out.buf(), m_states.engineCount());
            m_out.buf() += "},\"traceEvents\":[";
            writeMetadata();
            for (size_t e = 0; e < m_states.engineCount(); ++e)
                writeEngine(e);
            if (m_options.contextTracks)
                writeContexts();
            writeSparkFlows();
            writeFutureFlows();
            writeMarkers();
            writeCpus();
            if (m_options.sparkDeques)
                writeSparkDeques();
            m_out.buf() += "\n]}\n";
            m_out.flush();
            m_summary.bytes = m_out.bytes();
            return m_summary;
        }

    private:
        // ---- names ----
        static constexpr std::string_view kRunning = "\"running\"";

        // "fib.m:10/2" for conjunct k, or "running" for none.
        std::string_view pieceName(ConjunctIndex k)
        {
            if (!m_model.contains(k))
                return kRunning;
            const ConjunctInstance& c = m_model.conjunct(k);
            const uint32_t staticId = m_model.conjunction(c.conjunction).staticId;
            const uint64_t key = (uint64_t(staticId) << 32) | c.position;
            auto it = m_names.find(key);
            if (it == m_names.end())
                it = m_names
                         .emplace(key, jsonString(m_model.staticName(staticId) + "/" + std::to_string(c.position)))
                         .first;
            return it->second;
        }

        std::string pieceArgs(const char* key, uint64_t value, ConjunctIndex k) const
        {
            std::string args = "\"";
            args += key;
            args += "\":";
            appendUnsigned(args, value);
            if (m_model.contains(k)) {
                args += ",\"instance\":";
                appendUnsigned(args, m_model.conjunct(k).conjunction.value());
            }
            return args;
        }

        // ---- lookups ----
        struct IdTimeline {
            uint32_t id;
            uint32_t index; // into m_model.contexts
        };
        std::span<const IdTimeline> timelinesOf(uint32_t id) const
        {
            // (Not std::ranges::equal_range: clang 14, which builds the fuzzers, cannot compile it.)
            const auto from = std::partition_point(
                m_byId.begin(), m_byId.end(), [&](const IdTimeline& t) { return t.id < id; });
            const auto to = std::partition_point(from, m_byId.end(), [&](const IdTimeline& t) { return t.id == id; });
            return { m_byId.data() + (from - m_byId.begin()), size_t(to - from) };
        }

        // The timeline of context `id` at time t: the last one that had started by then.
        const ContextTimeline* timelineAt(uint32_t id, uint64_t t) const
        {
            const ContextTimeline* found = nullptr;
            for (const IdTimeline& each : timelinesOf(id)) {
                const ContextTimeline& tl = m_model.contexts[each.index];
                if (!found || (!tl.segments.empty() && tl.segments.front().startNs <= t))
                    found = &tl;
            }
            return found;
        }

        // Index of the segment of `tl` containing t, or segments.size() when t is before the first.
        static size_t segmentAt(const ContextTimeline& tl, uint64_t t)
        {
            auto it = std::upper_bound(tl.segments.begin(), tl.segments.end(), t,
                [](uint64_t x, const ContextSegment& s) { return x < s.startNs; });
            return it == tl.segments.begin() ? tl.segments.size() : size_t(it - tl.segments.begin()) - 1;
        }
        uint64_t segmentEnd(const ContextTimeline& tl, size_t i) const
        {
            return i + 1 < tl.segments.size() ? tl.segments[i + 1].startNs : std::max(m_model.endNs, m_states.lastNs);
        }

        // The first time in [from, until) at which `engine` runs context `id` (the start of a running
        // piece on its track, or `from` inside one), if any.
        std::optional<uint64_t> runningOn(size_t engine, uint32_t id, uint64_t from, uint64_t until) const
        {
            if (engine >= m_states.engineCount())
                return std::nullopt;
            const auto& v = m_states.engines[engine];
            auto it = std::upper_bound(
                v.begin(), v.end(), from, [](uint64_t x, const StateInterval& s) { return x < s.endNs; });
            for (; it != v.end() && it->startNs < until; ++it)
                if (it->state == EngineState::Running && it->context == id)
                    return std::max(from, it->startNs);
            return std::nullopt;
        }

        bool runningAt(size_t engine, uint64_t t) const
        {
            const StateInterval* s = m_states.at(engine, t);
            return s && s->state == EngineState::Running;
        }

        // The first time at or after `from` at which timeline `tl` runs on an engine (its segment
        // says Running and that engine's track has it running): the engine and the time.
        std::optional<std::pair<size_t, uint64_t>> nextRun(const ContextTimeline& tl, uint64_t from) const
        {
            size_t i = segmentAt(tl, from);
            if (i == tl.segments.size())
                i = 0;
            for (; i < tl.segments.size(); ++i) {
                const ContextSegment& seg = tl.segments[i];
                const uint64_t end = segmentEnd(tl, i);
                if (end <= from || seg.state != ContextState::Running)
                    continue;
                if (auto t = runningOn(seg.engine, tl.id, std::max(seg.startNs, from), end))
                    return std::pair { size_t(seg.engine), *t };
            }
            return std::nullopt;
        }

        // ---- sections ----
        void metadata(Ids ids, const char* what, std::string_view key, std::string_view value)
        {
            std::string& b = m_out.event();
            appendHead(b, 'M', ids);
            b += ",\"name\":\"";
            b += what;
            b += "\",\"args\":{\"";
            b += key;
            b += "\":";
            b += value;
            b += "}}";
        }

        void writeMetadata()
        {
            const Ids engines { kChromeEnginesPid, chromeEngineTid(0) };
            metadata(engines, "process_name", "name", "\"Engines\"");
            metadata(engines, "process_sort_index", "sort_index", "0");
            for (size_t e = 0; e < m_states.engineCount(); ++e) {
                const Ids ids { kChromeEnginesPid, chromeEngineTid(e) };
                metadata(ids, "thread_name", "name", "\"Engine " + std::to_string(e) + "\"");
                metadata(ids, "thread_sort_index", "sort_index", std::to_string(e));
            }
            if (!m_options.contextTracks)
                return;
            metadata({ kChromeContextsPid, chromeContextTid(0) }, "process_name", "name", "\"Contexts\"");
            metadata({ kChromeContextsPid, chromeContextTid(0) }, "process_sort_index", "sort_index", "1");
            size_t lane = 0;
            forEachId([&](uint32_t id, std::span<const IdTimeline>) {
                const Ids ids { kChromeContextsPid, chromeContextTid(lane) };
                std::string name = "Context " + std::to_string(id);
                if (auto it = m_scanned.labels.find(id); it != m_scanned.labels.end() && !it->second.empty())
                    name += ": " + it->second;
                metadata(ids, "thread_name", "name", jsonString(name));
                metadata(ids, "thread_sort_index", "sort_index", std::to_string(lane));
                ++lane;
            });
        }

        template <class F> void forEachId(F&& f) const
        {
            for (size_t i = 0; i < m_byId.size();) {
                const uint32_t id = m_byId[i].id;
                size_t j = i;
                while (j < m_byId.size() && m_byId[j].id == id)
                    ++j;
                f(id, std::span<const IdTimeline>(m_byId.data() + i, j - i));
                i = j;
            }
        }

        void writeEngine(size_t e)
        {
            Track track(m_out, { kChromeEnginesPid, chromeEngineTid(e) }, m_summary.slices);
            for (const StateInterval& s : m_states.engines[e]) {
                if (s.state == EngineState::Gc)
                    track.slice(s.startNs, s.endNs, "\"GC\"", {});
                else if (s.state == EngineState::Searching)
                    track.slice(s.startNs, s.endNs, "\"searching\"", {});
                else if (s.state == EngineState::Running)
                    writeRunning(track, s);
            }
        }

        // One Running interval, cut where the context's innermost conjunct changes.
        void writeRunning(Track& track, const StateInterval& s)
        {
            const ContextTimeline* tl = timelineAt(s.context, s.startNs);
            uint64_t at = s.startNs;
            if (tl) {
                size_t i = segmentAt(*tl, at);
                if (i == tl->segments.size()) { // before the timeline's first segment
                    const uint64_t firstNs = tl->segments.empty() ? s.endNs : std::min(s.endNs, tl->segments[0].startNs);
                    track.slice(at, firstNs, kRunning, pieceArgs("context", s.context, {}));
                    at = firstNs;
                    i = 0;
                }
                while (at < s.endNs && i < tl->segments.size()) {
                    const ConjunctIndex top = tl->segments[i].top;
                    size_t j = i + 1; // neighbours with the same conjunct make one piece
                    while (j < tl->segments.size() && tl->segments[j].top == top && tl->segments[j].startNs < s.endNs)
                        ++j;
                    const uint64_t end = std::min(s.endNs, segmentEnd(*tl, j - 1));
                    track.slice(at, end, pieceName(top), pieceArgs("context", s.context, top));
                    at = std::max(at, end);
                    i = j;
                }
            }
            track.slice(at, s.endNs, kRunning, pieceArgs("context", s.context, {}));
        }

        void writeContexts()
        {
            size_t lane = 0;
            forEachId([&](uint32_t, std::span<const IdTimeline> timelines) {
                Track track(m_out, { kChromeContextsPid, chromeContextTid(lane++) }, m_summary.slices);
                for (const IdTimeline& t : timelines) {
                    const ContextTimeline& tl = m_model.contexts[t.index];
                    for (size_t i = 0; i < tl.segments.size(); ++i) {
                        const ContextSegment& seg = tl.segments[i];
                        const uint64_t end = segmentEnd(tl, i);
                        switch (seg.state) {
                        case ContextState::Running:
                            track.slice(seg.startNs, end, pieceName(seg.top), pieceArgs("engine", seg.engine, seg.top));
                            break;
                        case ContextState::Runnable:
                            track.slice(seg.startNs, end, "\"runnable\"", blockedArgs(seg.top));
                            break;
                        case ContextState::Blocked:
                            track.slice(seg.startNs, end, "\"blocked\"", blockedArgs(seg.top));
                            break;
                        case ContextState::Finished:
                            break;
                        }
                    }
                }
            });
        }

        std::string blockedArgs(ConjunctIndex top)
        {
            if (!m_model.contains(top))
                return {};
            std::string args = "\"conjunct\":";
            args += pieceName(top);
            return args;
        }

        void flow(std::string_view cat, std::string_view name, size_t fromEngine, uint64_t fromNs, size_t toEngine,
            uint64_t toNs)
        {
            const uint64_t id = ++m_summary.flows;
            for (int end = 0; end < 2; ++end) {
                std::string& b = m_out.event();
                appendHead(b, end ? 'f' : 's', { kChromeEnginesPid, chromeEngineTid(end ? toEngine : fromEngine) });
                if (end)
                    b += ",\"bp\":\"e\"";
                b += ",\"ts\":";
                appendMicros(b, end ? toNs : fromNs);
                b += ",\"id\":";
                appendUnsigned(b, id);
                b += ",\"cat\":\"";
                b += cat;
                b += "\",\"name\":";
                b += name;
                b += '}';
            }
        }

        void writeSparkFlows()
        {
            for (const ConjunctInstance& c : m_model.conjuncts) {
                if (!c.fromSpark || !c.started)
                    continue;
                std::optional<std::pair<size_t, uint64_t>> to;
                if (m_model.contains(c.context) && runningAt(c.sparkEngine, c.sparkCreateNs))
                    to = nextRun(m_model.context(c.context), c.startNs);
                if (!to || (c.ended && to->second > c.endNs)) {
                    ++m_summary.flowsSkipped;
                    continue;
                }
                flow("spark", c.stolen ? "\"spark stolen\"" : "\"spark run\"", c.sparkEngine, c.sparkCreateNs,
                    to->first, to->second);
            }
        }

        void writeFutureFlows()
        {
            for (const FutureInstance& f : m_model.futures) {
                if (!f.signalled)
                    continue;
                auto signal = m_scanned.signals.find({ f.futureId, f.signalNs });
                const bool fromOk = signal != m_scanned.signals.end() && runningAt(signal->second, f.signalNs);
                const std::string name = jsonString("future " + m_model.stringOr(f.nameId, "name#"));
                for (const FutureWait& w : f.waits) {
                    if (!w.suspended)
                        continue;
                    std::optional<std::pair<size_t, uint64_t>> to;
                    if (fromOk && m_model.contains(w.context))
                        to = nextRun(m_model.context(w.context), f.signalNs);
                    if (!to) {
                        ++m_summary.flowsSkipped;
                        continue;
                    }
                    flow("future", name, signal->second, f.signalNs, to->first, to->second);
                }
            }
        }

        void writeMarkers()
        {
            for (const auto& m : m_scanned.markers) {
                std::string& b = m_out.event();
                const size_t engine = m.engine == kNoEngine ? 0 : m.engine;
                appendHead(b, 'i', { kChromeEnginesPid, chromeEngineTid(engine) });
                b += ",\"s\":\"g\",\"ts\":";
                appendMicros(b, m.timeNs);
                b += ",\"name\":";
                b += jsonString(m.text);
                b += '}';
                ++m_summary.instants;
            }
        }

        void counter(std::string_view name, std::string_view key, uint64_t timeNs, int64_t value)
        {
            std::string& b = m_out.event();
            appendHead(b, 'C', { kChromeEnginesPid, chromeEngineTid(0) });
            b += ",\"ts\":";
            appendMicros(b, timeNs);
            b += ",\"name\":";
            b += name;
            b += ",\"args\":{\"";
            b += key;
            b += "\":";
            b += std::to_string(value);
            b += "}}";
            ++m_summary.counterSamples;
        }

        void writeCpus()
        {
            const StepFunction cpus = cpusOverTime(m_states);
            for (const StepFunction::Step& s : cpus.steps())
                counter("\"CPUs\"", "running", uint64_t(s.timeNs), s.value);
        }

        void writeSparkDeques()
        {
            const SparkPoolTransfers transfers = sparkPoolTransfers(m_trace);
            for (size_t e = 0; e < m_trace.engines.size(); ++e) {
                const std::string name = "\"Spark deque (Engine " + std::to_string(e) + ")\"";
                forEachSparkDequeSize(m_trace, e, transfers,
                    [&](uint64_t timeNs, int64_t size) { counter(name, "sparks", timeNs, size); });
            }
        }

        const Trace& m_trace;
        ChromeTraceOptions m_options;
        EngineStates m_states;
        ParModel m_model;
        Scanned m_scanned;
        JsonOut m_out;
        ChromeTraceSummary m_summary;
        std::vector<IdTimeline> m_byId; // every timeline, by (id, appearance)
        std::unordered_map<uint64_t, std::string> m_names; // (static id, position) -> JSON name
    };

} // namespace

Result<ChromeTraceSummary> writeChromeTrace(const Trace& trace, std::ostream& out, const ChromeTraceOptions& options)
{
    ChromeTraceSummary summary;
    try {
        summary = Exporter(trace, out, options).run();
    } catch (const std::exception& e) { // out of memory, or a stream set to throw
        return Error { ErrorCode::Io, std::string("cannot write the Chrome trace: ") + e.what(), std::nullopt };
    }
    out.flush();
    if (!out)
        return Error { ErrorCode::Io, "cannot write the Chrome trace", std::nullopt };
    return summary;
}

Result<ChromeTraceSummary> writeChromeTraceFile(
    const Trace& trace, const std::string& path, const ChromeTraceOptions& options)
{
    std::ofstream file(path, std::ios::binary | std::ios::trunc);
    if (!file)
        return Error { ErrorCode::Io, "cannot create " + path + ": " + std::strerror(errno), std::nullopt };
    auto written = writeChromeTrace(trace, file, options);
    if (!written)
        return Error { ErrorCode::Io, "cannot write " + path, std::nullopt };
    file.close();
    if (!file)
        return Error { ErrorCode::Io, "cannot write " + path + ": " + std::strerror(errno), std::nullopt };
    return written;
}

} // namespace sparkscope::core
