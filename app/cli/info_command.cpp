// `sparkscope-cli info`: a summary of a trace: engines, time span, event counts per type,
// warnings; as text or (--json) as one JSON object.
#include "cli/cli_common.h"

#include "sparkscope/core/event_types.h"
#include "sparkscope/core/trace_overview.h"

#include <nlohmann/json.hpp>

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

    int runInfo(const std::vector<std::string>& args)
    {
        auto parsed = parseArgs(args, {}, { "--json" }, kUsage);
        if (!parsed)
            return kExitBadInput;
        if (printedHelp(*parsed, kUsage))
            return kExitOk;
        if (parsed->positional.size() != 1)
            return usageError(parsed->positional.empty() ? "info needs a TRACE" : "info takes one TRACE", kUsage);
        // Streamed: counting needs no more than a window of the file (a 2 GB eventlog read whole took ~7 GB).
        const std::string& path = parsed->positional.front();
        auto read = core::overviewOfFile(path);
        if (!read) {
            std::fprintf(stderr, "sparkscope-cli: %s: %s\n", path.c_str(), read.error().toString().c_str());
            return kExitBadInput;
        }
        const core::TraceOverview& t = read.value();

        Output out;
        if (parsed->flag("--json")) {
            nlohmann::json j;
            j["path"] = t.path;
            j["file_size"] = t.fileSize;
            j["compression"] = compressionName(t.compression);
            j["truncated"] = t.truncated;
            j["events"] = t.events;
            j["declared_types"] = t.declaredTypes;
            j["time_span"]
                = { { "first_ns", t.firstNs }, { "last_ns", t.lastNs }, { "duration_ns", t.lastNs - t.firstNs } };
            nlohmann::json je = nlohmann::json::array();
            for (const auto& e : t.engines)
                je.push_back({ { "engine", e.engine }, { "events", e.events }, { "first_ns", e.firstNs },
                    { "last_ns", e.lastNs } });
            j["engines"] = je;
            j["engine_count"] = t.engineCount;
            j["global_events"] = t.global.events;
            nlohmann::json jt = nlohmann::json::array();
            for (const auto& [type, count] : t.types)
                jt.push_back({ { "type", type }, { "name", eventName(type) }, { "count", count } });
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
        b += "events      " + std::to_string(t.events) + (t.truncated ? " (the file is cut short)" : "") + "\n";
        b += "time span   " + std::to_string(t.firstNs) + " .. " + std::to_string(t.lastNs) + " ns ("
            + std::to_string(t.lastNs - t.firstNs) + " ns)\n";
        b += "engines     " + std::to_string(t.engineCount);
        if (t.engines.size() != t.engineCount) // (GHC: a capability that posted nothing; STARTUP's engines)
            b += " (" + std::to_string(t.engines.size()) + " with events)";
        b += "\n";
        auto engineLine = [&](const core::TraceOverview::Source& e) {
            b += "  ";
            appendPadded(b, e.engine == core::kNoEngine ? "-" : std::to_string(e.engine), 6, true);
            b += "  ";
            appendPadded(b, std::to_string(e.events), 10, true);
            b += " events  " + std::to_string(e.firstNs) + " .. " + std::to_string(e.lastNs) + " ns\n";
        };
        for (const auto& e : t.engines)
            engineLine(e);
        engineLine(t.global);
        b += "event types (" + std::to_string(t.declaredTypes) + " declared)\n";
        for (const auto& [type, count] : t.types) {
            b += "  ";
            appendPadded(b, std::to_string(type), 5, true);
            b += "  ";
            appendPadded(b, eventName(type), 30, false);
            appendPadded(b, std::to_string(count), 10, true);
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
