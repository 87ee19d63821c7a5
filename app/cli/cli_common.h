#pragma once
// Shared pieces of sparkscope-cli: the command and check registries, a small argument parser, a
// buffered stdout writer, and trace loading with the CLI's error reporting.
//
// Adding a command is one registration line in its own file under app/cli/ (the directory is
// globbed by app/CMakeLists.txt):
//     static const sparkscope::cli::RegisterCommand kRegistered { { "metrics", "summary", "usage", &runMetrics } };
// Adding a check to `check` is one line too:
//     static const sparkscope::cli::RegisterCheck kRegistered { "model", &sparkscope::core::checkModel };
#include "sparkscope/core/check.h"
#include "sparkscope/core/trace.h"

#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace sparkscope::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitProblems = 1;
inline constexpr int kExitBadInput = 2; // unreadable input or bad usage

// ---- commands ----------------------------------------------------------------------------------
struct Command {
    std::string_view name;
    std::string_view summary; // one line, for the command list in --help
    std::string_view usage; // full help text of the command
    int (*run)(const std::vector<std::string>& args); // args after the command name; returns the exit code
};

struct RegisterCommand {
    explicit RegisterCommand(Command command);
};
// Every registered command, sorted by name.
const std::vector<Command>& commands();

// ---- checks run by `check` ---------------------------------------------------------------------
using TraceCheck = std::vector<core::Problem> (*)(const core::Trace&);
struct RegisteredCheck {
    std::string_view name;
    TraceCheck check;
};
struct RegisterCheck {
    RegisterCheck(std::string_view name, TraceCheck check);
};
// Every registered check, in registration order of names (sorted by name, "structure" first).
const std::vector<RegisteredCheck>& checks();

// ---- arguments ---------------------------------------------------------------------------------
struct ParsedArgs {
    std::map<std::string, std::string> values; // "--format" -> "tsv"
    std::map<std::string, std::vector<std::string>> repeated; // every value of each option, in order
    std::set<std::string> flags; // "--json"
    std::vector<std::string> positional;

    std::optional<std::string> value(const std::string& name) const
    {
        auto it = values.find(name);
        return it == values.end() ? std::nullopt : std::optional<std::string>(it->second);
    }
    bool flag(const std::string& name) const { return flags.count(name) != 0; }
    // Every value given for a repeatable option (`--scale A=2 --scale B=3`), in order.
    std::vector<std::string> all(const std::string& name) const
    {
        auto it = repeated.find(name);
        return it == repeated.end() ? std::vector<std::string>() : it->second;
    }
};

// Parses `--name value`, `--name=value` (for names in valueOptions) and `--name` (flagOptions).
// On an unknown option or a missing value prints the problem and the usage to stderr and returns
// std::nullopt. "-h"/"--help" are always accepted as flags.
std::optional<ParsedArgs> parseArgs(const std::vector<std::string>& args, const std::set<std::string>& valueOptions,
    const std::set<std::string>& flagOptions, std::string_view usage);

// True (after printing the usage to stdout) when the command was asked for --help.
bool printedHelp(const ParsedArgs& parsed, std::string_view usage);

// Prints "sparkscope-cli: <message>" and the usage to stderr; returns kExitBadInput.
int usageError(std::string_view message, std::string_view usage);

// Parses a whole unsigned decimal number.
std::optional<uint64_t> parseUnsigned(std::string_view text);

// ---- input -------------------------------------------------------------------------------------
// Reads a trace; on failure prints "sparkscope-cli: <path>: <error>" to stderr and returns nullopt.
std::optional<core::Trace> loadTrace(const std::string& path);
// The same for commands that only compute metrics and the analysis: core::readTraceCompact, which
// streams the file and holds GHC's spark events as 8-byte marks (a 2 GB log's metrics in a few GB).
// Unless `force`, a trace whose metrics would take more memory than the machine has available
// (core::compactMetricsBytes against availableMemoryBytes) is refused with the figures and what to
// do instead, rather than left to the kernel's out-of-memory killer, which says nothing.
std::optional<core::Trace> loadTraceForMetrics(const std::string& path, bool force = false);
// Whether --from/--to [fromNs, toNs) meets the trace's span; if not, says so on stderr (a range
// wholly before or after the run has no figures to give).
// Prints a reader's warnings on stderr, "sparkscope-cli: warning: MESSAGE (at byte N)": for the
// commands whose output does not carry them (show, cut, rewrite, export).
void printWarnings(const std::vector<core::Warning>& warnings);
bool rangeMeetsTrace(const core::Trace& trace, const std::string& path, uint64_t fromNs, uint64_t toNs);
// The memory a command may use: SPARKSCOPE_MEMORY_BYTES when set, else /proc/meminfo's MemAvailable
// (or, less, what the cgroup's memory.max leaves) plus what this process holds already
// (/proc/self/statm); nullopt when none can be read. The check runs after the read, whose own peak
// (the compact trace) is part of the estimate, and for the whole trace even with --from/--to (the
// model and the sweep are built for all of it).
std::optional<uint64_t> availableMemoryBytes();

// The event name shown by the CLI: the table name, or UNKNOWN_<n>.
std::string eventName(uint16_t type);

// ---- output ------------------------------------------------------------------------------------
// Buffered stdout: commands append text and the buffer is written in large chunks.
class Output {
public:
    Output() { m_buf.reserve(kChunk + 4096); }
    ~Output() { flush(); }
    Output(const Output&) = delete;
    Output& operator=(const Output&) = delete;

    std::string& buffer() noexcept { return m_buf; }
    Output& operator<<(std::string_view s)
    {
        m_buf.append(s);
        return *this;
    }
    // Call after each record: writes out the buffer once it is large.
    void maybeFlush()
    {
        if (m_buf.size() >= kChunk)
            flush();
    }
    void flush();
    bool failed() const noexcept { return m_failed; } // stdout closed (e.g. piped into head)

private:
    static constexpr size_t kChunk = 1 << 20;
    std::string m_buf;
    bool m_failed = false;
};

// A command's whole output: to FILE when `-o FILE` was given (`file`), else to stdout. Returns
// kExitOk, or kExitBadInput after printing "sparkscope-cli: <error>" when FILE cannot be written.
int writeOutput(const std::optional<std::string>& file, std::string_view text);

void appendUnsigned(std::string& out, uint64_t v);
void appendPadded(std::string& out, std::string_view text, size_t width, bool right);

} // namespace sparkscope::cli
