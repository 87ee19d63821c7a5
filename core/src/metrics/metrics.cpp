// Metric derivation (see metrics.h and docs/metrics.md for every definition and every choice the
// specification left open). computeMetrics runs the first passes — engine states (parallel per
// engine), the model pass and the per-engine event scans, all three at once — and then builds the
// report one section at a time, each by its own function in its own file (metrics_sections.h lists
// them). The conjunction sections, which hold nearly all the work on our runtime's traces, are
// folded per group by the descendant pass and the per-instance figures beside it, both parallel
// (instance_figures.cpp), then read per group (group_summaries.cpp). Groups are summarised in a
// deterministic order (sorted ids), and a Stat does not depend on the order of its values
// (exact_stat.h), so the output is byte-for-byte stable across runs.
#include "sparkscope/core/metrics.h"

#include "metrics/exact_stat.h"
#include "metrics/group_summaries.h"
#include "metrics/metrics_sections.h"

#include "sparkscope/core/event_types.h"

#include <algorithm>
#include <charconv>
#include <string_view>
#include <tbb/parallel_invoke.h>

namespace sparkscope::core {

Stat Stat::of(const std::vector<double>& values) { return detail::exactStat(values); }

const MetricSection* Metrics::section(const std::string& name) const
{
    for (const auto& s : sections)
        if (s.name == name)
            return &s;
    return nullptr;
}

const MetricValue* Metrics::find(const std::string& sectionName, const std::string& id, const std::string& key) const
{
    const MetricSection* s = section(sectionName);
    if (!s)
        return nullptr;
    for (const auto& g : s->groups)
        if (g.id == id)
            for (const auto& [k, v] : g.metrics)
                if (k == key)
                    return &v;
    return nullptr;
}

namespace detail {

    MetricValue statValue(const std::vector<double>& values)
    {
        MetricValue v;
        v.stat = Stat::of(values);
        return v;
    }

    MetricValue statValue(const Stat& stat)
    {
        MetricValue v;
        v.stat = stat;
        return v;
    }

    MetricValue fieldsValue(std::vector<std::pair<std::string, Scalar>> fields)
    {
        MetricValue v;
        v.fields = std::move(fields);
        return v;
    }

} // namespace detail

namespace {

    // The positive number after `key` (" name=") in the text of our runtime's RTS_IDENTIFIER.
    std::optional<uint64_t> identifierSetting(std::string_view text, std::string_view key)
    {
        constexpr std::string_view kRuntime = "sparkscope-";
        const size_t at = text.find(key);
        if (!text.starts_with(kRuntime) || at == std::string::npos)
            return std::nullopt;
        uint64_t value = 0;
        const char* digits = text.data() + at + key.size();
        const auto [end, ec] = std::from_chars(digits, text.data() + text.size(), value);
        if (ec == std::errc() && end != digits && value > 0)
            return value;
        return std::nullopt;
    }

    // The same in the trace's RTS_IDENTIFIER, if it has one.
    std::optional<uint64_t> runtimeSetting(const Trace& trace, std::string_view key)
    {
        for (const Event& e : trace.global) {
            if (e.type != ev::RtsIdentifier || e.payloadSize <= 4)
                continue;
            if (auto value = identifierSetting(trace.payload(e).text(4), key)) // (after the capset)
                return value;
        }
        return std::nullopt;
    }

} // namespace

std::optional<uint64_t> contextLimitOf(const Trace& trace) { return runtimeSetting(trace, " max-contexts="); }

std::optional<uint64_t> cpusOf(const Trace& trace) { return runtimeSetting(trace, " cpus="); }

std::optional<uint64_t> flushMsOf(const Trace& trace) { return runtimeSetting(trace, " flush-ms="); }

std::optional<uint64_t> flushMsOfIdentifier(std::string_view text) { return identifierSetting(text, " flush-ms="); }

bool recordsEngineSearch(const Trace& trace)
{
    return std::ranges::any_of(trace.header.types, [](const EventTypeDecl& d) { return isSearchEvent(d.number); });
}

namespace {

    TraceSummary traceSummary(const Trace& trace)
    {
        TraceSummary out { trace.path, trace.fileSize, trace.engines.size(), trace.firstTimeNs, trace.lastTimeNs,
            trace.eventCount(), {}, contextLimitOf(trace), cpusOf(trace), recordsEngineSearch(trace) };
        for (const auto& w : trace.warnings)
            out.warnings.push_back(w.message + " (at byte " + std::to_string(w.byteOffset) + ")");
        return out;
    }

