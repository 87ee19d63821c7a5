// The simulation's costs: measured from a trace (rules in cost_model.h), and read from a costs file.
#include "analysis/cost_model.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>
#include <tbb/parallel_for.h>

namespace sparkscope::core {

std::string_view costKey(CostKind kind) noexcept
{
    static constexpr std::string_view kKeys[kCostKindCount]
        = { "spark_ns", "steal_ns", "context_ns", "switch_ns", "wake_ns", "spin_ns" };
    return kKeys[size_t(kind)];
}

Result<CostModel> parseCostModel(std::string_view text)
{
    CostModel costs;
    costs.source = "file";
    std::array<bool, kCostKindCount> seen {};
    bool seenContention = false;
    size_t lineNumber = 0;
    auto trim = [](std::string_view s) {
        while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
            s.remove_prefix(1);
        while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
            s.remove_suffix(1);
        return s;
    };
    while (!text.empty()) {
        const size_t end = std::min(text.find('\n'), text.size());
        std::string_view line = text.substr(0, end);
        text.remove_prefix(std::min(end + 1, text.size()));
        ++lineNumber;
        line = trim(line.substr(0, std::min(line.find('#'), line.size())));
        if (line.empty())
            continue;
        auto quote = [](std::string_view v) { // (not "'" + string: GCC 12 warns wrongly about that)
            std::string q(1, '\'');
            q.append(v);
            q += '\'';
            return q;
        };
        auto fail = [&](const std::string& what) {
            return Error { ErrorCode::Usage, "costs line " + std::to_string(lineNumber) + ": " + what, std::nullopt };
        };
        const size_t eq = line.find('=');
        if (eq == std::string_view::npos)
            return fail("expected key=value, got " + quote(line));
        const std::string_view key = trim(line.substr(0, eq)), value = trim(line.substr(eq + 1));
        if (key == "contention") {
            if (seenContention)
                return fail(quote(key) + " given twice");
            seenContention = true;
            double c = -1;
            const auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), c);
            if (ec != std::errc() || ptr != value.data() + value.size() || value.empty() || !(c >= 0)
                || !std::isfinite(c) || c > kMaxContention)
                return fail(quote(key) + " needs a number from 0 to " + std::to_string(int(kMaxContention)) + ", got "
                    + quote(value));
            costs.contention = c;
            continue;
        }
        size_t k = 0;
        while (k < kCostKindCount && costKey(CostKind(k)) != key)
            ++k;
        if (k == kCostKindCount)
            return fail("unknown key " + quote(key)
                + " (spark_ns, steal_ns, context_ns, switch_ns, wake_ns, spin_ns and contention are known)");
        if (seen[k])
            return fail(quote(key) + " given twice");
        seen[k] = true;
        uint64_t ns = 0;
        const auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), ns);
        if (ec != std::errc() || ptr != value.data() + value.size() || value.empty())
            return fail(quote(key) + " needs whole nanoseconds, got " + quote(value));
        costs.ns[k] = ns;
    }
    return costs;
}

namespace detail {

    namespace {

        uint64_t median(std::vector<uint64_t>& v)
        {
            if (v.empty())
                return 0;
            auto mid = v.begin() + std::ptrdiff_t((v.size() - 1) / 2);
            std::nth_element(v.begin(), mid, v.end());
            return *mid;
        }

        bool bookkeeping(uint16_t type) noexcept
        {
            return type == ev::StopThread || type == ev::MerReleaseContext || type == ev::MerReuseContext
                || type == ev::CreateThread || type == ev::CreateSparkThread || type == ev::MerCallingMain;
        }

        struct EngineSamples {
            std::vector<uint64_t> contexts, switches, spins;
            std::vector<uint64_t> work; // times of SPARK_CREATE and THREAD_RUNNABLE
            std::vector<std::pair<uint64_t, uint64_t>> sleeps; // ENGINE_SLEEPING and the search that woke it
        };

        // The decisions a RUN_THREAD follows (context_ns, switch_ns in cost_model.h), scanning one
        // engine's events in order.
        class RunDecisions {
        public:
            explicit RunDecisions(const Trace& trace)
                : m_trace(trace)
            {
            }
            void see(const Event& e, EngineSamples& out)
            {
                const uint32_t context
                    = e.type == ev::RunThread || e.type == ev::ThreadRunnable ? m_trace.payload(e).u32(0) : kNoIndex;
                if (e.type == ev::RunThread) {
                    if (m_kind != None && e.timeNs >= m_since)
                        (m_kind == Spark || m_made ? out.contexts : out.switches).push_back(e.timeNs - m_since);
                    m_kind = None;
                    m_running = context;
                } else if (e.type == ev::CreateThread || e.type == ev::CreateSparkThread
                    || e.type == ev::MerReuseContext) {
                    m_made = true; // the context about to run is a new one (the main one, or for a spark)
                } else if (e.type == ev::MerSparkRun || e.type == ev::MerSparkSteal) {
                    decide(Spark, e.timeNs);
                } else if (e.type == ev::MerLookingForGlobalContext) {
                    decide(Resume, e.timeNs);
                } else if (e.type == ev::ThreadRunnable) {
                    // Not the context that was running here: a wait that found its future signalled
                    // meanwhile posts THREAD_RUNNABLE and RUN_THREAD of itself without any switch.
                    if (context != m_running)
                        decide(Resume, e.timeNs);
                    else
                        m_kind = None;
                } else if (!bookkeeping(e.type)) {
                    m_kind = None;
                }
            }

