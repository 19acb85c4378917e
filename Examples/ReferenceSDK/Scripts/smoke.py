"""A by-hand smoke run of the reference service against grona-mock, until `grona-mock conformance` and its
catalogue exist: a few of the catalogue's checks, each printing PASS or FAIL.

    grona-mock serve --port 18080 --db :memory:             # from the repository root (workspaces/, keys/)
    grona-reference-service --port 18100 [--mutation NAME]
    python3 Examples/ReferenceSDK/Scripts/smoke.py 18100 [http://127.0.0.1:18080]

It resets the mock before each check (POST /_mock/reset), so use a mock of its own. Scripts/mutants.sh runs it once
per mutation. Python 3 standard library only.
"""
import json, sys, urllib.request

SVC = "http://127.0.0.1:%s" % sys.argv[1]
MOCK = sys.argv[2] if len(sys.argv) > 2 else "http://127.0.0.1:18080"
START = 1796000000000
KEYS = {"acme-market-2026-10": "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEN+MWgzRvSKx8hPhe0fogcKUnWba6GrfjFEUutBXKmYT5ZykF5AVV0JldB0Vp8IyaVOXdpFhxUhH6x61DCClkwA==",
        "acme-market-2027-01": "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEk3v0MX60WzyesbP7ujoV+EB+LcFGdtxgiDCdmpnO8vqhSFPmr0qmTwMbOUop8GccMqfY5NaNYtGxQQo9265Rqg=="}
GRANT_KEYS = {"acme-market-grants-2026-10": "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE89bDC+UG0FUa4Z6Dk+q/bqjfMW0g7rrS4t4Ut32H1ybT1N8rQc6Ft5EY8kQ3Y0v0JNQFhCgpXbnxyyggmbG76Q==",
              "acme-market-grants-2027-01": "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEwPsrswbDsLtxFjPYuSIn44u2NEWGeI02X5sc92858PCFjMDvUpANn+LLdGOjkuL7u93nchm8Ks49n5qHaVT1WA=="}

def req(method, url, body=None, raw=False):
    data = None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
    r = urllib.request.Request(url, data=data, method=method)
    try:
        with urllib.request.urlopen(r) as resp:
            text = resp.read()
            return resp.status, (text if raw else (json.loads(text) if text else None))
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"null")

def reset():
    req("POST", MOCK + "/_mock/reset")
    req("POST", MOCK + "/_mock/clock", {"freeze": True, "at": START})

def fault(rule):
    return req("POST", MOCK + "/_mock/faults", rule)

def create(**changes):
    body = {"name": "by-hand", "baseURL": MOCK, "workspaceKey": "acme-market", "configKeys": KEYS, "grantKeys": GRANT_KEYS,
            "bundledConfiguration": None, "installID": "install-0001", "customerID": None,
            "grantsSecretKey": "sk_test_acme_market_local", "previewToken": None,
            "events": {"maxBatchSize": 20, "maxAgeMs": 10000, "gzip": True, "maxQueued": 1000},
            "configuration": {"pollIntervalMs": 60000}, "clock": {"startMs": START},
            "app": {"id": "com.example.conformance", "version": "1.0.0"}}
    body.update(changes)
    status, answer = req("POST", SVC + "/clients", body)
    assert status == 201, (status, answer)
    cid = answer["id"]
    return lambda command, **params: req("POST", SVC + "/clients/" + cid, dict(command=command, **params))

def events(**filters):
    query = "&".join("%s=%s" % kv for kv in filters.items())
    return req("GET", MOCK + "/_mock/events?workspace=acme-market&limit=1000&" + query)[1]["events"]

def violations():
    return req("GET", MOCK + "/_mock/events/violations?workspace=acme-market")[1]["violations"]

def check(name, condition, detail=""):
    print(("PASS " if condition else "FAIL ") + name + ("" if condition else "  " + str(detail)))
    return condition


