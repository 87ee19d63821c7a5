#include "cli/cli_common.h"

#include "sparkscope/core/compact_trace.h"
#include "sparkscope/core/event_types.h"
#include "sparkscope/core/reader.h"
#include "sparkscope/core/writer.h"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <fstream>
#include <limits>

namespace sparkscope::cli {

namespace {
    std::vector<Command>& commandList()
    {
        static std::vector<Command> list;
        return list;
    }
    std::vector<RegisteredCheck>& checkList()
    {
        static std::vector<RegisteredCheck> list;
        return list;
    }
} // namespace

RegisterCommand::RegisterCommand(Command command)
{
    auto& list = commandList();
    list.push_back(command);
    std::sort(list.begin(), list.end(), [](const Command& a, const Command& b) { return a.name < b.name; });
}

const std::vector<Command>& commands() { return commandList(); }

RegisterCheck::RegisterCheck(std::string_view name, TraceCheck check)
{
    auto& list = checkList();
    list.push_back({ name, check });
    std::sort(list.begin(), list.end(), [](const RegisteredCheck& a, const RegisteredCheck& b) {
        if ((a.name == "structure") != (b.name == "structure"))
            return a.name == "structure";
        return a.name < b.name;
    });
}

const std::vector<RegisteredCheck>& checks() { return checkList(); }

bool printedHelp(const ParsedArgs& parsed, std::string_view usage)
{
    if (!parsed.flag("--help"))
        return false;
    std::fwrite(usage.data(), 1, usage.size(), stdout);
    return true;
}

int usageError(std::string_view message, std::string_view usage)
{
    std::fprintf(stderr, "sparkscope-cli: %.*s\n\n%.*s", static_cast<int>(message.size()), message.data(),
        static_cast<int>(usage.size()), usage.data());
    return kExitBadInput;
}

std::optional<ParsedArgs> parseArgs(const std::vector<std::string>& args, const std::set<std::string>& valueOptions,
    const std::set<std::string>& flagOptions, std::string_view usage)
{
    ParsedArgs out;
    bool optionsEnded = false;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (optionsEnded || a.size() < 2 || a[0] != '-') {
            out.positional.push_back(a);
            continue;
        }
        if (a == "--") {
            optionsEnded = true;
            continue;
        }
        if (a == "-h" || a == "--help") {
            out.flags.insert("--help");
            continue;
        }
        const size_t eq = a.find('=');
        const std::string name = a.substr(0, eq);
        if (valueOptions.count(name)) {
            if (eq != std::string::npos) {
                out.values[name] = a.substr(eq + 1);
            } else if (i + 1 < args.size()) {
                out.values[name] = args[++i];
            } else {
                usageError("option " + name + " needs a value", usage);
                return std::nullopt;
            }
            out.repeated[name].push_back(out.values[name]);
        } else if (flagOptions.count(name) && eq == std::string::npos) {
            out.flags.insert(name);
        } else {
            usageError("unknown option " + a, usage);
            return std::nullopt;
        }
    }
    return out;
}

std::optional<uint64_t> parseUnsigned(std::string_view text)
{
    uint64_t v = 0;
    auto r = std::from_chars(text.data(), text.data() + text.size(), v);
    if (text.empty() || r.ec != std::errc() || r.ptr != text.data() + text.size())
        return std::nullopt;
    return v;
}

namespace {
    std::optional<core::Trace> loaded(const std::string& path, core::Result<core::Trace> result)
    {
        if (!result) {
            std::fprintf(stderr, "sparkscope-cli: %s: %s\n", path.c_str(), result.error().toString().c_str());
            return std::nullopt;
        }
        return std::move(result).value();
    }
} // namespace

std::optional<core::Trace> loadTrace(const std::string& path) { return loaded(path, core::readTrace(path)); }

std::optional<uint64_t> availableMemoryBytes()
{
    if (const char* v = std::getenv("SPARKSCOPE_MEMORY_BYTES"); v && *v)
        return parseUnsigned(v);
    std::ifstream meminfo("/proc/meminfo");
    std::string key;
    uint64_t kb = 0;
    std::optional<uint64_t> available;
    while (meminfo >> key >> kb) {
        if (key == "MemAvailable:") {
            available = kb * 1024;
            break;
        }
        meminfo.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
    }
    if (!available)
        return std::nullopt;
    // In a container MemAvailable is the host's: a cgroup's limit (v2), less what it uses, is less.
    uint64_t limit = 0, used = 0;
    if (std::ifstream max("/sys/fs/cgroup/memory.max"); max >> limit)
        if (std::ifstream current("/sys/fs/cgroup/memory.current"); current >> used && used <= limit)
            available = std::min(*available, limit - used);
    uint64_t pages = 0, resident = 0;
    if (std::ifstream statm("/proc/self/statm"); statm >> pages >> resident)
        *available += resident * uint64_t(::sysconf(_SC_PAGESIZE));
    return available;
}

