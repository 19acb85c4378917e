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
/// What the write-ahead-log hook keeps for one connection: the log's length in pages after its last commit, and
/// the length past which a commit checkpoints (`WriteAheadLogLimits.commitPages`).
typedef struct {
    int pages;
    int checkpointPages;
} grona_sqlite3_wal_state;

/// sqlite3_wal_hook takes a C function. This one records the pages in the write-ahead log after each commit, and
/// past `checkpointPages` checkpoints as SQLite's own automatic checkpoint does (registering a hook replaces it), so
/// that the log is bounded whatever the checkpoint thread manages. While that thread holds the checkpoint lock, this
/// PASSIVE one returns at once.
static int grona_sqlite3_record_wal_pages(void *context, sqlite3 *db, const char *name, int count) {
    grona_sqlite3_wal_state *state = (grona_sqlite3_wal_state *)context;
    state->pages = count;
    if (count >= state->checkpointPages) {
        sqlite3_wal_checkpoint(db, name);
        state->pages = 0;
    }
    return SQLITE_OK;
}

static inline void grona_sqlite3_track_wal_pages(sqlite3 *db, grona_sqlite3_wal_state *state) {
    sqlite3_wal_hook(db, grona_sqlite3_record_wal_pages, state);
}
#endif
