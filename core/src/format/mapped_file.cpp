// The SIGBUS guard of MappedFile (mapped_file.h). A read of a mapped page past the end of a file
// that shrank raises SIGBUS; for an address inside a registered mapping the handler maps a page of
// zeros over that page (MAP_FIXED: the rest of the mapping is untouched) and returns, so the read
// is retried and sees zeros. Any other SIGBUS goes to the handler that was there before (a
// sanitizer's), or to the default action, which ends the process as it would have.
//
// Why not a jump out of the handler: the decoder's frames hold containers whose destructors a
// longjmp would skip. Why mmap in a signal handler: POSIX does not list it as async-signal-safe, but
// on Linux it is one system call with no user-space lock, and it is what programs that read mapped
// files they do not own do (database engines, language runtimes).
#include "format/mapped_file.h"

#include <array>
#include <atomic>
#include <mutex>

#if defined(__linux__)
#include <csignal>
#endif

namespace sparkscope::core::detail {

namespace {

    constexpr uintptr_t kFree = 0, kClaimed = 1; // a slot's begin before it holds a range
    struct Slot {
        std::atomic<uintptr_t> begin { kFree }, end { 0 };
    };
    std::array<Slot, 64> g_slots;
    std::atomic<uint64_t> g_zeroed { 0 };

#if defined(__linux__)
    struct sigaction g_previous {};

    void onSigbus(int sig, siginfo_t* info, void* context)
    {
        const uintptr_t at = reinterpret_cast<uintptr_t>(info->si_addr);
        for (const Slot& s : g_slots) {
            const uintptr_t begin = s.begin.load(std::memory_order_acquire);
            if (begin <= kClaimed || at < begin || at >= s.end.load(std::memory_order_acquire))
                continue;
            const uintptr_t page = uintptr_t(::sysconf(_SC_PAGESIZE));
            void* const where = reinterpret_cast<void*>(at / page * page);
            if (::mmap(where, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != MAP_FAILED) {
                g_zeroed.fetch_add(1, std::memory_order_relaxed);
                return;
            }
            break;
        }
        // Not ours (or no page could be put there): whoever handled it before.
        if ((g_previous.sa_flags & SA_SIGINFO) && g_previous.sa_sigaction) {
            g_previous.sa_sigaction(sig, info, context);
            return;
        }
        if (g_previous.sa_handler != SIG_DFL && g_previous.sa_handler != SIG_IGN) {
            g_previous.sa_handler(sig);
            return;
        }
        // The default action: restored, and the faulting read runs again and raises it.
        struct sigaction dfl {};
        dfl.sa_handler = SIG_DFL;
        ::sigemptyset(&dfl.sa_mask);
        ::sigaction(SIGBUS, &dfl, nullptr);
    }

    void installHandler()
    {
        static std::once_flag once;
        std::call_once(once, [] {
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
    g_slots[size_t(slot)].begin.store(kFree, std::memory_order_release);
}

uint64_t zeroedMappedPages() noexcept { return g_zeroed.load(std::memory_order_relaxed); }

} // namespace sparkscope::core::detail
