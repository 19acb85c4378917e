// Faults: the rules with their fire counts (GET /_mock/faults), a form that adds one (POST), a button that
// removes one (DELETE). The server checks every field and names each problem; its message is shown as text.

import { api, vocabulary } from "./api.js";
import { el, field, replace, showError } from "./dom.js";

const columns = ["id", "endpoint", "workspace", "kind", "parameters", "fired", "remaining", "seen", ""];

export async function render(container) {
  // The endpoints, kinds, each kind's parameters and those every rule takes, from the engine's enums (never a
  // copy kept here).
  const { faultEndpoints: endpoints, faultKinds: kinds, faultCommonParameters: common } = await vocabulary();
  const parametersOf = new Map(kinds.map(({ kind, parameters }) => [kind, parameters]));
  const numbers = [...common, ...new Set(kinds.flatMap(({ parameters }) => parameters))];
  const list = el("div", { id: "fault-list" });
  const controls = {
    endpoint: el("select", { id: "fault-endpoint" }, endpoints.map((name) => el("option", { value: name }, name))),
    workspace: el("input", { id: "fault-workspace", placeholder: "any workspace", spellcheck: "false" }),
    kind: el("select", { id: "fault-kind" }, kinds.map(({ kind, endpoint }) =>
      el("option", { value: kind }, endpoint ? `${kind} (${endpoint} only)` : kind))),
  };
  for (const name of numbers) controls[name] = el("input", { id: `fault-${name}`, inputmode: "decimal" });
  if (controls.count) controls.count.value = "1";
  if (controls.status) controls.status.value = "503";

  const refresh = async () => {
    const answer = await api("/_mock/faults");
    const rules = answer.faults ?? [];
    replace(list, rules.length === 0 ? el("p", { class: "muted" }, "No fault rules.") : el("table", { class: "faults" },
      el("thead", {}, el("tr", {}, columns.map((title) => el("th", {}, title)))),
      el("tbody", {}, rules.map((rule) => el("tr", { "data-fault": rule.id },
        el("td", {}, rule.id), el("td", {}, rule.endpoint), el("td", {}, rule.workspace ?? "any"),
        el("td", {}, rule.kind), el("td", {}, parameters(rule, numbers)),
        el("td", { class: "number", "data-fired": rule.fired }, String(rule.fired)),
        el("td", { class: "number" }, rule.remaining === null ? "∞" : String(rule.remaining)),
        el("td", { class: "number" }, String(rule.seen)),
        el("td", {}, el("button", {
          type: "button", "data-action": "remove",
          onclick: async () => {
            try {
              await api(`/_mock/faults/${encodeURIComponent(rule.id)}`, { method: "DELETE" });
              await refresh();
            } catch (error) {
              showError(list, error);
            }
          },
        }, "Remove")))))));
  };

  const add = async () => {
    const rule = { endpoint: controls.endpoint.value, kind: controls.kind.value };
    if (controls.workspace.value.trim()) rule.workspace = controls.workspace.value.trim();
    for (const name of numbers) {
      const text = controls[name].value.trim();
      if (!text) continue;
      // Only the parameters of the chosen kind are sent; the server refuses the others.
      if (!common.includes(name) && !(parametersOf.get(rule.kind) ?? []).includes(name)) continue;
      rule[name] = Number(text);
    }
    try {
      await api("/_mock/faults", { method: "POST", body: rule });
      await refresh();
    } catch (error) {
      showError(form, error);
    }
  };

  const form = el("div", { class: "card" }, el("h3", {}, "Add a rule"),
    el("div", { class: "form-grid" },
      ...field("Endpoint", controls.endpoint), ...field("Workspace", controls.workspace),
      ...field("Kind", controls.kind), ...numbers.flatMap((name) => field(name, controls[name]))),
    el("button", { type: "button", id: "fault-add", onclick: add }, "Add rule"));
  replace(container, el("h2", {}, "Faults"), list, form);
  await refresh();
}

function parameters(rule, numbers) {
  return numbers
    .filter((name) => rule[name] !== undefined && rule[name] !== null)
    .map((name) => `${name}=${rule[name]}`)
    .join(" ");
}