std::optional<core::Trace> loadTraceForMetrics(const std::string& path, bool force)
{
    if (const char* v = std::getenv("SPARKSCOPE_MEMORY_BYTES"); v && *v && !parseUnsigned(v)) {
        std::fprintf(stderr, "sparkscope-cli: SPARKSCOPE_MEMORY_BYTES must be a whole number of bytes, not '%s'\n", v);
        return std::nullopt;
    }
    auto trace = loaded(path, core::readTraceCompact(path));
    if (!trace || force)
        return trace;
    const uint64_t need = core::compactMetricsBytes(*trace);
    const auto available = availableMemoryBytes();
    if (!available || need <= *available)
        return trace;
    auto gb = [](uint64_t bytes) {
        char text[32];
        if (bytes < 1'000'000)
            std::snprintf(text, sizeof text, "%.0f kB", double(bytes) / 1e3);
        else if (bytes < 1'000'000'000)
            std::snprintf(text, sizeof text, "%.0f MB", double(bytes) / 1e6);
        else
            std::snprintf(text, sizeof text, "%.1f GB", double(bytes) / 1e9);
        return std::string(text);
    };
    std::fprintf(stderr,
        "sparkscope-cli: %s: its metrics and analysis would take about %s of memory (%zu events), more than the "
        "%s available; measure a part of it (sparkscope-cli cut %s --from NS --to NS -o PART, then this command "
        "on PART), or pass --force to try anyway\n",
        path.c_str(), gb(need).c_str(), trace->eventCount(), gb(*available).c_str(), path.c_str());
    return std::nullopt;
}

void printWarnings(const std::vector<core::Warning>& warnings)
{
    for (const auto& w : warnings)
        std::fprintf(stderr, "sparkscope-cli: warning: %s (at byte %llu)\n", w.message.c_str(),
            static_cast<unsigned long long>(w.byteOffset));
}

bool rangeMeetsTrace(const core::Trace& trace, const std::string& path, uint64_t fromNs, uint64_t toNs)
{
    if ((fromNs == 0 && toNs == UINT64_MAX) || (fromNs <= trace.lastTimeNs && toNs > trace.firstTimeNs))
        return true; // (no range given: the whole trace, empty or not)
    std::fprintf(stderr,
        "sparkscope-cli: %s: the range %llu .. %llu ns is outside the trace, which spans %llu .. %llu ns\n",
        path.c_str(), static_cast<unsigned long long>(fromNs), static_cast<unsigned long long>(toNs),
        static_cast<unsigned long long>(trace.firstTimeNs), static_cast<unsigned long long>(trace.lastTimeNs));
    return false;
}

std::string eventName(uint16_t type)
{
    if (core::knownEventType(type))
        return std::string(core::eventTypeName(type));
    return "UNKNOWN_" + std::to_string(type);
}

void Output::flush()
{
    if (!m_failed && !m_buf.empty()) {
        if (std::fwrite(m_buf.data(), 1, m_buf.size(), stdout) != m_buf.size() || std::fflush(stdout) != 0)
            m_failed = true;
    }
    m_buf.clear();
}

int writeOutput(const std::optional<std::string>& file, std::string_view text)
{
    if (file) {
        auto written = core::writeFile(*file, { reinterpret_cast<const uint8_t*>(text.data()), text.size() });
        if (!written) {
            std::fprintf(stderr, "sparkscope-cli: %s\n", written.error().toString().c_str());
            return kExitBadInput;
        }
        return kExitOk;
    }
    Output out;
    out << text;
    return kExitOk;
}

void appendUnsigned(std::string& out, uint64_t v)
{
    char buf[24];
    auto r = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, r.ptr);
}

void appendPadded(std::string& out, std::string_view text, size_t width, bool right)
{
    const size_t pad = text.size() < width ? width - text.size() : 0;
    if (right)
        out.append(pad, ' ');
    out.append(text);
    if (!right)
        out.append(pad, ' ');
}

} // namespace sparkscope::cli
