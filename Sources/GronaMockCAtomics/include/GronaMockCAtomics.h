#ifndef GRONA_MOCK_C_ATOMICS_H
#define GRONA_MOCK_C_ATOMICS_H
#include <stdint.h>

/// Sequentially consistent operations on one 64-bit word, through the compiler's builtins (GCC and Clang,
/// Linux and macOS alike). They stand in for the Synchronization module's Atomic, which needs macOS 15.
static inline int64_t grona_mock_atomic_load(const int64_t *word) { return __atomic_load_n(word, __ATOMIC_SEQ_CST); }

static inline void grona_mock_atomic_store(int64_t *word, int64_t value) {
    __atomic_store_n(word, value, __ATOMIC_SEQ_CST);
}

static inline int64_t grona_mock_atomic_exchange(int64_t *word, int64_t value) {
    return __atomic_exchange_n(word, value, __ATOMIC_SEQ_CST);
}

/// Wraps on overflow, as two's complement addition does.
static inline int64_t grona_mock_atomic_fetch_add(int64_t *word, int64_t value) {
    return __atomic_fetch_add(word, value, __ATOMIC_SEQ_CST);
}
#endif
