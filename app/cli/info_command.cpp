// `sparkscope-cli info`: a summary of a trace: engines, time span, event counts per type,
// warnings; as text or (--json) as one JSON object.
#include "cli/cli_common.h"

#include "sparkscope/core/event_types.h"

#include <nlohmann/json.hpp>

#include <array>
#include <map>

namespace sparkscope::cli {

namespace {

    constexpr std::string_view kUsage = "usage: sparkscope-cli info TRACE [--json]\n\n"
                                        "Prints the engines, the time span, the number of events of each type and the\n"
                                        "reader's warnings. --json prints the same as one JSON object.\n";

    std::string_view compressionName(core::Compression c)
    {
        switch (c) {
        case core::Compression::Gzip:
            return "gzip";
        case core::Compression::Zstd:
            return "zstd";
        case core::Compression::Bzip2:
            return "bzip2";
        default:
            return "none";
        }
    }

    struct EngineSummary {
        uint16_t engine = core::kNoEngine;
        std::string name; // engine number or "-"
        size_t events = 0;
        uint64_t firstNs = 0, lastNs = 0;
    };

    EngineSummary summarise(uint16_t engine, const std::vector<core::Event>& events)
    {
        EngineSummary s { engine, engine == core::kNoEngine ? "-" : std::to_string(engine), events.size(), 0, 0 };
        if (!events.empty()) {
            s.firstNs = events.front().timeNs;
            s.lastNs = events.back().timeNs;
        }
        return s;
    }

    int runInfo(const std::vector<std::string>& args)
    {
        auto parsed = parseArgs(args, {}, { "--json" }, kUsage);
        if (!parsed)
            return kExitBadInput;
        if (printedHelp(*parsed, kUsage))
            return kExitOk;
        if (parsed->positional.size() != 1)
            return usageError(parsed->positional.empty() ? "info needs a TRACE" : "info takes one TRACE", kUsage);
        auto trace = loadTrace(parsed->positional.front());
        if (!trace)
            return kExitBadInput;
        const core::Trace& t = *trace;

        std::vector<uint64_t> counts(65536, 0);
        auto countAll = [&](const std::vector<core::Event>& events) {
            for (const auto& e : events)
                ++counts[e.type];
        };
        countAll(t.global);
        for (const auto& e : t.engines)
            countAll(e);
        std::vector<EngineSummary> engines;
        for (size_t i = 0; i < t.engines.size(); ++i)
            if (!t.engines[i].empty())
                engines.push_back(summarise(static_cast<uint16_t>(i), t.engines[i]));
        const EngineSummary global = summarise(core::kNoEngine, t.global);

        Output out;
        if (parsed->flag("--json")) {
            nlohmann::json j;
            j["path"] = t.path;
            j["file_size"] = t.fileSize;
            j["compression"] = compressionName(t.compression);
            j["truncated"] = t.truncated;
            j["events"] = t.eventCount();
            j["declared_types"] = t.header.types.size();
            j["time_span"] = { { "first_ns", t.firstTimeNs }, { "last_ns", t.lastTimeNs },
                { "duration_ns", t.lastTimeNs - t.firstTimeNs } };
            nlohmann::json je = nlohmann::json::array();
            for (const auto& e : engines)
                je.push_back({ { "engine", e.engine }, { "events", e.events }, { "first_ns", e.firstNs },
                    { "last_ns", e.lastNs } });
            j["engines"] = je;
            j["global_events"] = global.events;
            nlohmann::json jt = nlohmann::json::array();
            for (size_t n = 0; n < counts.size(); ++n)
                if (counts[n])
                    jt.push_back(
                        { { "type", n }, { "name", eventName(static_cast<uint16_t>(n)) }, { "count", counts[n] } });
            j["types"] = jt;
            nlohmann::json jw = nlohmann::json::array();
            for (const auto& w : t.warnings)
                jw.push_back({ { "message", w.message }, { "byte_offset", w.byteOffset } });
            j["warnings"] = jw;
            // Invalid UTF-8 in a path or message is replaced rather than thrown about.
            out << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
            return kExitOk;
        }

        std::string& b = out.buffer();
        b += "file        " + t.path + "\n";
        b += "size        " + std::to_string(t.fileSize) + " bytes";
        if (t.compression != core::Compression::None)
            b += " (" + std::string(compressionName(t.compression)) + ")";
        b += "\n";
        b += "events      " + std::to_string(t.eventCount()) + (t.truncated ? " (the file is cut short)" : "") + "\n";
        b += "time span   " + std::to_string(t.firstTimeNs) + " .. " + std::to_string(t.lastTimeNs) + " ns ("
            + std::to_string(t.lastTimeNs - t.firstTimeNs) + " ns)\n";
        b += "engines     " + std::to_string(engines.size()) + "\n";
        auto engineLine = [&](const EngineSummary& e) {
            b += "  ";
            appendPadded(b, e.name, 6, true);
            b += "  ";
            appendPadded(b, std::to_string(e.events), 10, true);
            b += " events  " + std::to_string(e.firstNs) + " .. " + std::to_string(e.lastNs) + " ns\n";
        };
        for (const auto& e : engines)
            engineLine(e);
        engineLine(global);
        b += "event types (" + std::to_string(t.header.types.size()) + " declared)\n";
        for (size_t n = 0; n < counts.size(); ++n) {
            if (!counts[n])
                continue;
            b += "  ";
            appendPadded(b, std::to_string(n), 5, true);
            b += "  ";
            appendPadded(b, eventName(static_cast<uint16_t>(n)), 30, false);
            appendPadded(b, std::to_string(counts[n]), 10, true);
            b += "\n";
        }
        b += "warnings    " + std::to_string(t.warnings.size()) + "\n";
        for (const auto& w : t.warnings)
            b += "  " + w.message + " (at byte " + std::to_string(w.byteOffset) + ")\n";
        return kExitOk;
    }

    const RegisterCommand kRegistered { { "info", "summarise a trace: engines, time span, counts per type", kUsage,
        &runInfo } };

} // namespace

} // namespace sparkscope::cli
