#pragma once
// Event numbers of the GHC eventlog format (GHC's 0-212 and Mercury's 100-116) and a table of
// what SparkScope knows about each: its name, its canonical payload size and a description.
// Identify events by number (and declared size), never by the header's description text.
#include <cstdint>
#include <span>
#include <string_view>

namespace sparkscope::core {

inline constexpr uint16_t kVariableSize = 0xFFFF; // declared size of variable-length events
inline constexpr uint16_t kNoEngine = 0xFFFF; // engine of events outside per-engine blocks
// The most engines a trace's STARTUP is taken at (Trace::engines): more than any machine the tools
// meet, far fewer than a damaged count's 65,535.
inline constexpr uint16_t kMaxDeclaredEngines = 4096;

namespace ev {
    inline constexpr uint16_t CreateThread = 0;
    inline constexpr uint16_t RunThread = 1;
    inline constexpr uint16_t StopThread = 2;
    inline constexpr uint16_t ThreadRunnable = 3;
    inline constexpr uint16_t MigrateThread = 4;
    inline constexpr uint16_t RunSparkOld = 5;
    inline constexpr uint16_t StealSparkOld = 6;
    inline constexpr uint16_t Shutdown = 7;
    inline constexpr uint16_t ThreadWakeup = 8;
    inline constexpr uint16_t GcStart = 9;
    inline constexpr uint16_t GcEnd = 10;
    inline constexpr uint16_t RequestSeqGc = 11;
    inline constexpr uint16_t RequestParGc = 12;
    inline constexpr uint16_t CreateSparkOld = 13;
    inline constexpr uint16_t SparkToThreadOld = 14;
    inline constexpr uint16_t CreateSparkThread = 15;
    inline constexpr uint16_t LogMsg = 16;
    inline constexpr uint16_t Startup = 17;
    inline constexpr uint16_t BlockMarker = 18;
    inline constexpr uint16_t UserMsg = 19;
    inline constexpr uint16_t GcIdle = 20;
    inline constexpr uint16_t GcWork = 21;
    inline constexpr uint16_t GcDone = 22;
    inline constexpr uint16_t EdenVersion = 23; // Eden's VERSION and PROGRAM_INVOCATION
    inline constexpr uint16_t EdenProgramInvocation = 24;
    inline constexpr uint16_t CapsetCreate = 25;
    inline constexpr uint16_t CapsetDelete = 26;
    inline constexpr uint16_t CapsetAssignCap = 27;
    inline constexpr uint16_t CapsetRemoveCap = 28;
    inline constexpr uint16_t RtsIdentifier = 29;
    inline constexpr uint16_t ProgramArgs = 30;
    inline constexpr uint16_t ProgramEnv = 31;
    inline constexpr uint16_t OsProcessPid = 32;
    inline constexpr uint16_t OsProcessPpid = 33;
    inline constexpr uint16_t SparkCounters = 34;
    inline constexpr uint16_t SparkCreate = 35;
    inline constexpr uint16_t SparkDud = 36;
    inline constexpr uint16_t SparkOverflow = 37;
    inline constexpr uint16_t SparkRun = 38;
    inline constexpr uint16_t SparkSteal = 39;
    inline constexpr uint16_t SparkFizzle = 40;
    inline constexpr uint16_t SparkGc = 41;
    inline constexpr uint16_t InternString = 42;
    inline constexpr uint16_t WallClockTime = 43;
    inline constexpr uint16_t ThreadLabel = 44;
    inline constexpr uint16_t CapCreate = 45;
    inline constexpr uint16_t CapDelete = 46;
    inline constexpr uint16_t CapDisable = 47;
    inline constexpr uint16_t CapEnable = 48;
    inline constexpr uint16_t HeapAllocated = 49;
    inline constexpr uint16_t HeapSize = 50;
    inline constexpr uint16_t HeapLive = 51;
    inline constexpr uint16_t HeapInfoGhc = 52;
    inline constexpr uint16_t GcStatsGhc = 53;
    inline constexpr uint16_t GcGlobalSync = 54;
    inline constexpr uint16_t TaskCreate = 55;
    inline constexpr uint16_t TaskMigrate = 56;
    inline constexpr uint16_t TaskDelete = 57;
    inline constexpr uint16_t UserMarker = 58;
    inline constexpr uint16_t HackBugT9003 = 59;
    // Eden (60-69)
    inline constexpr uint16_t EdenStartReceive = 60;
    inline constexpr uint16_t EdenEndReceive = 61;
    inline constexpr uint16_t CreateProcess = 62;
    inline constexpr uint16_t KillProcess = 63;
    inline constexpr uint16_t AssignThreadToProcess = 64;
    inline constexpr uint16_t CreateMachine = 65;
    inline constexpr uint16_t KillMachine = 66;
    inline constexpr uint16_t SendMessage = 67;
    inline constexpr uint16_t ReceiveMessage = 68;
    inline constexpr uint16_t SendReceiveLocalMessage = 69;
    inline constexpr uint16_t MemReturn = 90;
    inline constexpr uint16_t BlocksSize = 91;
    // Mercury (100-116)
    inline constexpr uint16_t MerStartParConj = 100;
    inline constexpr uint16_t MerEndParConj = 101;
    inline constexpr uint16_t MerEndParConjunct = 102;
    inline constexpr uint16_t MerSparkCreate = 103;
    inline constexpr uint16_t MerFutCreate = 104;
    inline constexpr uint16_t MerFutWaitNoSuspend = 105;
    inline constexpr uint16_t MerFutWaitSuspended = 106;
    inline constexpr uint16_t MerFutSignal = 107;
    inline constexpr uint16_t MerLookingForGlobalContext = 108;
    inline constexpr uint16_t MerWorkStealing = 109;
    inline constexpr uint16_t MerReleaseContext = 110;
    inline constexpr uint16_t MerEngineSleeping = 111;
    inline constexpr uint16_t MerLookingForLocalSpark = 112;
    inline constexpr uint16_t MerCallingMain = 113;
    inline constexpr uint16_t MerSparkRun = 114;
    inline constexpr uint16_t MerSparkSteal = 115;
    inline constexpr uint16_t MerReuseContext = 116;
    // perf, heap profiling, nonmoving GC, ticky
    inline constexpr uint16_t PerfName = 140;
    inline constexpr uint16_t PerfCounter = 141;
    inline constexpr uint16_t PerfTracepoint = 142;
    inline constexpr uint16_t HeapProfBegin = 160;
    inline constexpr uint16_t HeapProfCostCentre = 161;
    inline constexpr uint16_t HeapProfSampleBegin = 162;
    inline constexpr uint16_t HeapProfSampleCostCentre = 163;
    inline constexpr uint16_t HeapProfSampleString = 164;
    inline constexpr uint16_t HeapProfSampleEnd = 165;
    inline constexpr uint16_t HeapBioProfSampleBegin = 166;
    inline constexpr uint16_t ProfSampleCostCentre = 167;
    inline constexpr uint16_t ProfBegin = 168;
    inline constexpr uint16_t Ipe = 169;
    inline constexpr uint16_t UserBinaryMsg = 181;
    inline constexpr uint16_t ConcMarkBegin = 200;
    inline constexpr uint16_t ConcMarkEnd = 201;
    inline constexpr uint16_t ConcSyncBegin = 202;
    inline constexpr uint16_t ConcSyncEnd = 203;
    inline constexpr uint16_t ConcSweepBegin = 204;
    inline constexpr uint16_t ConcSweepEnd = 205;
    inline constexpr uint16_t ConcUpdRemSetFlush = 206;
    inline constexpr uint16_t NonmovingHeapCensus = 207;
    inline constexpr uint16_t NonmovingPrunedSegments = 208;
    inline constexpr uint16_t TickyCounterDef = 210;
    inline constexpr uint16_t TickyCounterSample = 211;
    inline constexpr uint16_t TickyBeginSample = 212;
} // namespace ev

// STOP_THREAD status codes that SparkScope's runtime (like Mercury's) posts.
inline constexpr uint16_t kStopBlocked = 4;
inline constexpr uint16_t kStopFinished = 5;
inline constexpr uint16_t kStopYielding = 3;
// GHC's blocking reasons (stopStatusName in event_fields.h names each): ForeignCall (6) to
// BlockedOnMsgThrowTo (18), and BlockedOnMVarRead (20). 19 is ThreadMigrating, not a block.
inline constexpr uint16_t kStopFirstGhcBlocked = 6;
inline constexpr uint16_t kStopLastGhcBlocked = 18;
inline constexpr uint16_t kStopBlockedOnMVarRead = 20;

// The events that move a context between states (created, run, stopped, made runnable, reused,
// released): what the model's context timelines and the timeline's context lanes both follow.
constexpr bool isContextStateEvent(uint16_t type) noexcept
{
    switch (type) {
    case ev::CreateThread:
    case ev::RunThread:
    case ev::StopThread:
    case ev::ThreadRunnable:
    case ev::ThreadWakeup:
    case ev::MerReuseContext:
    case ev::MerReleaseContext:
        return true;
    default:
        return false;
    }
}

// An idle engine's search for work: the global queue (108), its own deque (112), other engines'
// deques (109).
constexpr bool isSearchEvent(uint16_t type) noexcept
{
    return type == ev::MerLookingForGlobalContext || type == ev::MerLookingForLocalSpark || type == ev::MerWorkStealing;
}

// Whether a STOP_THREAD with this status leaves the context blocked (the model's Blocked state).
constexpr bool isBlockingStopStatus(uint16_t status) noexcept
{
    return status == kStopBlocked || (status >= kStopFirstGhcBlocked && status <= kStopLastGhcBlocked)
        || status == kStopBlockedOnMVarRead;
}

struct EventTypeInfo {
    uint16_t number;
    std::string_view name; // upper-case, e.g. "RUN_THREAD"; stable, used in show/info output
    uint16_t size; // canonical payload size (the newest layout), or kVariableSize
    std::string_view description; // the description SparkScope writes in headers
};

// The table entry for `number`, or nullptr for numbers SparkScope has no decoder for.
const EventTypeInfo* knownEventType(uint16_t number) noexcept;
// The name of `number`, or "UNKNOWN_<n>" style text is left to callers: returns "UNKNOWN" here.
std::string_view eventTypeName(uint16_t number) noexcept;
// Every entry of the table, sorted by number.
std::span<const EventTypeInfo> knownEventTypes() noexcept;

} // namespace sparkscope::core
