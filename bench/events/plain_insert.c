/*
 * bench/events/plain_insert.c: the reference for bench/events.sh.
 *
 * Inserts event rows into a fresh SQLite database the way a plain C program would, with nothing but SQLite
 * in the way: no HTTP, no JSON parsing, no validation. It uses the same schema as grona-mock's own database
 * (the script dumps it with `sqlite3 <db> .schema` and passes the file), the same INSERT statement as
 * grona-mock's writer (INSERT OR IGNORE with all 18 columns, checking sqlite3_changes() per row as the
 * server does for duplicates), one prepared statement reused for every row, WAL, synchronous=NORMAL, and one
 * BEGIN IMMEDIATE ... COMMIT per BATCH rows. bench/events.sh runs it twice per measurement: with BATCH set to
 * BULK_ROWS (the bulk insert, the target's reference: large transactions, where rows/s has stopped growing) and
 * with BATCH set to the server's batch size (one transaction per request, the second column).
 *
 * Each row carries the same values the server stores for the events bench/events.sh posts, including a JSON
 * blob built like the server's (the event re-serialized, about 230 bytes), with an event id of the same shape.
 *
 * First WARM rows are inserted untimed (the server's database also holds the warm-up's events when it is
 * measured), then TIMED rows are timed with CLOCK_MONOTONIC and with the process's CPU time (getrusage). On an idle
 * machine the two agree (the inserts never wait: WAL, no fsync); under load the wall clock stretches and the CPU time
 * does not, so rows per CPU second is the steadier reference: what SQLite does with one whole core.
 *
 * Usage:  plain_insert SCHEMA_FILE DB_FILE BATCH WARM TIMED
 * Output: one line of key=value pairs, e.g.
 *         sqlite=3.46.1 batch=50 rows=123450 seconds=1.234 rows_per_s=100040.5 cpu_seconds=1.230
 *         rows_per_cpu_s=100365.9 avg_json_bytes=231.0
 * Exit:   0 on success, 1 on any error (with a message on stderr).
 */

#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static sqlite3 *db;

static void fail(const char *what) {
    fprintf(stderr, "plain_insert: %s: %s\n", what, db ? sqlite3_errmsg(db) : "no database");
    exit(1);
}

static void exec(const char *sql) {
    char *message = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &message) != SQLITE_OK) {
        fprintf(stderr, "plain_insert: %s: %s\n", sql, message ? message : "error");
        exit(1);
    }
}

static long long parse_count(const char *text, const char *name) {
    char *end = NULL;
    errno = 0;
    long long value = strtoll(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || value < 0) {
        fprintf(stderr, "plain_insert: %s must be a whole number, got '%s'\n", name, text);
        exit(1);
    }
    return value;
}

static char *read_file(const char *path) {
    FILE *file = fopen(path, "rb");
    if (!file) {
        fprintf(stderr, "plain_insert: cannot open %s: %s\n", path, strerror(errno));
        exit(1);
    }
    size_t size = 0, capacity = 65536;
    char *text = malloc(capacity);
    size_t got;
    while (text && (got = fread(text + size, 1, capacity - size - 1, file)) > 0) {
        size += got;
        if (capacity - size < 2) text = realloc(text, capacity *= 2);
    }
    fclose(file);
    if (!text) {
        fprintf(stderr, "plain_insert: out of memory\n");
        exit(1);
    }
    text[size] = '\0';
    return text;
}

static long long now_ms(void) {
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (long long)tv.tv_sec * 1000 + tv.tv_usec / 1000;
}

/* User and system CPU seconds this process has used: the reference's cost, which other work on the machine does not
 * inflate the way it stretches the wall clock. */
static double cpu_seconds(void) {
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return (double)usage.ru_utime.tv_sec + (double)usage.ru_utime.tv_usec / 1e6 + (double)usage.ru_stime.tv_sec
        + (double)usage.ru_stime.tv_usec / 1e6;
}

