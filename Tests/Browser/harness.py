"""What the dashboard's browser tests share: a real grona-mock (the built binary, port 0, its start line read),
headless Chromium driven by Selenium, HTTP calls to the mock, and an independent ES256 check of the served
configuration (the `cryptography` package, not the mock's own code and not the page's)."""

import base64
import json
import os
import re
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

REPOSITORY = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
OUTPUT = os.path.join(os.path.dirname(__file__), "output")
BINARY = os.environ.get("GRONA_MOCK_BINARY", os.path.join(REPOSITORY, ".build", "debug", "grona-mock"))


class Mock:
    """A grona-mock started from the built binary on port 0, stopped (and waited for) by `stop`."""

    def __init__(self, token=None):
        self.token = token
        self.directory = tempfile.mkdtemp(prefix="grona-browser-")
        arguments = [BINARY, "serve", "--port", "0", "--db", ":memory:",
                     "--workspaces", os.path.join(REPOSITORY, "workspaces"), "--keys", os.path.join(REPOSITORY, "keys")]
        environment = dict(os.environ)
        if token:
            # By environment, so the token is not in the process list.
            environment["GRONA_MOCK_ADMIN_TOKEN"] = token
        self.process = subprocess.Popen(arguments, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                        env=environment, cwd=self.directory)
        self.lines = []
        deadline = time.monotonic() + 20
        self.port = None
        while time.monotonic() < deadline:
            line = self.process.stdout.readline()
            if not line:
                break
            self.lines.append(line)
            match = re.search(r"listening on http://127\.0\.0\.1:(\d+)", line)
            if match:
                self.port = int(match.group(1))
                break
        if self.port is None:
            self.stop()
            raise RuntimeError("grona-mock did not start:\n" + "".join(self.lines))
        # Keep reading its output, so that it never blocks on a full pipe.
        threading.Thread(target=self._drain, daemon=True).start()
        self.base = f"http://127.0.0.1:{self.port}"

    def _drain(self):
        for line in self.process.stdout:
            self.lines.append(line)

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def request(self, method, path, body=None, token=True):
        """(status, parsed JSON or None) of one call; the admin token is sent unless `token` is False."""
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data=data, method=method)
        if body is not None:
            request.add_header("Content-Type", "application/json")
        if token and self.token:
            request.add_header("Authorization", f"Bearer {self.token}")
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                text = response.read()
                return response.status, (json.loads(text) if text else None)
        except urllib.error.HTTPError as error:
            text = error.read()
            return error.code, (json.loads(text) if text else None)

    def post_events(self, workspace, install, events):
        now = int(time.time() * 1000)
        status, body = self.request("POST", "/v1/mobile/events", {
            "workspaceKey": workspace, "installID": install, "sdk": {"platform": "ios", "version": "1.4.0"},
            "app": {"id": "com.example.browser", "version": "1.0"}, "sentAt": now, "events": events}, token=False)
        if status != 200:
            raise AssertionError(f"events refused: {status} {body}")
        return body


def placement_event(kind, event_id, campaign="home-hero", variant="spring", arm="treatment", placement="home_top",
                    screen="home", **extra):
    event = {"eventID": event_id, "type": kind, "timestamp": int(time.time() * 1000), "sessionID": "s-1",
             "placement": placement, "screen": {"type": screen}, "visitID": f"v-{event_id}", "campaignID": campaign,
             "variantID": variant, "arm": arm}
    event.update(extra)
    return event


def browser():
    """Headless Chromium from Debian, with the page's console kept for the tests to read."""
    options = webdriver.ChromeOptions()
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--window-size=1400,1000", "--no-first-run", "--disable-extensions"):
        options.add_argument(argument)
    binary = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    if os.path.exists(binary):
        options.binary_location = binary
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver_path = os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")
    service = Service(executable_path=driver_path) if os.path.exists(driver_path) else Service()
    return webdriver.Chrome(options=options, service=service)


def console_errors(driver):
    """The console's errors since the last call (Chromium's SEVERE entries)."""
    return [entry for entry in driver.get_log("browser") if entry.get("level") == "SEVERE"]


def screenshot(driver, name):
    os.makedirs(OUTPUT, exist_ok=True)
    driver.save_screenshot(os.path.join(OUTPUT, f"{name}.png"))


def b64url(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def verified_configuration(mock, workspace):
    """The served configuration's payload, after checking every signature (ES256, RFC 7515 §7.2.1) against the
    workspace's JWKS with the `cryptography` package. Raises when any signature does not verify."""
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

    with urllib.request.urlopen(f"{mock.base}/v1/mobile/workspaces/{workspace}/config", timeout=10) as response:
        document = json.loads(response.read())
    with urllib.request.urlopen(f"{mock.base}/v1/mobile/workspaces/{workspace}/jwks.json", timeout=10) as response:
        keys = {key["kid"]: key for key in json.loads(response.read())["keys"]}
    assert document["signatures"], "no signature"
    for signature in document["signatures"]:
        header = json.loads(b64url(signature["protected"]))
        assert header["alg"] == "ES256", header
        jwk = keys[header["kid"]]
        public = ec.EllipticCurvePublicNumbers(
            int.from_bytes(b64url(jwk["x"]), "big"), int.from_bytes(b64url(jwk["y"]), "big"),
            ec.SECP256R1()).public_key()
        raw = b64url(signature["signature"])
        assert len(raw) == 64, "an ES256 signature is r || s, 64 bytes"
        der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
        try:
            public.verify(der, f"{signature['protected']}.{document['payload']}".encode(), ec.ECDSA(hashes.SHA256()))
        except InvalidSignature as error:
            raise AssertionError(f"signature by {header['kid']} does not verify") from error
    return json.loads(b64url(document["payload"]))
