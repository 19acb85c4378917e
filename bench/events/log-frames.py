#!/usr/bin/env python3
"""bench/events/log-frames.py: how many write-ahead log frames (pages) a commit of events writes, and each
index's share of them.

Replays the events of a grona-mock database (say, one left by a `grona-mock load` run) in sequence order into a
fresh database with the same `events` table and indexes, in commits of ROWS rows (76: the load fleet's group
size at half its peak, from grona_event_commit_size), with automatic checkpoints off. It counts the frames the
commits after the first 100,000 rows wrote, then repeats without each index in turn. Every frame is written
again by the checkpoint and synced, so frames per commit is the write cost of storing events (issue 14).

Usage: python3 bench/events/log-frames.py DATABASE [ROWS]   (the copy is made under /dev/shm)
"""
import os
import sqlite3
import sys

source_path = sys.argv[1]
rows_per_commit = int(sys.argv[2]) if len(sys.argv) > 2 else 76
measured_from = 100_000
replay_path = "/dev/shm/grona-log-frames.sqlite"

source = sqlite3.connect(f"file:{source_path}?mode=ro", uri=True)
schema = [row[0] for row in source.execute(
    "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND tbl_name = 'events'")]
columns = [row[1] for row in source.execute("PRAGMA table_info(events)")]
rows = source.execute("SELECT * FROM events ORDER BY seq LIMIT 300000").fetchall()
indexes = [row[0] for row in source.execute(
    "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'events' AND sql IS NOT NULL")]
if len(rows) <= measured_from + rows_per_commit:
    sys.exit(f"{source_path} has {len(rows)} events; more than {measured_from + rows_per_commit} are needed")


def frames_per_commit(without=None):
    for suffix in ("", "-wal", "-shm"):
        try:
            os.unlink(replay_path + suffix)
        except FileNotFoundError:
            pass
    replay = sqlite3.connect(replay_path, isolation_level=None)
    replay.execute("PRAGMA journal_mode=WAL")
    replay.execute("PRAGMA wal_autocheckpoint=0")
    for sql in schema:
        if without and f"INDEX {without} " in sql:
            continue
        replay.execute(sql)
    insert = f"INSERT INTO events VALUES ({','.join('?' * len(columns))})"
    commits = 0
    for start in range(0, len(rows), rows_per_commit):
        if start <= measured_from < start + rows_per_commit:
            replay.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        replay.execute("BEGIN")
        replay.executemany(insert, rows[start:start + rows_per_commit])
        replay.execute("COMMIT")
        if start >= measured_from:
            commits += 1
    frames = replay.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()[1]
    replay.close()
    return frames / max(1, commits)


everything = frames_per_commit()
print(f"all indexes: {everything:.1f} frames per commit of {rows_per_commit} rows")
for index in indexes:
    frames = frames_per_commit(index)
    print(f"without {index}: {frames:.1f} (its share {everything - frames:.1f})")
for suffix in ("", "-wal", "-shm"):
    try:
        os.unlink(replay_path + suffix)
    except FileNotFoundError:
        pass