    // options.fromNs / toNs within the trace's span.
    detail::Range reportRange(const Trace& trace, const MetricsOptions& options)
    {
        detail::Range r { std::max(options.fromNs, trace.firstTimeNs),
            std::min(options.toNs, std::max(trace.lastTimeNs, trace.firstTimeNs)) };
        if (r.to < r.from)
            r.to = r.from;
        r.toEnd = r.to >= trace.lastTimeNs;
        return r;
    }

} // namespace

Metrics computeMetrics(const Trace& trace, const MetricsOptions& options)
{
    return computeMetrics(trace, options, MetricsInputs {});
}

Metrics computeMetrics(const Trace& trace, const MetricsOptions& options, const MetricsInputs& inputs)
{
    using namespace detail;
    Metrics out;
    out.options = options;
    out.trace = traceSummary(trace);
    const Range r = reportRange(trace, options);
    // Work-available times serve only ENGINE_WAKE_LATENCY, which needs a sleeping engine; engines
    // sleep only after ENGINE_SLEEPING. A GHC log has none, and skipping them saves 8 bytes per spark
    // created there (docs/performance.md, "Metrics: figures behind the code's choices").
    const bool wantWorkTimes = anyEngineSleeps(trace);
    // Three independent passes at once: engine states (parallel per engine inside), the model pass
    // (sequential), and the per-engine scans (parallel per engine). States and model depend on the
    // trace alone, so a caller that has them already (the app's view of a selection) lends them.
    const bool ownStates = !inputs.engineStates || !inputs.cpusOverTime;
    // A caller that gives the trace up (eventsRead) gets a model whose top-piece index is built once
    // the events are gone: only the descendant pass and the per-instance figures read it, and built
    // with the model it sat beside the trace at the peak (~105 MB of the 13 M-event demo parfib's).
    const bool piecesLater = !inputs.model && inputs.eventsRead;
    std::vector<EngineScan> scans;
    SparkPoolTransfers transfers;
    tbb::parallel_invoke(
        [&] {
            if (ownStates) {
                out.engineStates = computeEngineStates(trace);
                out.cpusOverTime = cpusOverTime(out.engineStates);
            }
        },
        [&] {
            if (!inputs.model)
                out.model = buildParModel(trace, !piecesLater);
        },
        [&] { scans = scanEngines(trace, r, wantWorkTimes); },
        // (A walk in time order of a GHC log's spark events: sequential, so beside the others.)
        [&] { transfers = sparkPoolTransfers(trace); });
    const EngineStates& engineStates = ownStates ? out.engineStates : *inputs.engineStates;
    const MetricsBasis b { trace, options, r, inputs.model ? *inputs.model : out.model, engineStates,
        ownStates ? out.cpusOverTime : *inputs.cpusOverTime, trace.engines.size(), engineStates.firstNs,
        engineStates.lastNs, std::move(scans), scanGlobalHeap(trace, r), gcCollections(engineStates),
        std::move(transfers) };

    // The contexts runnable and blocked over time serve the program section's figures alone: a step
    // per context state change (millions on a big trace of our runtime), so they are not kept.
    MetricSection program = [&] {
        StepFunction runnable, blocked;
        contextCurves(b.model, b.firstNs, b.lastNs, runnable, blocked);
        return buildProgramSection(b, runnable, blocked);
    }();
    MetricSection engines = buildEnginesSection(b);
    // Nothing below reads an event.
    if (inputs.eventsRead)
        inputs.eventsRead(b.engineStates, b.model, b.transfers);
    if (piecesLater)
        out.model.indexTopPieces();
    // The descendant pass with the per-instance figures beside it, then every group's summaries.
    const InstanceFigures figures = computeInstanceFigures(b);
    const GroupSummaries summaries = summariseGroups(figures);
    addConjunctGranularityOfAll(program, figures);

    out.sections.push_back(std::move(program));
    out.sections.push_back(std::move(engines));
    out.sections.push_back(buildConjunctionsSection(b, figures, summaries));
    out.sections.push_back(buildConjunctsSection(figures));
    out.sections.push_back(buildFuturesSection(b));
    out.sections.push_back(buildSchedulingSection(figures, summaries));
    return out;
}

} // namespace sparkscope::core
