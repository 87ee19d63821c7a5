// `sparkscope-cli calibrate T1 T2`: the what-if's contention coefficient from a pair of traces of one
// program, one on 1 engine and one on more (core/calibration.h, docs/analysis.md "A coefficient from a
// pair of traces"), with each trace's prediction of the other's wall time without and with it. The text
// report is a costs file (its lines '#' comments but the keys), so `-o FILE` writes what
// `analyze --costs FILE` reads; `analyze --contention C` takes the coefficient alone.
#include "cli/cli_common.h"
#include "cli/text_table.h"

#include "sparkscope/core/calibration.h"

#include <charconv>

namespace sparkscope::cli {

namespace {

    constexpr std::string_view kUsage
        = "usage: sparkscope-cli calibrate TRACE TRACE [--format text|json] [-o FILE]\n\n"
          "The contention coefficient of the what-if re-simulation (how much slower the program's code runs\n"
          "while other engines run too) from two traces of one program on one machine: one recorded on 1\n"
          "engine (pinned to one core: taskset -c 0) and one on more, in either order. The coefficient is the\n"
          "one with which the many-engine trace predicts the 1-engine run's wall time; each trace's\n"
          "prediction of the other's wall time is shown without and with it. Use it with\n"
          "'analyze TRACE --contention C' (each trace's own measured costs), or write the text report with\n"
          "-o FILE: it is a costs file ('#' comments, then the many-engine trace's costs and the\n"
          "coefficient) for 'analyze TRACE --costs FILE'. See docs/analysis.md.\n"
          "  --format      text (default): the report, as a costs file; json: for scripts (docs/cli.md)\n"
          "  -o FILE       write to FILE instead of stdout\n";

    // The shortest text that reads back as exactly `v`: what --contention needs to repeat the predictions.
    std::string exact(double v)
    {
        char buf[32];
        return std::string(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
    }

    std::string errorPercent(uint64_t predicted, uint64_t recorded)
    {
        return recorded ? format("%+.1f", 100.0 * (double(predicted) - double(recorded)) / double(recorded)) : "-";
    }

    // A table's lines as '#' comments.
    void appendCommented(std::string& out, const Table& table)
    {
        std::string lines;
        table.appendTo(lines);
        for (size_t at = 0; at < lines.size();) {
            const size_t end = lines.find('\n', at);
            out += '#';
            out.append(lines, at, end - at + 1);
            at = end + 1;
        }
    }

    std::string textReport(const core::ContentionCalibration& c)
    {
        std::string out = "# sparkscope-cli calibrate: the what-if's contention coefficient from a pair of traces\n"
                          "# of one program (docs/analysis.md, \"A coefficient from a pair of traces\").\n#\n";
        Table runs;
        runs.row({ "trace", "engines", "recorded wall s", "work s" });
        for (const core::CalibrationRun* r : { &c.one, &c.many })
            runs.row({ r->path, std::to_string(r->engines), seconds(r->recordedWallNs), seconds(r->workNs) });
        appendCommented(out, runs);
        const std::string coefficient = exact(c.coefficient);
        out += "#\n# contention = " + coefficient + (c.reached ? "" : " (the bound: not reached)")
            + "\n#   the coefficient with which the " + std::to_string(c.many.engines)
            + "-engine trace predicts the 1-engine run's wall time\n#\n";
        out += "# Cross-predictions, each trace's what-if with its own measured costs, without the coefficient\n"
               "# (sparkscope-cli analyze TRACE) and with it (analyze TRACE --contention "
            + coefficient + ");\n# error = (predicted - recorded) / recorded:\n";
        Table t;
        t.row({ "prediction", "recorded s", "without s", "error %", "with s", "error %" });
        for (auto [r, other] : { std::pair { &c.one, &c.many }, std::pair { &c.many, &c.one } })
            t.row({ std::to_string(r->engines) + " -> " + std::to_string(r->predictsEngines) + " engines",
                seconds(other->recordedWallNs), seconds(r->predictedNs),
                errorPercent(r->predictedNs, other->recordedWallNs), seconds(r->predictedWithNs),
                errorPercent(r->predictedWithNs, other->recordedWallNs) });
        appendCommented(out, t);
        if (!c.notes.empty()) {
            out += "#\n# Notes:\n";
            for (const std::string& n : c.notes)
                out += "#   - " + n + "\n";
        }
        out += "#\n" + core::calibrationCostsText(c);
        return out;
    }

    int runCalibrate(const std::vector<std::string>& args)
    {
        auto parsed = parseArgs(args, { "--format", "-o" }, {}, kUsage);
        if (!parsed)
            return kExitBadInput;
        if (printedHelp(*parsed, kUsage))
            return kExitOk;
        if (parsed->positional.size() != 2)
            return usageError("calibrate takes two traces: one recorded on 1 engine and one on more", kUsage);
        const std::string format = parsed->value("--format").value_or("text");
        if (format != "text" && format != "json")
            return usageError("--format must be text or json, not '" + format + "'", kUsage);

        std::vector<core::CalibrationInput> inputs;
        for (const std::string& path : parsed->positional) {
            auto in = core::loadCalibrationInput(path);
            if (!in) {
                std::fprintf(stderr, "sparkscope-cli: %s\n", in.error().toString().c_str());
                return kExitBadInput;
            }
            inputs.push_back(std::move(in).value());
        }
        const auto calibration = core::calibrateContention(inputs[0], inputs[1]);
        if (!calibration) {
            std::fprintf(stderr, "sparkscope-cli: calibrate: %s\n", calibration.error().toString().c_str());
            return kExitBadInput;
        }
        return writeOutput(parsed->value("-o"),
            format == "json" ? core::calibrationToJson(calibration.value()) : textReport(calibration.value()));
    }

    const RegisterCommand kRegistered { { "calibrate",
        "the what-if's contention coefficient from a trace on 1 engine and one on more", kUsage, &runCalibrate } };

} // namespace

} // namespace sparkscope::cli
