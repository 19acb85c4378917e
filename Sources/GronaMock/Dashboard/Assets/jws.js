// The served configuration, decoded and verified in the browser: a JWS in General JSON Serialization
// (RFC 7515 §7.2.1), each signature ES256 (RFC 7518 §3.4: r || s, 64 bytes), checked with WebCrypto against
// the workspace's JWK Set. WebCrypto exists only in a secure context (https, or 127.0.0.1 and localhost);
// elsewhere the signatures are shown as not checked.

/** Bytes from base64url (RFC 4648 §5, no padding). */
export function base64urlBytes(text) {
  const base64 = text.replace(/-/g, "+").replace(/_/g, "/").padEnd(Math.ceil(text.length / 4) * 4, "=");
  const binary = atob(base64);
  return Uint8Array.from(binary, (character) => character.charCodeAt(0));
}

function decodeJSON(part) {
  return JSON.parse(new TextDecoder().decode(base64urlBytes(part)));
}

/**
 * The payload and, per signature, its kid and status: "valid", "invalid", "unknown key" or "not checked".
 * `jws` is the parsed configuration document, `jwks` the parsed JWK Set.
 */
export async function verifyConfiguration(jws, jwks) {
  const payload = decodeJSON(jws.payload);
  const subtle = globalThis.crypto?.subtle;
  const keys = new Map((jwks.keys ?? []).map((key) => [key.kid, key]));
  const results = [];
  for (const signature of jws.signatures ?? []) {
    let header = {};
    try {
      header = decodeJSON(signature.protected);
    } catch {
      results.push({ kid: "?", alg: "?", status: "invalid" });
      continue;
    }
    const jwk = keys.get(header.kid);
    let status;
    if (!jwk) {
      status = "unknown key";
    } else if (!subtle) {
      status = "not checked";
    } else {
      status = (await verifyES256(subtle, jwk, `${signature.protected}.${jws.payload}`, signature.signature))
        ? "valid"
        : "invalid";
    }
    results.push({ kid: String(header.kid), alg: String(header.alg), status });
  }
  return { payload, signatures: results };
}

async function verifyES256(subtle, jwk, signingInput, signature) {
  if (jwk.kty !== "EC" || jwk.crv !== "P-256") return false;
  try {
    const key = await subtle.importKey(
      "jwk", { kty: "EC", crv: "P-256", x: jwk.x, y: jwk.y }, { name: "ECDSA", namedCurve: "P-256" }, false,
      ["verify"]);
    return await subtle.verify(
      { name: "ECDSA", hash: "SHA-256" }, key, base64urlBytes(signature), new TextEncoder().encode(signingInput));
  } catch {
    return false;
  }
}
