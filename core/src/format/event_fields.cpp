// Field decoding (see event_fields.h). One decoder walks a payload with a cursor that emits each
// field only if its bytes are there; whatever is left at the end is shown as `extra=<hex>`. That
// single rule covers most old and new layouts (STOP_THREAD without info, GC_STATS_GHC without
// par_balanced_copied, fields added at the end by newer GHCs), so only layouts whose *leading*
// fields changed (NONMOVING_HEAP_CENSUS, TICKY_COUNTER_DEF, Mercury's OSPROCESS_PID, RUN_SPARK and
// STEAL_SPARK) look at the size explicitly.
//
// The decoder writes to a Sink: one sink appends `key=value` text directly to the caller's string
// (the `show` hot path: no per-field allocation, numbers via std::to_chars), the other collects
// Field values for programmatic use.
#include "sparkscope/core/event_fields.h"

#include <charconv>
#include <optional>
#include <span>

namespace sparkscope::core {

namespace {

    constexpr char kHexDigits[] = "0123456789abcdef";

    void appendDecimal(std::string& out, uint64_t v)
    {
        char buf[24];
        auto r = std::to_chars(buf, buf + sizeof buf, v);
        out.append(buf, r.ptr);
    }

    void appendHex(std::string& out, uint64_t v)
    {
        char buf[24];
        buf[0] = '0';
        buf[1] = 'x';
        auto r = std::to_chars(buf + 2, buf + sizeof buf, v, 16);
        out.append(buf, r.ptr);
    }

    void appendHexBytes(std::string& out, std::span<const uint8_t> bytes)
    {
        const size_t at = out.size();
        out.resize(at + 2 * bytes.size());
        char* p = out.data() + at;
        for (uint8_t b : bytes) {
            *p++ = kHexDigits[b >> 4];
            *p++ = kHexDigits[b & 15];
        }
    }

    bool needsQuotes(std::string_view escaped)
    {
        return escaped.empty() || escaped.find(' ') != std::string_view::npos;
    }

    // Where decoded fields go.
    class Sink {
    public:
        virtual ~Sink() = default;
        virtual void number(std::string_view key, uint64_t v) = 0;
        virtual void hex(std::string_view key, uint64_t v) = 0;
        virtual void word(std::string_view key, std::string_view v) = 0; // known-safe text (names)
        virtual void text(std::string_view key, std::string_view raw) = 0; // escaped on output
        virtual void bytes(std::string_view key, std::span<const uint8_t> v) = 0;
    };

    class StringSink final : public Sink {
    public:
        explicit StringSink(std::string& out)
            : m_out(out)
        {
        }
        void number(std::string_view key, uint64_t v) override
        {
            start(key);
            appendDecimal(m_out, v);
        }
        void hex(std::string_view key, uint64_t v) override
        {
            start(key);
            appendHex(m_out, v);
        }
        void word(std::string_view key, std::string_view v) override
        {
            start(key);
            m_out.append(v);
        }
        void text(std::string_view key, std::string_view raw) override
        {
            start(key);
            const size_t at = m_out.size();
            appendEscaped(m_out, raw);
            if (needsQuotes(std::string_view(m_out).substr(at))) {
                m_out.insert(m_out.begin() + static_cast<std::ptrdiff_t>(at), '"');
                m_out.push_back('"');
            }
        }
        void bytes(std::string_view key, std::span<const uint8_t> v) override
        {
            start(key);
            appendHexBytes(m_out, v);
        }

    private:
        void start(std::string_view key)
        {
            if (m_any)
                m_out.push_back(' ');
            m_any = true;
            m_out.append(key);
            m_out.push_back('=');
        }
        std::string& m_out;
        bool m_any = false;
    };

