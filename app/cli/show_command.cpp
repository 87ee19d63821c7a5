// `sparkscope-cli show`: every event in global time order (block markers included), as aligned
// text or as TSV lines `time_ns<TAB>engine<TAB>type<TAB>name<TAB>fields`. The events are streamed
// from the file in time order (time_ordered_events.h), so memory stays bounded on any size. Output is
// built in one large buffer with std::to_chars and the allocation-free field formatter, so dumping
// the 10-million-event sample is limited by the terminal or the pipe, not by formatting.
#include "cli/cli_common.h"

#include "sparkscope/core/event_fields.h"
#include "sparkscope/core/event_types.h"
#include "sparkscope/core/time_ordered_events.h"

#include <bitset>
#include <charconv>
#include <memory>
#include <sstream>

namespace sparkscope::cli {

namespace {

    constexpr std::string_view kUsage
        = "usage: sparkscope-cli show TRACE [--format text|tsv] [--engine N] [--type N,...] [--from NS] [--to NS]\n\n"
          "Prints every event of TRACE in time order, block markers included.\n"
          "  --format text   aligned columns for people (default)\n"
          "  --format tsv    time_ns<TAB>engine<TAB>type<TAB>name<TAB>fields, engine '-' outside blocks\n"
          "  --engine N      only engine N ('-' for events outside per-engine blocks)\n"
          "  --type N,...    only these event types (numbers or names such as RUN_THREAD)\n"
          "  --from NS       only events at or after NS nanoseconds\n"
          "  --to NS         only events at or before NS nanoseconds\n"
          "Fields are key=value pairs separated by spaces; text is escaped (\\t \\n \\xNN) and quoted when it\n"
          "contains spaces.\n";

    std::optional<uint16_t> parseType(const std::string& item)
    {
        if (auto n = parseUnsigned(item); n && *n <= 0xFFFF)
            return static_cast<uint16_t>(*n);
        for (const auto& t : core::knownEventTypes())
            if (t.name == item)
                return t.number;
        if (item.rfind("UNKNOWN_", 0) == 0)
            if (auto n = parseUnsigned(std::string_view(item).substr(8)); n && *n <= 0xFFFF)
                return static_cast<uint16_t>(*n);
        return std::nullopt;
    }

    int runShow(const std::vector<std::string>& args)
    {
        auto parsed = parseArgs(args, { "--format", "--engine", "--type", "--from", "--to" }, {}, kUsage);
        if (!parsed)
            return kExitBadInput;
        if (printedHelp(*parsed, kUsage))
            return kExitOk;
        if (parsed->positional.size() != 1)
            return usageError(parsed->positional.empty() ? "show needs a TRACE" : "show takes one TRACE", kUsage);

        const std::string format = parsed->value("--format").value_or("text");
        if (format != "text" && format != "tsv")
            return usageError("--format must be text or tsv, not '" + format + "'", kUsage);
        const bool tsv = format == "tsv";

        std::optional<uint16_t> engine; // kNoEngine selects the global events
        if (auto e = parsed->value("--engine")) {
            if (*e == "-") {
                engine = core::kNoEngine;
            } else if (auto n = parseUnsigned(*e); n && *n < core::kNoEngine) {
                engine = static_cast<uint16_t>(*n);
            } else {
                return usageError("--engine must be an engine number or '-', not '" + *e + "'", kUsage);
            }
        }

        auto types = std::make_unique<std::bitset<65536>>();
        bool filterTypes = false;
        if (auto list = parsed->value("--type")) {
            filterTypes = true;
            std::stringstream ss(*list);
            std::string item;
            while (std::getline(ss, item, ',')) {
                auto t = parseType(item);
                if (!t)
                    return usageError("--type: '" + item + "' is not an event number or name", kUsage);
                types->set(*t);
            }
        }
        uint64_t fromNs = 0, toNs = UINT64_MAX;
        for (auto [name, target] : { std::pair { "--from", &fromNs }, std::pair { "--to", &toNs } }) {
            if (auto v = parsed->value(name)) {
                auto n = parseUnsigned(*v);
                if (!n)
                    return usageError(std::string(name) + " must be a number of nanoseconds, not '" + *v + "'", kUsage);
                *target = *n;
            }
        }

        // Streamed (time_ordered_events.h): printing needs the blocks that overlap the time being
        // printed, not the whole trace (a 2 GB eventlog read whole took ~7 GB).
        core::TimeOrderOptions options;
        options.engine = engine;
        options.fromNs = fromNs;
        options.toNs = toNs;
        Output out;
        std::string& buf = out.buffer();
        auto print = [&](const core::Event& e, const core::Payload& payload) {
            if (filterTypes && !types->test(e.type))
                return !out.failed();
            const std::string_view name = core::eventTypeName(e.type);
            const bool known = core::knownEventType(e.type) != nullptr;
            if (tsv) {
                appendUnsigned(buf, e.timeNs);
                buf.push_back('\t');
                if (e.hasEngine())
                    appendUnsigned(buf, e.engine);
                else
                    buf.push_back('-');
                buf.push_back('\t');
                appendUnsigned(buf, e.type);
                buf.push_back('\t');
                if (known)
                    buf.append(name);
                else
                    buf.append("UNKNOWN_").append(std::to_string(e.type));
                buf.push_back('\t');
                core::appendFields(buf, e.type, payload);
            } else {
                char num[24];
                auto r = std::to_chars(num, num + sizeof num, e.timeNs);
                appendPadded(buf, std::string_view(num, r.ptr - num), 15, true);
                buf.append("  ");
                if (e.hasEngine()) {
                    r = std::to_chars(num, num + sizeof num, e.engine);
                    appendPadded(buf, std::string_view(num, r.ptr - num), 5, true);
                } else {
                    appendPadded(buf, "-", 5, true);
                }
                buf.append("  ");
                r = std::to_chars(num, num + sizeof num, e.type);
                appendPadded(buf, std::string_view(num, r.ptr - num), 5, true);
                buf.push_back(' ');
                const std::string shown = known ? std::string(name) : eventName(e.type);
                appendPadded(buf, shown, 30, false);
                buf.push_back(' ');
                core::appendFields(buf, e.type, payload);
                while (!buf.empty() && buf.back() == ' ')
                    buf.pop_back();
            }
            buf.push_back('\n');
            out.maybeFlush();
            return !out.failed();
        };
        const std::string& path = parsed->positional.front();
        auto read = core::forEachEventInTimeOrder(path, print, options);
        out.flush();
        if (!read) {
            std::fprintf(stderr, "sparkscope-cli: %s: %s\n", path.c_str(), read.error().toString().c_str());
            return kExitBadInput;
        }
        printWarnings(read->warnings);
        out.flush();
        return kExitOk;
    }

    const RegisterCommand kRegistered { { "show", "print every event in time order (text or TSV)", kUsage, &runShow } };

} // namespace

} // namespace sparkscope::cli
