"""grona-mock as a Testcontainers fixture, the way a Python order backend's or SDK's tests would use it.

One generic container of the grona-mock image per test module, ready once GET /_mock/health/ready answers 200 (the
same route as the image's HEALTHCHECK and the docs' Java and Kotlin sketches, docs/testcontainers.md). The tests
then use it as a client would: fetch the signed configuration, post events, read them back.

    pip install -r requirements.txt
    GRONA_MOCK_IMAGE=grona-mock:local pytest -v test_grona_mock.py

The image is whatever GRONA_MOCK_IMAGE names (default grona-mock:local, built from the repository's Dockerfile).
With Docker nothing else is needed. With podman, point DOCKER_HOST at its Docker-compatible socket and turn off
Ryuk, which podman cannot pull or run as Docker does: run.sh beside this file does all of it, as CI runs it.
"""

import base64
import json
import os
import time
import urllib.error
import urllib.request
import uuid

import pytest
from testcontainers.core.container import DockerContainer
from testcontainers.core.wait_strategies import HttpWaitStrategy

IMAGE = os.environ.get("GRONA_MOCK_IMAGE", "grona-mock:local")
WORKSPACE = "acme-market"


@pytest.fixture(scope="module")
def grona_mock():
    """The base URL of a started grona-mock container, removed when the module's tests end."""
    ready = (
        HttpWaitStrategy(8080, "/_mock/health/ready")
        .for_status_code(200)
        .with_startup_timeout(60)
        .with_poll_interval(0.5)
    )
    container = DockerContainer(IMAGE).with_exposed_ports(8080).waiting_for(ready)
    with container:
        yield f"http://{container.get_container_host_ip()}:{container.get_exposed_port(8080)}"


def request(url, method="GET", body=None, headers=None):
    """(status, headers, body bytes) of one request; HTTP errors are answers too."""
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method, headers=headers or {})
    if data is not None:
        req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=10) as answer:
            return answer.status, answer.headers, answer.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


def b64url(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def test_ready_with_both_workspaces_and_writable_storage(grona_mock):
    status, _, body = request(f"{grona_mock}/_mock/health/ready")
    assert status == 200
    health = json.loads(body)
    assert health["workspaces"]["loaded"] == 2
    assert health["workspaces"]["errors"] == []
    assert health["storage"]["writable"] is True


def test_signed_configuration_and_its_etag(grona_mock):
    url = f"{grona_mock}/v1/mobile/workspaces/{WORKSPACE}/config"
    status, headers, body = request(url)
    assert status == 200
    assert headers["Content-Type"].startswith("application/jose+json")
    etag = headers["ETag"]
    assert etag.startswith('"') and etag.endswith('"'), etag

    jws = json.loads(body)
    assert json.loads(b64url(jws["payload"]))["workspaceKey"] == WORKSPACE
    protected = [json.loads(b64url(signature["protected"])) for signature in jws["signatures"]]
    assert [header["alg"] for header in protected] == ["ES256", "ES256"]
    assert [header["kid"] for header in protected] == ["acme-market-2026-10", "acme-market-2027-01"]

    status, _, _ = request(url, headers={"If-None-Match": etag})
    assert status == 304


def test_events_are_stored_once(grona_mock):
    install = str(uuid.uuid4())
    now = int(time.time() * 1000)
    placement = {"sessionID": "s-1", "placement": "home_top", "screen": {"type": "home"}, "visitID": "v-1",
                 "campaignID": "home-hero", "variantID": "control", "arm": "control"}
    batch = {
        "workspaceKey": WORKSPACE, "installID": install, "sentAt": now,
        "sdk": {"platform": "android", "version": "1.4.0"}, "app": {"id": "com.example.grocery", "version": "5.2.0"},
        "events": [
            {"eventID": f"{install}-exposure", "type": "exposure", "timestamp": now, **placement},
            {"eventID": f"{install}-served", "type": "served", "timestamp": now, **placement},
        ],
    }
    status, _, body = request(f"{grona_mock}/v1/mobile/events", "POST", batch)
    assert status == 200
    assert json.loads(body) == {"accepted": 2, "duplicates": 0, "rejected": []}

    status, _, body = request(f"{grona_mock}/_mock/events?workspace={WORKSPACE}&installID={install}&limit=10")
    assert status == 200
    stored = sorted((event["eventID"], event["type"]) for event in json.loads(body)["events"])
    assert stored == [(f"{install}-exposure", "exposure"), (f"{install}-served", "served")]

    # An SDK's retry of the same batch: counted as duplicates, not stored again.
    status, _, body = request(f"{grona_mock}/v1/mobile/events", "POST", batch)
    assert status == 200
    assert json.loads(body) == {"accepted": 0, "duplicates": 2, "rejected": []}


def test_a_bad_event_is_rejected_alone(grona_mock):
    install = str(uuid.uuid4())
    now = int(time.time() * 1000)
    batch = {
        "workspaceKey": WORKSPACE, "installID": install, "sentAt": now,
        "sdk": {"platform": "android", "version": "1.4.0"}, "app": {"id": "com.example.grocery", "version": "5.2.0"},
        "events": [
            {"eventID": f"{install}-good", "type": "exposure", "timestamp": now, "sessionID": "s-1",
             "placement": "home_top", "screen": {"type": "home"}, "visitID": "v-1", "campaignID": "home-hero",
             "variantID": "control", "arm": "control"},
            {"eventID": f"{install}-bad", "type": "exposure", "timestamp": now, "sessionID": "s-1",
             "placement": "home_topp", "screen": {"type": "home"}, "visitID": "v-1", "campaignID": "home-hero",
             "variantID": "control", "arm": "control"},
        ],
    }
    status, _, body = request(f"{grona_mock}/v1/mobile/events", "POST", batch)
    assert status == 200
    answer = json.loads(body)
    assert (answer["accepted"], answer["duplicates"]) == (1, 0)
    assert [(r["index"], r["eventID"], r["field"]) for r in answer["rejected"]] == [(1, f"{install}-bad", "placement")]