results = []
def scenario(fn):
    reset()
    try:
        results.append(fn())
    except Exception as e:
        print("FAIL %s: %s" % (fn.__name__, e)); results.append(False)
    return fn

@scenario
def funnel_once_per_visit():
    c = create()
    c("visit", screen={"type": "home"})
    c("render", placements=[{"placement": "home_top"}])
    c("anchorVisible", placement="home_top"); c("anchorVisible", placement="home_top")
    c("render", placements=[{"placement": "home_top"}])
    c("flush")
    types = [e["type"] for e in events()]
    return check("funnel once per visit", types == ["eligible", "served", "anchor_visible", "exposure"] and not violations(), (types, violations()))

@scenario
def bundled_when_server_down():
    status, doc = req("GET", MOCK + "/v1/mobile/workspaces/acme-market/config", raw=True)
    fault({"endpoint": "config", "kind": "status", "status": 500, "count": 1})
    c = create(bundledConfiguration=doc.decode())
    s = c("status")[1]
    return check("bundled configuration when the server is down", s["configuration"]["source"] == "bundle", s)

@scenario
def bad_signature_keeps_bundle():
    status, doc = req("GET", MOCK + "/v1/mobile/workspaces/acme-market/config", raw=True)
    fault({"endpoint": "config", "kind": "bad_signature", "count": 1})
    c = create(bundledConfiguration=doc.decode())
    return check("bad signature keeps the bundle", c("status")[1]["configuration"]["source"] == "bundle")

@scenario
def unknown_kid_refused():
    fault({"endpoint": "config", "kind": "unknown_kid", "count": 1})
    c = create()
    return check("unknown kid refused", c("status")[1]["configuration"]["source"] is None)

@scenario
def retry_after_honoured():
    fault({"endpoint": "events", "kind": "status", "status": 429, "retryAfterSeconds": 5, "count": 1})
    c = create()
    c("purchase", orderID="o", totalMinor=100, productIDs=["a"], treatments=[])
    c("flush"); c("advanceTime", ms=4999)
    early = len(events())
    c("advanceTime", ms=1)
    return check("retry-after honoured", early == 0 and len(events()) == 1, (early, len(events())))

@scenario
def backoff_same_ids():
    fault({"endpoint": "events", "kind": "truncate", "count": 2})
    c = create()
    c("purchase", orderID="o", totalMinor=100, productIDs=["a"], treatments=[])
    c("flush"); c("advanceTime", ms=999)
    q1 = c("status")[1]["queuedEvents"]
    c("advanceTime", ms=1); c("advanceTime", ms=1999)
    q2 = c("status")[1]["queuedEvents"]
    c("advanceTime", ms=1)
    q3 = c("status")[1]["queuedEvents"]
    return check("backoff 1 s, 2 s, same eventIDs", (q1, q2, q3) == (1, 1, 0) and len(events()) == 1, (q1, q2, q3, len(events())))

@scenario
def offline_backlog_once():
    c = create()
    c("network", online=False)
    c("purchase", orderID="o", totalMinor=100, productIDs=["a"], treatments=[])
    c("flush"); c("advanceTime", ms=60000)
    offline = len(events())
    c("network", online=True)
    return check("offline backlog delivered once", offline == 0 and len(events()) == 1, (offline, len(events())))

@scenario
def kill_at_once():
    c = create()
    c("visit", screen={"type": "home"}); c("render", placements=[{"placement": "home_top"}])
    req("POST", MOCK + "/_mock/workspaces/acme-market/campaigns/home-hero/kill")
    c("advanceTime", ms=60000)
    slots = c("onScreen")[1]["slots"]
    c("anchorVisible", placement="home_top"); c("flush")
    return check("kill at once", slots[0]["content"] is None and [e["type"] for e in events()] == ["eligible", "served"], (slots, events()))

