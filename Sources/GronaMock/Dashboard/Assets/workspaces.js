// Workspaces: each with its revision, keys, origin (file or clone) and campaigns (placement, status, schedule,
// arms), kill and revive buttons, clones, and the served configuration decoded with each signature's status.

import { api, query, vocabulary } from "./api.js";
import { el, field, isoTime, jsonBlock, replace, showError } from "./dom.js";
import { verifyConfiguration } from "./jws.js";

// The arm a variant's `control` flag gives (contract §5) and the kill switch's status (§4), from the engine's
// enums: set as the view opens.
let arms = { control: "", treatment: "" };
let killedStatus = "";

export async function render(container) {
  const [listing, names] = await Promise.all([api("/_mock/workspaces"), vocabulary()]);
  arms = { control: names.controlArm, treatment: names.treatmentArm };
  killedStatus = names.killedStatus;
  replace(container, el("h2", {}, "Workspaces"));
  for (const problem of listing.errors ?? []) {
    container.append(el("p", { class: "error" }, `${problem.file ?? ""}: ${problem.reason ?? JSON.stringify(problem)}`));
  }
  for (const summary of listing.workspaces ?? []) {
    const card = el("section", { class: "card", "data-workspace": summary.workspaceKey });
    container.append(card);
    await renderWorkspace(card, summary.workspaceKey);
  }
}

async function renderWorkspace(card, key) {
  const detail = await api(`/_mock/workspaces/${encodeURIComponent(key)}`);
  const campaigns = detail.workspace?.config?.campaigns ?? [];
  const clone = detail.origin === "clone";
  replace(
    card,
    el("h3", {}, key, " ", el("span", { class: "muted" }, `revision ${detail.revision} · ${detail.origin}`)),
    el("p", {}, "Config keys: ", (detail.configKeys ?? []).join(", "), " · Grant keys: ",
      (detail.grantKeys ?? []).join(", ")),
    clone && detail.expiresAt ? el("p", { class: "muted" }, `Clone, removed at ${isoTime(detail.expiresAt)}`) : null,
    (detail.problems ?? []).length
      ? el("ul", {}, detail.problems.map((problem) =>
        el("li", { class: problem.severity === "error" ? "error" : "muted" }, `${problem.severity} ${problem.path}: ${problem.reason}`)))
      : null,
    campaignTable(card, key, campaigns),
    cloneForm(card, key),
    clone ? el("button", { type: "button", onclick: () => removeClone(card, key) }, "Remove clone") : null,
    configurationPanel(key));
}

function campaignTable(card, key, campaigns) {
  const rows = campaigns.map((campaign) => {
    const killed = campaign.status === killedStatus;
    const action = killed ? "revive" : "kill";
    return el("tr", { "data-campaign": campaign.id },
      el("td", {}, campaign.id), el("td", {}, campaign.name ?? ""), el("td", {}, campaign.placement ?? ""),
      el("td", { class: `status-${campaign.status}`, "data-status": campaign.status }, campaign.status ?? ""),
      el("td", {}, schedule(campaign.schedule)),
      el("td", {}, (campaign.variants ?? []).map((variant) =>
        el("div", {}, `${variant.id} (${variant.control ? arms.control : arms.treatment}, weight ${variant.weight})`))),
      el("td", {}, el("button", {
        type: "button", "data-action": action,
        onclick: () => change(card, key, campaign.id, action),
      }, killed ? "Revive" : "Kill")));
  });
  return el("table", { class: "campaigns" },
    el("thead", {}, el("tr", {}, ["Campaign", "Name", "Placement", "Status", "Schedule", "Arms", ""].map((title) =>
      el("th", {}, title)))),
    el("tbody", {}, rows));
}

function schedule(value) {
  if (!value) return "always";
  const seconds = (time) => (typeof time === "number" ? isoTime(time * 1000) : "…");
  return `${seconds(value.startsAt)} → ${seconds(value.endsAt)}`;
}

async function change(card, key, campaign, action) {
  try {
    await api(`/_mock/workspaces/${encodeURIComponent(key)}/campaigns/${encodeURIComponent(campaign)}/${action}`,
      { method: "POST" });
    await renderWorkspace(card, key);
  } catch (error) {
    showError(card, error);
  }
}

function cloneForm(card, key) {
  const input = el("input", { id: `clone-${key}`, placeholder: "new workspace key", spellcheck: "false" });
  return el("div", { class: "toolbar" }, ...field("Clone as", input),
    el("button", {
      type: "button",
      onclick: async () => {
        try {
          await api(`/_mock/workspaces/${encodeURIComponent(key)}/clone`,
            { method: "POST", body: { workspaceKey: input.value.trim() } });
          location.reload();
        } catch (error) {
          showError(card, error);
        }
      },
    }, "Clone"));
}

async function removeClone(card, key) {
  try {
    await api(`/_mock/workspaces/${encodeURIComponent(key)}`, { method: "DELETE" });
    card.remove();
  } catch (error) {
    showError(card, error);
  }
}

function configurationPanel(key) {
  const output = el("div", { class: "configuration" });
  const button = el("button", {
    type: "button", "data-action": "verify",
    onclick: async () => {
      replace(output, el("p", { class: "muted" }, "Fetching…"));
      try {
        const base = `/v1/mobile/workspaces/${encodeURIComponent(key)}`;
        const [documentResponse, jwksResponse] = await Promise.all([
          fetch(`${base}/config${query({})}`, { cache: "no-store" }), fetch(`${base}/jwks.json`, { cache: "no-store" })]);
        if (!documentResponse.ok) throw new Error(`the configuration endpoint answered ${documentResponse.status}`);
        const { payload, signatures } = await verifyConfiguration(await documentResponse.json(), await jwksResponse.json());
        replace(output,
          el("table", { class: "signatures" },
            el("tr", {}, el("th", {}, "kid"), el("th", {}, "alg"), el("th", {}, "signature")),
            signatures.map((signature) => el("tr", {},
              el("td", {}, signature.kid), el("td", {}, signature.alg),
              el("td", { class: signature.status === "valid" ? "ok" : "error", "data-signature": signature.status },
                signature.status)))),
          jsonBlock(payload));
      } catch (error) {
        replace(output, el("p", { class: "error" }, `Could not verify: ${error.message}`));
      }
    },
  }, "Fetch and verify the served configuration");
  return el("div", {},
    el("p", { class: "muted" },
      "A real request to the configuration endpoint: fault rules for config apply to it."),
    button, output);
}
