// The SIGBUS guard of MappedFile (mapped_file.h). A read of a mapped page past the end of a file
// that shrank raises SIGBUS (si_code BUS_ADRERR); for an address inside a registered mapping the
// handler maps a page of zeros over that page (MAP_FIXED: the rest of the mapping is untouched),
// counts it against the mapping, and returns, so the read is retried and sees zeros. Any other
// SIGBUS (a read error, a memory error, one sent by kill, an address outside every mapping) goes to
// the handler that was there before (a sanitizer's), or to the default action, which ends the
// process as it would have.
//
// Why not a jump out of the handler: the decoder's frames hold containers whose destructors a
// longjmp would skip. Why mmap in a signal handler: POSIX does not list it as async-signal-safe, but
// on Linux it is a system call that takes no lock of the process (a sanitizer's interceptor of it
// does not either), and it is what programs that read mapped files they do not own do.
//
// A slot's range is read as a seqlock (begin, end, begin again) and each handler run is counted in
// the slot, so that unguardMapping, which frees the slot before the range is unmapped, waits for a
// handler already in it: a zero page is never put over memory that is no longer the mapping.
#include "format/mapped_file.h"

#include <array>
#include <atomic>
#include <cerrno>
#include <mutex>

#if defined(__linux__)
#include <csignal>
#endif

namespace sparkscope::core::detail {

namespace {

    constexpr uintptr_t kFree = 0, kClaimed = 1; // a slot's begin before it holds a range
    struct Slot {
        std::atomic<uintptr_t> begin { kFree }, end { 0 };
        std::atomic<uint32_t> inHandler { 0 };
        std::atomic<uint64_t> zeroed { 0 }; // pages of this mapping replaced with zeros
    };
    std::array<Slot, 64> g_slots;
    std::atomic<uint64_t> g_zeroed { 0 };

#if defined(__linux__)
    struct sigaction g_previous {};
    uintptr_t g_page = 4096;

    // The action that was there before, for a SIGBUS that is not ours.
    void passOn(int sig, siginfo_t* info, void* context)
    {
        if ((g_previous.sa_flags & SA_SIGINFO) && g_previous.sa_sigaction) {
            g_previous.sa_sigaction(sig, info, context);
            return;
        }
        if (!(g_previous.sa_flags & SA_SIGINFO) && g_previous.sa_handler != SIG_DFL
            && g_previous.sa_handler != SIG_IGN) {
            g_previous.sa_handler(sig);
            return;
        }
        // The default action, restored: a faulting read runs again and raises it; a signal that was
        // sent rather than raised by a read is raised again.
        struct sigaction dfl {};
        dfl.sa_handler = SIG_DFL;
        ::sigemptyset(&dfl.sa_mask);
        ::sigaction(SIGBUS, &dfl, nullptr);
        if (info->si_code <= 0)
            ::raise(SIGBUS);
    }

    void onSigbus(int sig, siginfo_t* info, void* context)
    {
        const int savedErrno = errno;
        if (info->si_code == BUS_ADRERR) {
            const uintptr_t at = reinterpret_cast<uintptr_t>(info->si_addr);
            for (Slot& s : g_slots) {
                s.inHandler.fetch_add(1, std::memory_order_acq_rel);
                const uintptr_t begin = s.begin.load(std::memory_order_acquire);
                const uintptr_t end = s.end.load(std::memory_order_acquire);
                const bool ours = begin > kClaimed && begin == s.begin.load(std::memory_order_acquire) && at >= begin
                    && at < end;
                if (ours) {
                    void* const where = reinterpret_cast<void*>(at / g_page * g_page);
                    const bool mapped
                        = ::mmap(where, g_page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != MAP_FAILED;
                    if (mapped) {
                        s.zeroed.fetch_add(1, std::memory_order_relaxed);
                        g_zeroed.fetch_add(1, std::memory_order_relaxed);
                    }
                    s.inHandler.fetch_sub(1, std::memory_order_acq_rel);
                    if (mapped) {
                        errno = savedErrno;
                        return;
                    }
                    break;
                }
                s.inHandler.fetch_sub(1, std::memory_order_acq_rel);
            }
        }
        passOn(sig, info, context);
        errno = savedErrno;
    }

    void installHandler()
    {
        static std::once_flag once;
        std::call_once(once, [] {
            g_page = uintptr_t(::sysconf(_SC_PAGESIZE));
            struct sigaction action {};
            action.sa_sigaction = onSigbus;
            action.sa_flags = SA_SIGINFO;
            ::sigemptyset(&action.sa_mask);
            ::sigaction(SIGBUS, &action, &g_previous);
        });
    }
#else
    void installHandler() { }
#endif

} // namespace

int guardMapping(const void* begin, size_t bytes) noexcept
{
    if (!begin || bytes == 0)
        return -1;
    installHandler();
    const uintptr_t b = reinterpret_cast<uintptr_t>(begin);
    for (size_t i = 0; i < g_slots.size(); ++i) {
        uintptr_t expected = kFree;
        // Claimed first, so the handler never pairs the new begin with an old end; the begin goes
        // in once the end is set.
        if (g_slots[i].begin.compare_exchange_strong(expected, kClaimed, std::memory_order_acq_rel)) {
            g_slots[i].zeroed.store(0, std::memory_order_relaxed);
            g_slots[i].end.store(b + bytes, std::memory_order_release);
            g_slots[i].begin.store(b, std::memory_order_release);
            return int(i);
        }
    }
    return -1;
}

void unguardMapping(int slot) noexcept
{
    if (slot < 0 || size_t(slot) >= g_slots.size())
        return;
    Slot& s = g_slots[size_t(slot)];
    s.begin.store(kClaimed, std::memory_order_release); // (no handler takes it from here on)
    while (s.inHandler.load(std::memory_order_acquire) != 0) {
    }
    s.begin.store(kFree, std::memory_order_release);
}

uint64_t zeroedPages(int slot) noexcept
{
    if (slot < 0 || size_t(slot) >= g_slots.size())
        return 0;
    return g_slots[size_t(slot)].zeroed.load(std::memory_order_relaxed);
}

uint64_t zeroedMappedPages() noexcept { return g_zeroed.load(std::memory_order_relaxed); }

} // namespace sparkscope::core::detail
