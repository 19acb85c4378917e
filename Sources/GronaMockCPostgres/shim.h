#ifndef GRONA_CPOSTGRES_SHIM_H
#define GRONA_CPOSTGRES_SHIM_H
#include <libpq-fe.h>

/// PG_DIAG_SQLSTATE is a character-literal macro; this names it as a function Swift can call.
static inline char *grona_pq_sqlstate(const PGresult *result) {
    return PQresultErrorField(result, PG_DIAG_SQLSTATE);
}

static void grona_pq_ignore_notice(void *context, const char *message) {
    (void)context;
    (void)message;
}

/// libpq prints the server's notices ("relation already exists, skipping") to standard error by default; a
/// server's log is not ours to echo. PQsetNoticeProcessor takes a C function, hence the shim.
static inline void grona_pq_ignore_notices(PGconn *connection) {
    PQsetNoticeProcessor(connection, grona_pq_ignore_notice, NULL);
}
#endif