    class VectorSink final : public Sink {
    public:
        std::vector<Field> fields;
        void number(std::string_view key, uint64_t v) override { appendDecimal(add(key), v); }
        void hex(std::string_view key, uint64_t v) override { appendHex(add(key), v); }
        void word(std::string_view key, std::string_view v) override { add(key).append(v); }
        void text(std::string_view key, std::string_view raw) override { appendEscaped(add(key), raw); }
        void bytes(std::string_view key, std::span<const uint8_t> v) override { appendHexBytes(add(key), v); }

    private:
        std::string& add(std::string_view key)
        {
            fields.push_back({ key, {} });
            return fields.back().value;
        }
    };

    // Reads fields in order; a field whose bytes are missing is not emitted (and stops the walk).
    class Cursor {
    public:
        Cursor(const Payload& p, Sink& sink)
            : m_p(p)
            , m_sink(sink)
        {
        }
        bool has(size_t n) const { return m_ok && m_at + n <= m_p.size(); }
        size_t remaining() const { return m_at < m_p.size() ? m_p.size() - m_at : 0; }

        bool u8(std::string_view key) { return num(key, 1); }
        bool u16(std::string_view key) { return num(key, 2); }
        bool u32(std::string_view key) { return num(key, 4); }
        bool u64(std::string_view key) { return num(key, 8); }
        bool hex32(std::string_view key)
        {
            if (!take(4))
                return false;
            m_sink.hex(key, m_p.u32(m_at - 4));
            return true;
        }
        bool hex64(std::string_view key)
        {
            if (!take(8))
                return false;
            m_sink.hex(key, m_p.u64(m_at - 8));
            return true;
        }
        // Reads a number without emitting it (for values that pick a name or a count).
        std::optional<uint64_t> peek(size_t width) const
        {
            if (!has(width))
                return std::nullopt;
            switch (width) {
            case 1:
                return m_p.u8(m_at);
            case 2:
                return m_p.u16(m_at);
            case 4:
                return m_p.u32(m_at);
            default:
                return m_p.u64(m_at);
            }
        }
        // A NUL-terminated string (or the rest of the payload when the NUL is missing).
        bool cstring(std::string_view key)
        {
            if (!m_ok || m_at >= m_p.size()) {
                m_ok = false;
                return false;
            }
            const std::string_view rest = m_p.text(m_at);
            const size_t nul = rest.find('\0');
            const std::string_view s = rest.substr(0, nul);
            m_sink.text(key, s);
            m_at += s.size() + (nul == std::string_view::npos ? 0 : 1);
            return true;
        }
        // The rest of the payload, minus `keep` trailing bytes, as text.
        void restText(std::string_view key, size_t keep = 0)
        {
            if (!m_ok)
                return;
            const size_t n = remaining() > keep ? remaining() - keep : 0;
            m_sink.text(key, m_p.text(m_at).substr(0, n));
            m_at += n;
        }
        void restBytes(std::string_view key)
        {
            if (m_ok && remaining() > 0)
                m_sink.bytes(key, m_p.bytes().subspan(m_at));
            m_at = m_p.size();
        }
        void skip(size_t n) { m_at += n; }
        // Trailing bytes past the known layout.
        void finish()
        {
            if (remaining() > 0) // past the layout, or a field cut short
                m_sink.bytes("extra", m_p.bytes().subspan(m_at));
        }
        Sink& sink() { return m_sink; }

    private:
        bool take(size_t n)
        {
            if (!has(n)) {
                m_ok = false;
                return false;
            }
            m_at += n;
            return true;
        }
        bool num(std::string_view key, size_t width)
        {
            const auto v = peek(width);
            if (!v) {
                m_ok = false;
                return false;
            }
            m_at += width;
            m_sink.number(key, *v);
            return true;
        }
        const Payload& m_p;
        Sink& m_sink;
        size_t m_at = 0;
        bool m_ok = true;
    };

    void stopStatus(Cursor& c)
    {
        const auto status = c.peek(2);
        if (!c.u16("status"))
            return;
        c.sink().word("reason", stopStatusName(static_cast<uint16_t>(*status)));
    }

