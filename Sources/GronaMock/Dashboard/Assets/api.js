// Calls to the /_mock API. The admin token lives in this tab's sessionStorage and goes in the Authorization
// header only: never in a URL, where it would end up in logs and history.

const tokenKey = "grona-mock-admin-token";

/** A refusal for want of the right admin token (401). */
export class TokenRequired extends Error {}

/** Any other answer that is not a success, with the server's error code and message. */
export class APIError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

export const token = {
  get: () => sessionStorage.getItem(tokenKey),
  set: (value) => sessionStorage.setItem(tokenKey, value),
  clear: () => sessionStorage.removeItem(tokenKey),
};

/** The headers of an API call: the token when there is one. */
export function headers(extra = {}) {
  const result = { ...extra };
  const value = token.get();
  if (value) result.Authorization = `Bearer ${value}`;
  return result;
}

/** A `/_mock` call answering JSON; `body` is sent as JSON. Throws TokenRequired or APIError. */
export async function api(path, { method = "GET", body, signal } = {}) {
  const init = { method, headers: headers(body === undefined ? {} : { "Content-Type": "application/json" }), signal };
  if (body !== undefined) init.body = JSON.stringify(body);
  const response = await fetch(path, init);
  return answer(response);
}

/** A response's JSON, or the error it carries. */
export async function answer(response) {
  const text = await response.text();
  let value = null;
  try {
    value = text ? JSON.parse(text) : null;
  } catch {
    value = null;
  }
  if (response.status === 401) throw new TokenRequired(value?.error?.message ?? "The admin token is required.");
  if (!response.ok) {
    throw new APIError(response.status, value?.error?.code ?? "", value?.error?.message ?? `HTTP ${response.status}`);
  }
  return value;
}

/** What the server says about itself to the page before any token: whether it needs one. */
export async function serverInfo() {
  const response = await fetch("/_mock/ui/server.json");
  return response.ok ? response.json() : { adminToken: false };
}

/** The names the forms offer (fault endpoints, fault kinds and their parameters), from the engine's enums. */
export async function vocabulary() {
  const response = await fetch("/_mock/ui/vocabulary.json");
  if (!response.ok) throw new Error(`the dashboard's vocabulary.json answered ${response.status}`);
  return response.json();
}

/** A query string from an object, leaving out empty values. */
export function query(parameters) {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(parameters)) {
    if (value !== undefined && value !== null && value !== "") search.set(name, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : "";
}

/** The served workspaces' keys, for the pickers. */
export async function workspaceKeys() {
  const listing = await api("/_mock/workspaces");
  return (listing.workspaces ?? []).map((workspace) => workspace.workspaceKey);
}
