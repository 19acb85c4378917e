"""Schemathesis hooks for Tests/Schemathesis/run.sh: integers written as JSON Schema allows them (issue 28).

JSON Schema's `integer` is "a number with a zero fractional part", so 1041.0 satisfies it; hypothesis-jsonschema
only ever draws Python ints. This hook rewrites every integer drawn for a body as a float with the same value
(1041 -> 1041.0, which json.dumps writes as "1041.0"; values past 2^53 as their exact decimal text with ".0"
would need a custom encoder, so those stay ints), so the positive-data checks (`positive_data_acceptance`) prove
that every integer field takes them, and the check `integral_numbers_accepted` below fails any answer that refuses
one (a 400 or 422, or an event listed in a 200's `rejected`) in grona-mock's own words for a non-integer. Booleans are left alone (bool is an int in Python).

It also carries the gzip hook of docs/openapi.yaml, so the events endpoint's gzip media type goes on the wire
compressed, and keeps long-polls short (timeoutMs at most 200) so that a run takes minutes, not hours.
"""
import gzip
import json
import re

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


# grona-mock's words when a number is not an integer: "must be an integer, not 1041.5", "must be a whole number
# from 0 to 600000, not 1041.5", "… (an integer), not 1041.5". Followed by a value with a zero fraction, they
# mean that an integral number written as 1041.0 was refused.
_REFUSED_INTEGRAL = re.compile(r'(?:an integer|a whole number)[^"]*?not \\?"?-?[0-9]+\.0+(?![0-9eE])')


@schemathesis.check
def integral_numbers_accepted(ctx, response, case):
    """Fails when an answer refuses an integral number written with a zero fraction (JSON Schema's integer)."""
    # A negative case may hold an integral number out of its range (600001.0 where 600000 is the most): its
    # refusal is right. Only schema-valid requests must have their integers taken.
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive:
        return None
    found = _REFUSED_INTEGRAL.search(response.text or "")
    if found:
        raise AssertionError(f"an integral number was refused as not an integer: {found.group(0)!r}")
    return None