    // Strings separated (and, in GHC's files, terminated) by NUL: one `key=` per string.
    void stringVector(Cursor& c, std::string_view key)
    {
        while (c.remaining() > 0 && c.cstring(key)) { }
    }

    void decode(uint16_t type, const Payload& p, Sink& sink)
    {
        Cursor c(p, sink);
        const size_t size = p.size();
        switch (type) {
        case ev::CreateThread:
        case ev::RunThread:
        case ev::ThreadRunnable:
            c.u32("thread");
            break;
        case ev::StopThread:
            // 10 bytes (GHC >= 7.7): thread, status, info (blocking thread); 6 bytes (old GHC, Mercury): no info.
            c.u32("thread");
            stopStatus(c);
            c.u32("info");
            break;
        case ev::MigrateThread:
            c.u32("thread") && c.u16("new_cap");
            break;
        case ev::RunSparkOld:
            // GHC 6.12: thread; Mercury before 2011: thread, spark id (8 bytes).
            c.u32("thread");
            if (size >= 8)
                c.hex32("spark");
            break;
        case ev::StealSparkOld:
            // GHC 6.12: thread, victim cap; Mercury before 2011: thread, victim engine, spark id (10 bytes).
            c.u32("thread") && c.u16("victim_cap");
            if (size >= 10)
                c.hex32("spark");
            break;
        case ev::ThreadWakeup:
            c.u32("thread") && c.u16("other_cap");
            break;
        case ev::CreateSparkThread:
            c.u32("spark_thread");
            break;
        case ev::LogMsg:
        case ev::UserMsg:
        case ev::UserMarker:
        case ev::EdenVersion:
        case ev::EdenProgramInvocation:
            c.restText("message");
            break;
        case ev::Startup:
            c.u16("n_caps");
            break;
        case ev::BlockMarker:
            c.u32("size") && c.u64("end_time") && c.u16("cap");
            break;
        case ev::CapsetCreate: {
            c.u32("capset");
            const auto t = c.peek(2);
            if (c.u16("type"))
                sink.word("type_name", capsetTypeName(static_cast<uint16_t>(*t)));
            break;
        }
        case ev::CapsetDelete:
            c.u32("capset");
            break;
        case ev::CapsetAssignCap:
        case ev::CapsetRemoveCap:
            c.u32("capset") && c.u16("cap");
            break;
        case ev::RtsIdentifier:
            c.u32("capset");
            c.restText("name");
            break;
        case ev::ProgramArgs:
            c.u32("capset");
            stringVector(c, "arg");
            break;
        case ev::ProgramEnv:
            c.u32("capset");
            stringVector(c, "env");
            break;
        case ev::OsProcessPid:
            if (size == 4) { // Mercury declares OSPROCESS_PID as the pid alone
                c.u32("pid");
                break;
            }
            c.u32("capset") && c.u32("pid");
            break;
        case ev::OsProcessPpid:
            if (size == 4) {
                c.u32("ppid");
                break;
            }
            c.u32("capset") && c.u32("ppid");
            break;
        case ev::SparkCounters:
            // GC'd precedes fizzled on the wire.
            c.u64("created") && c.u64("dud") && c.u64("overflowed") && c.u64("converted") && c.u64("gcd")
                && c.u64("fizzled") && c.u64("remaining");
            break;
        case ev::SparkSteal:
            c.u16("victim_cap");
            break;
        case ev::InternString:
            // Text first, then the u32 id in the last 4 bytes.
            if (size >= 4) {
                c.restText("text", 4);
                c.u32("id");
            }
            break;
        case ev::WallClockTime:
            c.u32("capset") && c.u64("sec") && c.u32("nsec");
            break;
        case ev::ThreadLabel:
            c.u32("thread");
            c.restText("label");
            break;
        case ev::CapCreate:
        case ev::CapDelete:
        case ev::CapDisable:
        case ev::CapEnable:
            c.u16("cap");
            break;
        case ev::HeapAllocated:
            c.u32("heap_capset") && c.u64("alloc_bytes");
            break;
        case ev::HeapSize:
            c.u32("heap_capset") && c.u64("size_bytes");
            break;
        case ev::HeapLive:
            c.u32("heap_capset") && c.u64("live_bytes");
            break;
        case ev::HeapInfoGhc:
            c.u32("heap_capset") && c.u16("gens") && c.u64("max_heap_size") && c.u64("alloc_area_size")
                && c.u64("mblock_size") && c.u64("block_size");
            break;
        case ev::GcStatsGhc:
            // 50 bytes (older GHC) or 58 (par_balanced_copied added).
            c.u32("heap_capset") && c.u16("gen") && c.u64("copied") && c.u64("slop") && c.u64("frag")
                && c.u32("par_n_threads") && c.u64("par_max_copied") && c.u64("par_tot_copied")
                && c.u64("par_balanced_copied");
            break;
        case ev::TaskCreate:
            c.u64("task") && c.u16("cap") && c.u64("tid");
            break;
        case ev::TaskMigrate:
            c.u64("task") && c.u16("cap") && c.u16("new_cap");
            break;
        case ev::TaskDelete:
            c.u64("task");
            break;
        case ev::CreateProcess:
        case ev::KillProcess:
            c.u32("process");
            break;
        case ev::AssignThreadToProcess:
            c.u32("thread") && c.u32("process");
            break;
        case ev::CreateMachine:
            c.u16("machine") && c.u64("realtime");
            break;
        case ev::KillMachine:
            c.u16("machine");
            break;
        case ev::SendMessage:
            c.u8("tag") && c.u32("sender_process") && c.u32("sender_thread") && c.u16("receiver_machine")
                && c.u32("receiver_process") && c.u32("receiver_inport");
            break;
        case ev::ReceiveMessage:
            c.u8("tag") && c.u32("receiver_process") && c.u32("receiver_inport") && c.u16("sender_machine")
                && c.u32("sender_process") && c.u32("sender_thread") && c.u32("message_size");
            break;
        case ev::SendReceiveLocalMessage:
            c.u8("tag") && c.u32("sender_process") && c.u32("sender_thread") && c.u32("receiver_process")
                && c.u32("receiver_inport");
            break;
        case ev::MemReturn:
            c.u32("capset") && c.u32("current") && c.u32("needed") && c.u32("returned");
            break;
        case ev::BlocksSize:
            c.u32("heap_capset") && c.u64("size_bytes");
            break;
        // Mercury
        case ev::MerStartParConj:
            c.hex64("dyn_id") && c.u32("static_id");
            break;
        case ev::MerEndParConj:
        case ev::MerEndParConjunct:
            c.hex64("dyn_id");
            break;
        case ev::MerSparkCreate:
            c.hex64("dyn_id") && c.hex32("spark");
            break;
        case ev::MerFutCreate:
            c.hex64("future") && c.u32("name_id");
            break;
        case ev::MerFutWaitNoSuspend:
        case ev::MerFutWaitSuspended:
        case ev::MerFutSignal:
            c.hex64("future");
            break;
        case ev::MerReleaseContext:
            c.u32("context");
            break;
        case ev::MerSparkRun:
            c.hex32("spark");
            break;
        case ev::MerSparkSteal:
            c.u16("victim_engine") && c.hex32("spark");
            break;
        case ev::MerReuseContext:
            c.u32("context") && c.u32("old_context");
            break;
        // perf
        case ev::PerfName:
            c.u32("perf_num");
            c.restText("name");
            break;
        case ev::PerfCounter:
            c.u32("perf_num") && c.u64("tid") && c.u64("period");
            break;
        case ev::PerfTracepoint:
            c.u32("perf_num") && c.u64("tid");
            break;
        // heap and time profiling
        case ev::HeapProfBegin: {
            c.u8("profile");
            c.u64("sampling_period");
            const auto breakdown = c.peek(4);
            if (c.u32("breakdown"))
                sink.word("breakdown_name", heapProfBreakdownName(static_cast<uint32_t>(*breakdown)));
            c.cstring("module_filter") && c.cstring("closure_descr_filter") && c.cstring("type_descr_filter")
                && c.cstring("cost_centre_filter") && c.cstring("cost_centre_stack_filter")
                && c.cstring("retainer_filter") && c.cstring("biography_filter");
            break;
        }
        case ev::HeapProfCostCentre:
            c.u32("cc") && c.cstring("label") && c.cstring("module") && c.cstring("srcloc") && c.u8("flags");
            break;
        case ev::HeapProfSampleBegin:
        case ev::HeapProfSampleEnd:
            c.u64("era");
            break;
        case ev::HeapBioProfSampleBegin:
            c.u64("era") && c.u64("time");
            break;
        case ev::HeapProfSampleCostCentre:
        case ev::ProfSampleCostCentre: {
            if (type == ev::HeapProfSampleCostCentre)
                c.u8("profile") && c.u64("residency");
            else
                c.u32("cap") && c.u64("ticks");
            const auto depth = c.peek(1);
            if (!c.u8("depth"))
                break;
            for (uint64_t i = 0; i < *depth && c.u32("cc"); ++i) { }
            break;
        }
        case ev::HeapProfSampleString:
            c.u8("profile") && c.u64("residency") && c.cstring("label");
            break;
        case ev::ProfBegin:
            c.u64("tick_interval");
            break;
        case ev::Ipe:
            c.hex64("info") && c.cstring("table_name") && c.cstring("closure_desc") && c.cstring("ty_desc")
                && c.cstring("label") && c.cstring("module") && c.cstring("srcloc");
            // Newer GHCs split the source location: keep any further strings.
            stringVector(c, "str");
            break;
        case ev::UserBinaryMsg:
            c.restBytes("bytes");
            break;
        // nonmoving GC
        case ev::ConcMarkEnd:
            c.u32("marked");
            break;
        case ev::ConcUpdRemSetFlush:
            c.u16("cap");
            break;
        case ev::NonmovingHeapCensus:
            // 13 bytes: log2 of the block size as u8; 14 bytes (GHC >= 9.10): the block size as u16.
            if (size == 13)
                c.u8("blk_size_log2");
            else
                c.u16("blk_size");
            c.u32("active_segs") && c.u32("filled_segs") && c.u32("live_blocks");
            break;
        case ev::NonmovingPrunedSegments:
            c.u32("pruned") && c.u32("free");
            break;
        // ticky
        case ev::TickyCounterDef:
            // id, arity, kinds, name; newer GHCs add the info table and a JSON description.
            c.u64("id") && c.u16("arity") && c.cstring("kinds") && c.cstring("name");
            if (c.remaining() > 0)
                c.hex64("itbl") && c.cstring("json");
            break;
        case ev::TickyCounterSample:
            c.u64("id") && c.u64("entries") && c.u64("allocs") && c.u64("allocd");
            break;
        default:
            if (knownEventType(type)) // a known event without payload fields (GC_START, SPARK_RUN, ...)
                break;
            c.restBytes("bytes");
            return;
        }
        c.finish();
    }

} // namespace

std::vector<Field> decodeFields(uint16_t type, const Payload& payload)
{
    VectorSink sink;
    decode(type, payload, sink);
    return std::move(sink.fields);
}

std::vector<Field> decodeFields(const Trace& trace, const Event& event)
{
    return decodeFields(event.type, trace.payload(event));
}

void appendFields(std::string& out, uint16_t type, const Payload& payload)
{
    StringSink sink(out);
    decode(type, payload, sink);
}

std::string formatFields(const Trace& trace, const Event& event)
{
    std::string out;
    appendFields(out, event.type, trace.payload(event));
    return out;
}

std::string_view stopStatusName(uint16_t status) noexcept
{
    switch (status) {
    case 0:
        return "NoStatus";
    case 1:
        return "HeapOverflow";
    case 2:
        return "StackOverflow";
    case 3:
        return "ThreadYielding";
    case 4:
        return "ThreadBlocked";
    case 5:
        return "ThreadFinished";
    case 6:
        return "ForeignCall";
    case 7:
        return "BlockedOnMVar";
    case 8:
        return "BlockedOnBlackHole";
    case 9:
        return "BlockedOnRead";
    case 10:
        return "BlockedOnWrite";
    case 11:
        return "BlockedOnDelay";
    case 12:
        return "BlockedOnSTM";
    case 13:
        return "BlockedOnDoProc";
    case 16:
        return "BlockedOnCCall";
    case 17:
        return "BlockedOnCCall_Interruptible";
    case 18:
        return "BlockedOnMsgThrowTo";
    case 19:
        return "ThreadMigrating";
    case 20:
        return "BlockedOnMVarRead";
    default:
        return "Unknown";
    }
}

std::string_view capsetTypeName(uint16_t type) noexcept
{
    switch (type) {
    case 1:
        return "Custom";
    case 2:
        return "OsProcess";
    case 3:
        return "ClockDomain";
    default:
        return "Unknown";
    }
}

std::string_view heapProfBreakdownName(uint32_t breakdown) noexcept
{
    static constexpr std::string_view kNames[] = { "Unknown", "CostCentre", "Module", "ClosureDescr", "TypeDescr",
        "Retainer", "Biography", "ClosureType", "InfoTable", "Era" };
    return breakdown < std::size(kNames) ? kNames[breakdown] : kNames[0];
}

namespace {

