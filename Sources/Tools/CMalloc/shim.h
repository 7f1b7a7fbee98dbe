#include <malloc.h>

/// Wrapper for mallopt(M_ARENA_MAX, count): malloc.h is not part of Swift's Glibc module, and
/// M_ARENA_MAX is a macro.
static inline int mn_limit_malloc_arenas(int count) { return mallopt(M_ARENA_MAX, count); }

/// Bytes malloc has handed out and not yet had back (mallinfo2's uordblks), for a bench's "memory held".
static inline long mn_allocated_bytes(void) { return (long)mallinfo2().uordblks; }
