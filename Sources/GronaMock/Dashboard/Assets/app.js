// The dashboard's shell: hash routing between the pages, the admin token prompt, and errors shown as text.

import { TokenRequired, serverInfo, token, api } from "./api.js";
import { el, replace } from "./dom.js";
import * as workspaces from "./workspaces.js";
import * as live from "./live.js";
import * as funnels from "./funnels.js";
import * as violations from "./violations.js";
import * as faults from "./faults.js";
import * as clock from "./clock.js";
import * as conformance from "./conformance.js";

const pages = { workspaces, live, funnels, violations, faults, clock, conformance };
const main = document.getElementById("page");
const prompt = document.getElementById("token-prompt");
const input = document.getElementById("token-input");
const promptError = document.getElementById("token-error");
const forget = document.getElementById("forget-token");
let leave = null;
let needsToken = false;
/** Counts navigations, so that a page whose render finishes after another was opened is left at once. */
let navigation = 0;

/** Shows the token prompt, with why. */
function askForToken(reason = "") {
  main.hidden = true;
  prompt.hidden = false;
  promptError.textContent = reason;
  input.value = "";
  input.focus();
}

async function useToken() {
  const value = input.value.trim();
  if (!value) {
    promptError.textContent = "Enter the token the server was started with.";
    return;
  }
  token.set(value);
  try {
    await api("/_mock/clock");
  } catch (error) {
    if (error instanceof TokenRequired) {
      token.clear();
      askForToken("The server refused this token.");
      return;
    }
  }
  prompt.hidden = true;
  main.hidden = false;
  show();
}

/** Renders the page the hash names; a page's `render` may answer a function to call when it is left. */
async function show() {
  const current = ++navigation;
  if (leave) {
    leave();
    leave = null;
  }
  const name = (location.hash.replace(/^#\/?/, "").split("/")[0] || "workspaces").toLowerCase();
  const page = Object.hasOwn(pages, name) ? pages[name] : pages.workspaces;
  for (const link of document.querySelectorAll("#nav a")) {
    link.classList.toggle("current", link.getAttribute("href") === `#/${name}`);
  }
  forget.hidden = !needsToken;
  if (needsToken && !token.get()) return askForToken();
  const container = el("div", { "data-page": name });
  replace(main, container);
  try {
    const left = (await page.render(container)) ?? null;
    // Another page was opened while this one loaded: whatever it started (the live stream) stops now.
    if (current !== navigation) return left?.();
    leave = left;
  } catch (error) {
    if (current !== navigation) return;
    if (error instanceof TokenRequired) {
      token.clear();
      return askForToken("The server refused the token; enter it again.");
    }
    replace(container, el("p", { class: "error", role: "alert" }, `Could not load this page: ${error.message}`));
  }
}

document.getElementById("token-submit").addEventListener("click", useToken);
input.addEventListener("keydown", (event) => {
  if (event.key === "Enter") useToken();
});
forget.addEventListener("click", () => {
  token.clear();
  askForToken();
});
window.addEventListener("hashchange", show);
window.addEventListener("grona-token-required", () => {
  token.clear();
  askForToken("The server refused the token; enter it again.");
});

serverInfo().then((info) => {
  needsToken = info.adminToken === true;
  show();
});