    // Length of the valid UTF-8 sequence starting at text[i] (2-4), or 0 if the bytes there are not one.
    size_t utf8SequenceLength(std::string_view text, size_t i)
    {
        const auto b = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
        const unsigned char c = b(i);
        size_t n;
        uint32_t cp;
        if (c >= 0xC2 && c <= 0xDF) {
            n = 2;
            cp = c & 0x1F;
        } else if (c >= 0xE0 && c <= 0xEF) {
            n = 3;
            cp = c & 0x0F;
        } else if (c >= 0xF0 && c <= 0xF4) {
            n = 4;
            cp = c & 0x07;
        } else {
            return 0;
        }
        if (i + n > text.size())
            return 0;
        for (size_t k = 1; k < n; ++k) {
            if ((b(i + k) & 0xC0) != 0x80)
                return 0;
            cp = (cp << 6) | (b(i + k) & 0x3F);
        }
        // Reject overlong forms, surrogates and code points past U+10FFFF.
        if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)) || (cp >= 0xD800 && cp <= 0xDFFF))
            return 0;
        return n;
    }

} // namespace

void appendEscaped(std::string& out, std::string_view text)
{
    out.reserve(out.size() + text.size());
    for (size_t i = 0; i < text.size(); ++i) {
        const char ch = text[i];
        const auto c = static_cast<unsigned char>(ch);
        if (c >= 0x80) {
            // Valid UTF-8 passes through; a stray byte is shown as \xNN.
            if (const size_t n = utf8SequenceLength(text, i)) {
                out.append(text.substr(i, n));
                i += n - 1;
            } else {
                const char esc[4] = { '\\', 'x', kHexDigits[c >> 4], kHexDigits[c & 15] };
                out.append(esc, 4);
            }
            continue;
        }
        switch (c) {
        case '\t':
            out.append("\\t");
            break;
        case '\n':
            out.append("\\n");
            break;
        case '\r':
            out.append("\\r");
            break;
        case '\\':
            out.append("\\\\");
            break;
        case '"':
            out.append("\\\"");
            break;
        default:
            if (c < 0x20 || c == 0x7f) {
                const char esc[4] = { '\\', 'x', kHexDigits[c >> 4], kHexDigits[c & 15] };
                out.append(esc, 4);
            } else {
                out.push_back(ch);
            }
        }
    }
}

std::string escapeText(std::string_view text)
{
    std::string out;
    appendEscaped(out, text);
    return out;
}

} // namespace sparkscope::core
