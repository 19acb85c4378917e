"""Schemathesis hooks for Tests/Schemathesis/run.sh: integers written as JSON Schema allows them (issue 28).

JSON Schema's `integer` is "a number with a zero fractional part", so 1041.0 satisfies it; hypothesis-jsonschema
only ever draws Python ints. This hook rewrites every integer drawn for a body as a float with the same value
(1041 -> 1041.0, which json.dumps writes as "1041.0"; values past 2^53 as their exact decimal text with ".0"
would need a custom encoder, so those stay ints), so the positive-data checks (`positive_data_acceptance`) prove
that every integer field takes them. Booleans are left alone (bool is an int in Python).

It also carries the gzip hook of docs/openapi.yaml, so the events endpoint's gzip media type goes on the wire
compressed, and keeps long-polls short (timeoutMs at most 200) so that a run takes minutes, not hours.
"""
import gzip
import json

import schemathesis


def _as_floats(value):
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return float(value) if abs(value) < 2**53 else value
    if isinstance(value, list):
        return [_as_floats(item) for item in value]
    if isinstance(value, dict):
        return {key: _as_floats(item) for key, item in value.items()}
    return value


@schemathesis.hook
def map_body(context, body):
    return _as_floats(body)


@schemathesis.hook
def before_call(context, case, kwargs):
    if "x-content-encoding=gzip" not in (case.media_type or "").replace(" ", ""):
        return
    body = case.body
    raw = bytes(body) if isinstance(body, (bytes, bytearray)) else json.dumps(body).encode()
    kwargs["data"] = gzip.compress(raw)
    case.headers = {**(case.headers or {}), "Content-Type": "application/json", "Content-Encoding": "gzip"}


@schemathesis.hook
def map_query(context, query):
    # A long-poll holds its answer up to timeoutMs (120 s at most, by design); a short one keeps the run quick
    # without leaving the behaviour untested.
    if query and isinstance(query.get("timeoutMs"), int) and query["timeoutMs"] > 200:
        query["timeoutMs"] = 200
    return query