@scenario
def offer_with_grant_only():
    fault({"endpoint": "grants", "kind": "other_customer", "count": 1})
    c = create(customerID="cust_123")
    c("visit", screen={"type": "checkout"}, basket={"totalMinor": 5000, "lineCount": 1, "productIDs": ["a"]})
    before = c("render", placements=[{"placement": "checkout_above_pay"}])[1]["slots"][0]["content"]
    c("identify", customerID=None); c("identify", customerID="cust_123")
    c("visit", screen={"type": "checkout"}, basket={"totalMinor": 5000, "lineCount": 1, "productIDs": ["a"]})
    after = c("render", placements=[{"placement": "checkout_above_pay"}])[1]["slots"][0]["content"]
    c("flush")
    return check("offers only with a verified grant", before is None and after and after["type"] == "offer" and not violations(), (before, after, violations()))

@scenario
def preview_pin():
    c = create(previewToken="pv_carousel", installID="install-0002")
    c("visit", screen={"type": "home"})
    slot = c("render", placements=[{"placement": "home_feed"}])[1]["slots"][0]
    c("visit", screen={"type": "home"})
    c = create(previewToken="pv_winter_hero", installID="install-0002")
    c("visit", screen={"type": "home"})
    hero = c("render", placements=[{"placement": "home_top"}])[1]["slots"][0]["content"]
    c("flush")
    pv = [e.get("preview") for e in events()]
    return check("preview pin", slot["content"] is None and hero["variantID"] == "winter" and hero["isPreview"] and "pv_winter_hero" in pv and not violations(), (slot, hero, pv, violations()))

def metric(route, status="200", method="GET"):
    text = req("GET", MOCK + "/_mock/metrics", raw=True)[1].decode()
    key = 'grona_http_requests_total{route="%s",method="%s",status="%s"} ' % (route, method, status)
    return sum(int(line.split()[-1]) for line in text.splitlines() if line.startswith(key))

@scenario
def offline_backlog_queued_before():
    c = create()
    c("purchase", orderID="o1", totalMinor=100, productIDs=["a"], treatments=[])
    c("network", online=False)
    c("purchase", orderID="o2", totalMinor=100, productIDs=["a"], treatments=[])
    c("advanceTime", ms=60000)
    c("network", online=True)
    return check("offline backlog (queued before and during) delivered once", len(events()) == 2, len(events()))

@scenario
def etag_304():
    before = metric("/v1/mobile/workspaces/{workspaceKey}/config", "304")
    c = create()
    c("advanceTime", ms=60000); c("foreground")
    after = metric("/v1/mobile/workspaces/{workspaceKey}/config", "304")
    return check("If-None-Match gets 304 on poll and foreground", after - before == 2, after - before)

@scenario
def grant_refresh():
    c = create(customerID="cust_123")
    before = metric("/v1/mobile/grants", "200", "POST")
    exp = c("offers")[1]["offers"][0]["grant"]["exp"]
    c("advanceTime", ms=exp * 1000 - 300000 - START - 1)
    mid = metric("/v1/mobile/grants", "200", "POST")
    c("advanceTime", ms=1)
    after = metric("/v1/mobile/grants", "200", "POST")
    return check("grants refreshed 5 minutes before exp", (mid - before, after - before) == (0, 1), (mid - before, after - before))

@scenario
def identify_drops_grants():
    c = create(customerID="cust_123")
    had = len(c("offers")[1]["offers"])
    c("identify", customerID=None)
    return check("identify(null) drops the grants", had > 0 and c("offers")[1]["offers"] == [], had)

@scenario
def targeting_excludes():
    c = create()
    c("visit", screen={"type": "cart"}, basket={"totalMinor": 100, "lineCount": 1, "productIDs": ["a"]})
    slot = c("render", placements=[{"placement": "home_top"}])[1]["slots"][0]
    return check("targeting excludes another screen", slot["content"] is None, slot)

