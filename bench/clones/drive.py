#!/usr/bin/env python3
"""bench/clones/drive.py: the clone-cost figures of bench/clones.sh (issue 28).

Brings one running grona-mock to each checkpoint in turn (a number of clones that exist: CHECKPOINTS may go up and
down, so that the sizes are measured interleaved, e.g. 100,1000,10000,1000,100) by making or deleting filler
clones, and at each times ROUNDS creations, then the reset and the removal of those same clones, so that every
round starts from the checkpoint's count. One keep-alive connection; each figure is the time from sending a request
to reading its whole answer. Prints one JSON object: per checkpoint visit, p50/p99 in milliseconds of create, reset
and delete, and the server's resident memory there (VmRSS, from /proc/PID/status).

Usage: drive.py PORT PID CHECKPOINTS ROUNDS
"""
import http.client
import json
import sys
import time


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def percentile(samples, fraction):
    ordered = sorted(samples)
    index = min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))
    return ordered[index]


class Client:
    def __init__(self, port):
        self.port = port
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)

    def call(self, method, path, body=None, expect=(200,)):
        payload = json.dumps(body).encode() if body is not None else None
        headers = {"Content-Type": "application/json"} if payload else {}
        start = time.perf_counter()
        self.connection.request(method, path, body=payload, headers=headers)
        response = self.connection.getresponse()
        data = response.read()
        elapsed = (time.perf_counter() - start) * 1000
        if response.status not in expect:
            raise SystemExit(f"{method} {path} answered {response.status}: {data[:300]!r}")
        return elapsed, data


def main():
    port, pid, checkpoints, rounds = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
    checkpoints = [int(n) for n in checkpoints.split(",")]
    client = Client(port)
    made = 0
    results = []
    for visit, checkpoint in enumerate(checkpoints):
        while made < checkpoint:
            client.call("POST", "/_mock/workspaces/acme-market/clone", {"workspaceKey": f"fill-{made}"}, (201,))
            made += 1
        while made > checkpoint:
            made -= 1
            client.call("DELETE", f"/_mock/workspaces/fill-{made}")
        rss = rss_kb(pid)
        creates, resets, deletes = [], [], []
        keys = [f"probe-{visit}-{i}" for i in range(rounds)]
        for key in keys:
            elapsed, _ = client.call("POST", "/_mock/workspaces/acme-market/clone", {"workspaceKey": key}, (201,))
            creates.append(elapsed)
        for key in keys:
            # A clone that was changed, then reset: the reset removes it (a clone has no file to go back to).
            client.call("POST", f"/_mock/workspaces/{key}/campaigns/home-hero/kill")
            elapsed, _ = client.call("POST", f"/_mock/reset?workspace={key}")
            resets.append(elapsed)
        for key in keys:
            client.call("POST", "/_mock/workspaces/acme-market/clone", {"workspaceKey": key}, (201,))
            elapsed, _ = client.call("DELETE", f"/_mock/workspaces/{key}")
            deletes.append(elapsed)
        results.append({
            "clones": checkpoint, "rssKiB": rss,
            "create": {"p50": percentile(creates, 0.5), "p99": percentile(creates, 0.99)},
            "reset": {"p50": percentile(resets, 0.5), "p99": percentile(resets, 0.99)},
            "delete": {"p50": percentile(deletes, 0.5), "p99": percentile(deletes, 0.99)},
        })
        print(f"  {checkpoint} clones: create p50 {results[-1]['create']['p50']:.2f} ms, "
              f"p99 {results[-1]['create']['p99']:.2f} ms; RSS {rss / 1024:.1f} MiB", file=sys.stderr, flush=True)
    print(json.dumps({"checkpoints": results}))


if __name__ == "__main__":
    main()