static double monotonic(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The same statement as grona-mock's EventWriter. */
static const char *insert_sql =
    "INSERT OR IGNORE INTO events (workspace_key, event_id, type, timestamp, received_at, corrected_timestamp,"
    " install_id, customer_id, session_id, visit_id, campaign_id, variant_id, arm, placement, demo,"
    " config_revision, total_minor, json)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";

static sqlite3_stmt *insert;
static long long next_id = 0;
static char id_prefix[48];
static char install_id[80];
static double json_bytes_total = 0;

static const long long timestamp = 1764478799001LL;
static const long long sent_at = 1764478800123LL;

/* Inserts `count` rows in transactions of `batch` rows; returns how many were inserted (not ignored). */
static long long insert_rows(long long count, long long batch) {
    char event_id[80];
    char json[512];
    long long inserted = 0;
    while (count > 0) {
        long long n = count < batch ? count : batch;
        /* The server stamps received_at once per request, before the write. */
        long long received_at = now_ms();
        long long corrected = timestamp + (received_at - sent_at);
        exec("BEGIN IMMEDIATE");
        for (long long i = 0; i < n; i++) {
            next_id++;
            int id_len = snprintf(event_id, sizeof event_id, "%s%lld", id_prefix, next_id);
            int json_len = snprintf(json, sizeof json,
                "{\"eventID\":\"%s\",\"type\":\"exposure\",\"timestamp\":%lld,\"sessionID\":\"s-1\","
                "\"placement\":\"home_top\",\"screen\":{\"type\":\"home\"},\"visitID\":\"v-77\","
                "\"campaignID\":\"home-hero\",\"variantID\":\"spring\",\"arm\":\"treatment\"}",
                event_id, timestamp);
            json_bytes_total += json_len;
            if (sqlite3_bind_text(insert, 1, "acme-market", -1, SQLITE_STATIC) != SQLITE_OK
                || sqlite3_bind_text(insert, 2, event_id, id_len, SQLITE_STATIC) != SQLITE_OK
                || sqlite3_bind_text(insert, 3, "exposure", -1, SQLITE_STATIC) != SQLITE_OK
                || sqlite3_bind_int64(insert, 4, timestamp) != SQLITE_OK
                || sqlite3_bind_int64(insert, 5, received_at) != SQLITE_OK
                || sqlite3_bind_int64(insert, 6, corrected) != SQLITE_OK
                || sqlite3_bind_text(insert, 7, install_id, -1, SQLITE_STATIC) != SQLITE_OK
                || sqlite3_bind_null(insert, 8) != SQLITE_OK
                || sqlite3_bind_text(insert, 9, "s-1", -1, SQLITE_STATIC) != SQLITE_OK
                || sqlite3_bind_text(insert, 10, "v-77", -1, SQLITE_STATIC) != SQLITE_OK
                || sqlite3_bind_text(insert, 11, "home-hero", -1, SQLITE_STATIC) != SQLITE_OK
                || sqlite3_bind_text(insert, 12, "spring", -1, SQLITE_STATIC) != SQLITE_OK
                || sqlite3_bind_text(insert, 13, "treatment", -1, SQLITE_STATIC) != SQLITE_OK
                || sqlite3_bind_text(insert, 14, "home_top", -1, SQLITE_STATIC) != SQLITE_OK
                || sqlite3_bind_int64(insert, 15, 0) != SQLITE_OK
                || sqlite3_bind_null(insert, 16) != SQLITE_OK
                || sqlite3_bind_null(insert, 17) != SQLITE_OK
                || sqlite3_bind_blob(insert, 18, json, json_len, SQLITE_STATIC) != SQLITE_OK)
                fail("bind");
            if (sqlite3_step(insert) != SQLITE_DONE) fail("insert");
            if (sqlite3_changes(db) == 1) inserted++;
            sqlite3_reset(insert);
        }
        exec("COMMIT");
        count -= n;
    }
    return inserted;
}

int main(int argc, char **argv) {
    if (argc != 6) {
        fprintf(stderr, "usage: plain_insert SCHEMA_FILE DB_FILE BATCH WARM TIMED\n");
        return 1;
    }
    const char *schema_path = argv[1], *db_path = argv[2];
    long long batch = parse_count(argv[3], "BATCH");
    long long warm = parse_count(argv[4], "WARM");
    long long timed = parse_count(argv[5], "TIMED");
    if (batch < 1 || timed < 1) {
        fprintf(stderr, "plain_insert: BATCH and TIMED must be at least 1\n");
        return 1;
    }
    char *schema = read_file(schema_path);

    /* A fresh database every time: nothing of an earlier run may be in it. */
    char side[4096];
    remove(db_path);
    snprintf(side, sizeof side, "%s-wal", db_path);
    remove(side);
    snprintf(side, sizeof side, "%s-shm", db_path);
    remove(side);

    if (sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK)
        fail("open");

    /* WAL, checked as grona-mock checks it, and synchronous=NORMAL. */
    sqlite3_stmt *mode;
    if (sqlite3_prepare_v2(db, "PRAGMA journal_mode=WAL", -1, &mode, NULL) != SQLITE_OK) fail("journal_mode");
    if (sqlite3_step(mode) != SQLITE_ROW || strcmp((const char *)sqlite3_column_text(mode, 0), "wal") != 0) {
        fprintf(stderr, "plain_insert: journal_mode=WAL was refused\n");
        return 1;
    }
    sqlite3_finalize(mode);
    exec("PRAGMA synchronous=NORMAL");

    exec("BEGIN");
    exec(schema);
    exec("COMMIT");
    free(schema);

    if (sqlite3_prepare_v3(db, insert_sql, -1, SQLITE_PREPARE_PERSISTENT, &insert, NULL) != SQLITE_OK)
        fail("prepare");

    /* Ids of the same shape and length as the wrk script's: "<tag>-<thread>-<random>-<counter>". */
    srand((unsigned)time(NULL) ^ (unsigned)getpid());
    snprintf(id_prefix, sizeof id_prefix, "c%lld-%lld-1-%06x-", batch, (long long)time(NULL),
        (unsigned)rand() & 0xffffff);
    snprintf(install_id, sizeof install_id, "bench-%sinstall", id_prefix);

    long long inserted = insert_rows(warm, batch);
    json_bytes_total = 0;
    double start = monotonic(), start_cpu = cpu_seconds();
    long long timed_inserted = insert_rows(timed, batch);
    double seconds = monotonic() - start, cpu = cpu_seconds() - start_cpu;
    inserted += timed_inserted;

    if (inserted != warm + timed) {
        fprintf(stderr, "plain_insert: %lld of %lld rows inserted; ids repeated?\n", inserted, warm + timed);
        return 1;
    }
    sqlite3_finalize(insert);
    if (sqlite3_close(db) != SQLITE_OK) fail("close");

    printf("sqlite=%s batch=%lld rows=%lld seconds=%.3f rows_per_s=%.1f cpu_seconds=%.3f rows_per_cpu_s=%.1f"
        " avg_json_bytes=%.1f\n", sqlite3_libversion(), batch, timed, seconds, (double)timed / seconds, cpu,
        cpu > 0 ? (double)timed / cpu : 0.0, json_bytes_total / (double)timed);
    return 0;
}
