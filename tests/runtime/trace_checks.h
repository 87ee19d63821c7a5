#pragma once
// Invariants of a trace written by SparkScope's runtime, checked directly on the decoded events
// (in global time order): every conjunction that starts ends once, after its conjuncts; each spark
// is created once and run at most once; a context runs on one engine at a time and an engine runs
// one context at a time; a future is signalled once; every blocked context runs again.
#include "sparkscope/core/reader.h"

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace sparkscope::test {

struct RuntimeTraceSummary {
    std::vector<std::string> problems;
    std::map<uint16_t, uint64_t> counts; // events per type
    uint64_t conjunctions = 0;
    uint64_t conjunctEnds = 0;
};

inline RuntimeTraceSummary checkRuntimeTrace(const core::Trace& trace)
{
    using namespace core;
    RuntimeTraceSummary s;
    auto problem = [&](const Event& e, const std::string& what) {
        if (s.problems.size() < 20)
            s.problems.push_back(what + " at t=" + std::to_string(e.timeNs) + " engine " + std::to_string(e.engine));
    };
    std::map<uint64_t, uint64_t> openConj; // dyn id -> conjunct ends so far
    std::set<uint32_t> created, ran;
    std::map<uint32_t, uint16_t> running; // context -> engine
    std::map<uint16_t, uint32_t> engineRuns; // engine -> context
    std::map<uint64_t, bool> futures; // future id -> signalled
    std::set<uint32_t> blocked; // contexts stopped with status blocked, not yet run again
    trace.forEachInTimeOrder([&](const Event& e) {
        ++s.counts[e.type];
        Payload p = trace.payload(e);
        switch (e.type) {
        case ev::MerStartParConj:
            if (openConj.count(p.u64(0)))
                problem(e, "conjunction started twice");
            openConj[p.u64(0)] = 0;
            ++s.conjunctions;
            break;
        case ev::MerEndParConjunct:
            if (!openConj.count(p.u64(0)))
                problem(e, "conjunct ends outside its conjunction");
            else
                ++openConj[p.u64(0)];
            ++s.conjunctEnds;
            break;
        case ev::MerEndParConj:
            if (!openConj.count(p.u64(0)))
                problem(e, "conjunction ends without starting");
            else if (openConj[p.u64(0)] < 2)
                problem(e, "conjunction ends before its conjuncts");
            openConj.erase(p.u64(0));
            break;
        case ev::MerSparkCreate:
            if (!created.insert(p.u32(8)).second)
                problem(e, "spark created twice");
            break;
        case ev::MerSparkRun:
        case ev::MerSparkSteal: {
            uint32_t id = e.type == ev::MerSparkRun ? p.u32(0) : p.u32(2);
            if (!created.count(id))
                problem(e, "spark run before it was created");
            if (!ran.insert(id).second)
                problem(e, "spark run twice");
            if (e.type == ev::MerSparkSteal && p.u16(0) != (id >> 24))
                problem(e, "steal victim is not the spark's engine");
            break;
        }
        case ev::RunThread: {
            uint32_t c = p.u32(0);
            if (running.count(c))
                problem(e, "context runs on two engines");
            if (engineRuns.count(e.engine))
                problem(e, "engine runs two contexts");
            running[c] = e.engine;
            engineRuns[e.engine] = c;
            blocked.erase(c);
            break;
        }
        case ev::StopThread: {
            uint32_t c = p.u32(0);
            auto it = running.find(c);
            if (it == running.end() || it->second != e.engine)
                problem(e, "context stops where it does not run");
            running.erase(c);
            engineRuns.erase(e.engine);
            if (p.u16(4) == kStopBlocked)
                blocked.insert(c);
            break;
        }
        case ev::MerFutCreate:
            futures[p.u64(0)] = false;
            break;
        case ev::MerFutSignal:
            if (!futures.count(p.u64(0)))
                problem(e, "unknown future signalled");
            else if (futures[p.u64(0)])
                problem(e, "future signalled twice");
            futures[p.u64(0)] = true;
            break;
        default:
            break;
        }
    });
    if (!openConj.empty())
        s.problems.push_back(std::to_string(openConj.size()) + " conjunctions never ended");
    if (!blocked.empty())
        s.problems.push_back(std::to_string(blocked.size()) + " blocked contexts never ran again");
    if (!running.empty())
        s.problems.push_back(std::to_string(running.size()) + " contexts still running at the end");
    if (trace.truncated)
        s.problems.push_back("trace has no DATA_END");
    return s;
}

} // namespace sparkscope::test