@scenario
def control_arm():
    # install-0003's bucket for home-hero-1 is in the control's 1000.
    for n in range(1, 200):
        install = "install-%04d" % n
        c = create(installID=install)
        c("visit", screen={"type": "home"})
        c("render", placements=[{"placement": "home_top"}])
        c("flush")
        arms = [e["arm"] for e in events(installID=install)]
        if arms and arms[0] == "control":
            c("anchorVisible", placement="home_top")
            act = c("act", placement="home_top", result="accepted")[0]
            c("flush")
            types = [e["type"] for e in events(installID=install)]
            return check("control arm: nothing shown, eligible + anchor_visible, act refused (%s)" % install,
                         types == ["eligible", "anchor_visible"] and act == 409 and not violations(), (types, act, violations()))
    return check("control arm found", False)

@scenario
def changes_wait_for_next_visit():
    c = create()
    c("visit", screen={"type": "home"})
    first = c("render", placements=[{"placement": "home_top"}])[1]["slots"][0]["content"]["campaignID"]
    ws = req("GET", MOCK + "/_mock/workspaces/acme-market")[1]
    status, doc = req("GET", MOCK + "/v1/mobile/workspaces/acme-market/config", raw=True)
    import base64
    payload = json.loads(base64.urlsafe_b64decode(json.loads(doc)["payload"] + "=="))
    source = {"workspaceKey": "acme-market", "secretKeys": ["sk_test_acme_market_local"],
              "signing": {"configKeys": ["acme-market-2026-10", "acme-market-2027-01"], "grantKeys": ["acme-market-grants-2026-10", "acme-market-grants-2027-01"]},
              "grants": {"ttlSeconds": 3600},
              "config": {k: payload[k] for k in ("demoMode", "settings", "campaigns", "previews")}}
    for campaign in source["config"]["campaigns"]:
        if campaign["id"] == "holiday-baking":
            campaign["schedule"] = {"startsAt": START // 1000 - 10, "endsAt": START // 1000 + 86400}
            campaign["variants"] = [{"id": "baking", "weight": 10000, "component": {"type": "banner", "title": "Bake"}}]
    status, answer = req("PUT", MOCK + "/_mock/workspaces/acme-market", source)
    assert status == 200, (status, answer)
    c("advanceTime", ms=60000)
    again = c("render", placements=[{"placement": "home_top"}])[1]["slots"][0]["content"]["campaignID"]
    c("visit", screen={"type": "home"})
    nxt = c("render", placements=[{"placement": "home_top"}])[1]["slots"][0]["content"]["campaignID"]
    return check("other changes wait for the next visit", (first, again, nxt) == ("home-hero", "home-hero", "holiday-baking"), (first, again, nxt))

def workspace_source(mutate):
    """The acme-market workspace as a source document, changed by `mutate`, for PUT /_mock/workspaces."""
    import base64
    status, doc = req("GET", MOCK + "/v1/mobile/workspaces/acme-market/config", raw=True)
    payload = json.loads(base64.urlsafe_b64decode(json.loads(doc)["payload"] + "=="))
    source = {"workspaceKey": "acme-market", "secretKeys": ["sk_test_acme_market_local"],
              "signing": {"configKeys": ["acme-market-2026-10", "acme-market-2027-01"], "grantKeys": ["acme-market-grants-2026-10", "acme-market-grants-2027-01"]},
              "grants": {"ttlSeconds": 3600},
              "config": {k: payload[k] for k in ("demoMode", "settings", "campaigns", "previews")}}
    mutate(source)
    status, answer = req("PUT", MOCK + "/_mock/workspaces/acme-market?allowInvalid=true", source)
    assert status == 200, (status, answer)

@scenario
def demo_flag():
    workspace_source(lambda s: s["config"].update(demoMode=True))
    c = create()
    c("purchase", orderID="o", totalMinor=100, productIDs=["a"], treatments=[])
    c("flush")
    return check("demo mode marks every event", [e.get("demo") for e in events()] == [True] and not violations(), (events(), violations()))

@scenario
def duplicates_only_on_retry():
    before = int([l for l in req("GET", MOCK + "/_mock/metrics", raw=True)[1].decode().splitlines() if l.startswith("grona_events_duplicate_total")][0].split()[-1])
    c = create()
    c("purchase", orderID="o", totalMinor=100, productIDs=["a"], treatments=[])
    c("flush"); c("advanceTime", ms=120000)
    after = int([l for l in req("GET", MOCK + "/_mock/metrics", raw=True)[1].decode().splitlines() if l.startswith("grona_events_duplicate_total")][0].split()[-1])
    return check("a batch answered 200 is never sent again", after == before, after - before)

@scenario
def sent_at_from_sdk_clock():
    c = create()
    c("advanceTime", ms=5000)
    c("purchase", orderID="o", totalMinor=100, productIDs=["a"], treatments=[])
    c("flush")
    e = events()[0]
    return check("sentAt from the SDK clock (skew corrected to receivedAt)", e["timestamp"] == START + 5000 and e["correctedTimestamp"] == e["receivedAt"], e)

@scenario
def next_key_alone():
    workspace_source(lambda s: s["signing"].update(configKeys=["acme-market-2027-01"]))
    c = create()
    return check("a document signed by the next key alone is used", c("status")[1]["configuration"]["source"] == "network")

@scenario
def other_workspace_bundle():
    req("DELETE", MOCK + "/_mock/workspaces/acme-copy")
    status, answer = req("POST", MOCK + "/_mock/workspaces/acme-market/clone", {"workspaceKey": "acme-copy"})
    assert status in (200, 201), (status, answer)
    status, doc = req("GET", MOCK + "/v1/mobile/workspaces/acme-copy/config", raw=True)
    fault({"endpoint": "config", "kind": "status", "status": 500, "count": 1})
    c = create(bundledConfiguration=doc.decode())
    return check("a bundled document of another workspace is refused", c("status")[1]["configuration"]["source"] is None, c("status")[1])

def bucket(salt, unit):
    import hashlib
    return int.from_bytes(hashlib.sha256((salt + "." + unit).encode()).digest()[:8], "big") % 10000

@scenario
def per_screen_cap():
    workspace_source(lambda s: s["config"]["settings"].update(maxComponentsPerScreen=1))
    # An install with both home-hero (bucket >= 1000: a banner) and home-feed-picks' rail (2000 <= bucket < 6000),
    # outside the holdout (the holdout is by unit too).
    for n in range(1, 2000):
        install = "install-%04d" % n
        if bucket("home-hero-1", install) >= 1000 and 2000 <= bucket("home-feed-picks-1", install) < 6000 and bucket("acme-holdout-1", install) >= 500:
            break
    c = create(installID=install)
    c("visit", screen={"type": "home"})
    slots = c("render", placements=[{"placement": "home_top"}, {"placement": "home_feed"}])[1]["slots"]
    shown = [s["content"]["campaignID"] for s in slots if s["content"]]
    return check("per-screen cap 1: the higher priority shows (%s)" % install, shown == ["home-hero"], slots)

@scenario
def foreign_image_host():
    def mutate(source):
        for campaign in source["config"]["campaigns"]:
            if campaign["id"] == "home-hero":
                for variant in campaign["variants"]:
                    if "component" in variant:
                        variant["component"]["image"] = "https://evil.example/x.png"
    workspace_source(mutate)
    c = create()
    c("visit", screen={"type": "home"})
    slot = c("render", placements=[{"placement": "home_top"}])[1]["slots"][0]
    return check("an image on a host not in imageHosts is not shown", slot["content"] is None, slot)

print("%d/%d passed" % (sum(map(bool, results)), len(results)))
sys.exit(0 if all(results) else 1)
