"""bench/events/large-batches.py: the gzip bodies of bench/events-offload.sh's large batches.

Usage: python3 bench/events/large-batches.py DIR COUNT TAG

Writes DIR/1.json.gz to DIR/COUNT.json.gz: each a batch envelope (contract §7) for the committed acme-market
workspace with 500 valid "exposure" events whose JSON comes to just under the 512 KiB limit (a `properties.note`
of words drawn at random pads each event to about 1 KiB, so that gzip does about what it does on an SDK's
events), gzipped as an SDK sends them. Event ids are "<TAG>-L<body>-<index>", unique across the bodies.
"""

import gzip
import json
import os
import random
import sys

LIMIT = 512 * 1024
EVENTS = 500
WORDS = (
    "cart home search checkout banner spring summer sale product category shoes shirt dress jacket bag hat "
    "price discount coupon free shipping return size colour red blue green black white small medium large "
    "viewed tapped added removed opened closed scrolled swiped carousel tile hero grid list detail review"
).split()


def body(index, tag, rng):
    events = []
    for i in range(EVENTS):
        events.append({
            "eventID": f"{tag}-L{index}-{i}", "type": "exposure", "timestamp": 1764478799001 + i,
            "sessionID": f"s-{index}", "placement": "home_top", "screen": {"type": "home"},
            "visitID": f"v-{index}-{i // 50}", "campaignID": "home-hero", "variantID": "spring", "arm": "treatment",
            "properties": {"note": ""},
        })
    envelope = {
        "workspaceKey": "acme-market", "installID": f"bench-{tag}-large-{index}",
        "sdk": {"platform": "ios", "version": "1.4.0"}, "app": {"id": "com.acme.market", "version": "5.2.0"},
        "sentAt": 1764478800123, "events": events,
    }
    bare = len(json.dumps(envelope, separators=(",", ":")).encode())
    # What is left under the limit, less a little, shared out among the notes.
    per_event = (LIMIT - 2048 - bare) // EVENTS
    for event in events:
        note = ""
        while len(note) < per_event:
            note += rng.choice(WORDS) + " "
        event["properties"]["note"] = note[:per_event]
    data = json.dumps(envelope, separators=(",", ":")).encode()
    assert len(data) <= LIMIT, len(data)
    return data


def main():
    directory, count, tag = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    os.makedirs(directory, exist_ok=True)
    rng = random.Random(29)
    for index in range(1, count + 1):
        with open(os.path.join(directory, f"{index}.json.gz"), "wb") as file:
            file.write(gzip.compress(body(index, tag, rng), compresslevel=6))


if __name__ == "__main__":
    main()