        private:
            enum Kind { None, Spark, Resume };
            void decide(Kind kind, uint64_t t)
            {
                m_kind = kind;
                m_since = t;
                m_made = false;
            }
            const Trace& m_trace;
            Kind m_kind = None;
            uint64_t m_since = 0;
            bool m_made = false; // a context was created or reused since the decision
            uint32_t m_running = kNoIndex; // the context of this engine's last RUN_THREAD
        };

        // The start of the search episode of `engine` that contains t − 1, if it does.
        std::optional<uint64_t> searchStart(const EngineActivity& activity, uint16_t engine, uint64_t t)
        {
            if (engine >= activity.engineCount() || t <= activity.firstNs())
                return std::nullopt;
            const ActivityInterval& a = activity.intervals(engine)[activity.indexAt(engine, t - 1)];
            if (a.activity != Activity::Searching || a.startNs >= t || a.endNs < t)
                return std::nullopt;
            return a.startNs;
        }

        EngineSamples scanEngine(const Trace& trace, uint16_t engine, const EngineActivity& activity)
        {
            EngineSamples out;
            RunDecisions decisions(trace);
            // An ENGINE_SLEEPING waiting for the engine's next search event, which shows its wake (an
            // engine shut down asleep has none); then that wake, until the search ends. A wake whose
            // search ends in SHUTDOWN was the runtime waking its engines to stop, not work waking one
            // (it measured, on a demo trace, from work another engine ran 280 ms into the run to the
            // shutdown at 637 ms): no sample.
            std::optional<uint64_t> slept;
            std::optional<std::pair<uint64_t, uint64_t>> woke;
            forEachEngineEvent(trace, engine, [&](const Event& e) {
                if (slept && isSearchEvent(e.type)) {
                    woke = { *slept, e.timeNs };
                    slept.reset();
                } else if (woke && !isSearchEvent(e.type) && e.type != ev::BlockMarker) {
                    if (e.type != ev::Shutdown)
                        out.sleeps.push_back(*woke);
                    woke.reset();
                }
                decisions.see(e, out);
                if (e.type == ev::MerSparkCreate || e.type == ev::ThreadRunnable)
                    out.work.push_back(e.timeNs);
                if (e.type != ev::MerEngineSleeping)
                    return;
                if (auto start = searchStart(activity, engine, e.timeNs))
                    out.spins.push_back(e.timeNs - *start);
                if (!slept) // asleep again before searching: the first sleep's work still counts
                    slept = e.timeNs;
            });
            if (woke) // (the trace ends searching)
                out.sleeps.push_back(*woke);
            return out;
        }

        // wake_ns samples: for each sleep, the first work another engine made after it, up to the
        // sleeper's next search event.
        std::vector<uint64_t> wakeSamples(const std::vector<EngineSamples>& engines)
        {
            std::vector<uint64_t> out;
            for (size_t e = 0; e < engines.size(); ++e)
                for (const auto& [sleptNs, nextNs] : engines[e].sleeps) {
                    uint64_t first = UINT64_MAX;
                    for (size_t o = 0; o < engines.size(); ++o) {
                        if (o == e)
                            continue;
                        const auto& w = engines[o].work;
                        auto it = std::upper_bound(w.begin(), w.end(), sleptNs);
                        if (it != w.end())
                            first = std::min(first, *it);
                    }
                    if (first <= nextNs)
                        out.push_back(nextNs - first);
                }
            return out;
        }

    } // namespace

    CostModel measureCosts(const Trace& trace, const ParModel& model, const EngineActivity& activity)
    {
        std::vector<EngineSamples> engines(trace.engines.size());
        tbb::parallel_for(size_t(0), engines.size(), [&](size_t e) {
            engines[e] = scanEngine(trace, uint16_t(e), activity);
            std::sort(engines[e].work.begin(), engines[e].work.end()); // sorted already, unless damaged
        });
        std::vector<uint64_t> samples[kCostKindCount];
        for (const ConjunctInstance& k : model.conjuncts) {
            if (!k.started || !k.stolen)
                continue;
            const auto start = searchStart(activity, k.startEngine, k.startNs);
            if (!start || k.startNs < k.sparkCreateNs)
                continue;
            if (*start <= k.sparkCreateNs)
                samples[size_t(CostKind::Spark)].push_back(k.startNs - k.sparkCreateNs);
            else
                samples[size_t(CostKind::Steal)].push_back(k.startNs - *start);
        }
        for (EngineSamples& e : engines)
            for (auto [kind, from] : { std::pair { CostKind::Context, &e.contexts },
                     std::pair { CostKind::Switch, &e.switches }, std::pair { CostKind::Spin, &e.spins } })
                samples[size_t(kind)].insert(samples[size_t(kind)].end(), from->begin(), from->end());
        samples[size_t(CostKind::Wake)] = wakeSamples(engines);
        CostModel costs;
        costs.source = "measured";
        for (size_t k = 0; k < kCostKindCount; ++k) {
            costs.samples[k] = samples[k].size();
            costs.ns[k] = median(samples[k]);
        }
        return costs;
    }

} // namespace detail

} // namespace sparkscope::core
