#ifndef GRONA_CSQLITE_SHIM_H
#define GRONA_CSQLITE_SHIM_H
#include <sqlite3.h>

/// SQLITE_TRANSIENT is a cast of -1 to a function pointer, which Swift cannot import; this wrapper binds a copy.
static inline int grona_sqlite3_bind_text_copy(sqlite3_stmt *statement, int index, const char *text, int length) {
    return sqlite3_bind_text(statement, index, text, length, SQLITE_TRANSIENT);
}

static inline int grona_sqlite3_bind_blob_copy(sqlite3_stmt *statement, int index, const void *bytes, int length) {
    return sqlite3_bind_blob(statement, index, bytes, length, SQLITE_TRANSIENT);
}
/// sqlite3_config is variadic, which Swift cannot call. Memory statistics (sqlite3_memory_used) take a global mutex
/// around every allocation SQLite makes, about 5 % of the events writer's time; grona-mock never reads them. Must run
/// before SQLite initializes (the first open); afterwards SQLite refuses it with SQLITE_MISUSE and nothing changes.
static inline int grona_sqlite3_disable_memory_statistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
/// sqlite3_wal_hook takes a C function. This one records the pages in the write-ahead log after each commit into
/// `*pages`, and past 1,000 pages checkpoints as SQLite's own automatic checkpoint does (registering a hook
/// replaces it): a writer that never finds time for the upkeep between groups, or that the checkpoint thread cannot keep
/// up with, still keeps the log bounded. While that thread holds the checkpoint lock, this PASSIVE one returns at once.
static int grona_sqlite3_record_wal_pages(void *pages, sqlite3 *db, const char *name, int count) {
    *(int *)pages = count;
    if (count >= 1000) {
        sqlite3_wal_checkpoint(db, name);
        *(int *)pages = 0;
    }
    return SQLITE_OK;
}

static inline void grona_sqlite3_track_wal_pages(sqlite3 *db, int *pages) {
    sqlite3_wal_hook(db, grona_sqlite3_record_wal_pages, pages);
}
#endif
