#pragma once
// Decoding an event's payload into named fields, for display (sparkscope-cli show, the UI's event
// list) and for tests. Layouts follow eventlog-format.md section 2; the payload's size (which is the
// size the file's header declared, for fixed-size events) picks between old and new layouts:
// 6- or 10-byte STOP_THREAD, 50- or 58-byte GC_STATS_GHC, 13- or 14-byte NONMOVING_HEAP_CENSUS,
// old or new TICKY_COUNTER_DEF, Mercury's 4-byte OSPROCESS_PID and pre-2011 RUN_SPARK/STEAL_SPARK.
// A payload shorter than its layout yields the fields that fit; bytes beyond the known layout
// become `extra=<hex>`; an event SparkScope has no layout for becomes `bytes=<hex>`.
//
// Values are one-line display text: numbers in decimal, addresses and ids that are addresses in
// 0x-hex, text escaped (\t \n \r \\ \" and \xNN for other non-printable bytes). formatFields joins
// them as `key=value key=value`, quoting values that are empty or contain a space. Keys may repeat
// (PROGRAM_ARGS gives one `arg=` per argument).
//
// Pure functions of the bytes; thread-safe. appendFields allocates nothing beyond growing `out`,
// so formatting millions of events is a tight loop.
#include "sparkscope/core/event.h"
#include "sparkscope/core/trace.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sparkscope::core {

struct Field {
    std::string_view key; // a string literal: valid forever
    std::string value; // escaped display text, without quotes
};

std::vector<Field> decodeFields(uint16_t type, const Payload& payload);
std::vector<Field> decodeFields(const Trace& trace, const Event& event);

// Appends `key=value key=value` (no leading or trailing space) to `out`.
void appendFields(std::string& out, uint16_t type, const Payload& payload);
std::string formatFields(const Trace& trace, const Event& event);

// STOP_THREAD status names as ghc-events spells them (HeapOverflow, ThreadFinished, BlockedOnMVar,
// ...); "NoStatus" for 0 and "Unknown" for codes no GHC or Mercury writes.
std::string_view stopStatusName(uint16_t status) noexcept;
// CAPSET_CREATE types: Custom, OsProcess, ClockDomain, else "Unknown".
std::string_view capsetTypeName(uint16_t type) noexcept;
// HEAP_PROF_BEGIN breakdowns: CostCentre, Module, ClosureDescr, TypeDescr, Retainer, Biography,
// ClosureType, InfoTable, Era, else "Unknown".
std::string_view heapProfBreakdownName(uint32_t breakdown) noexcept;

// Escapes `text` for one-line output (see the file comment) and appends it to `out`.
void appendEscaped(std::string& out, std::string_view text);
std::string escapeText(std::string_view text);

} // namespace sparkscope::core
