// Violations: breaches of the SDK's side of the contract in the stored events (GET /_mock/events/violations),
// each with the events involved; a click on an event shows its JSON as stored.

import { api, query, workspaceKeys } from "./api.js";
import { el, field, jsonBlock, replace, showError } from "./dom.js";

export async function render(container) {
  const keys = await workspaceKeys();
  const picker = el("select", { id: "violations-workspace" }, keys.map((key) => el("option", { value: key }, key)));
  const output = el("div", { id: "violations-output" });
  const detail = el("div", { id: "violation-event" });
  const load = async () => {
    try {
      const workspace = picker.value;
      const [summary, page] = await Promise.all([
        api(`/_mock/events/violations${query({ workspace, summary: "true" })}`),
        api(`/_mock/events/violations${query({ workspace, limit: 200 })}`)]);
      replace(output,
        el("p", {}, `${summary.total ?? 0} violations in ${page.checkedEvents ?? 0} events checked.`),
        el("ul", {}, Object.entries(summary.counts ?? {}).filter(([, count]) => count > 0).map(([rule, count]) =>
          el("li", {}, `${rule}: ${count}`))),
        el("table", { class: "violations" },
          el("thead", {}, el("tr", {}, el("th", {}, "rule"), el("th", {}, "message"), el("th", {}, "events"))),
          el("tbody", {}, (page.violations ?? []).map((violation) => el("tr", { "data-rule": violation.rule },
            el("td", {}, violation.rule), el("td", {}, violation.message),
            el("td", {}, (violation.events ?? []).map((sequence, index) => el("button", {
              type: "button", "data-sequence": sequence,
              onclick: () => showEvent(detail, workspace, sequence),
            }, violation.eventIDs?.[index] ?? String(sequence)))))))),
        page.nextCursor ? el("p", { class: "muted" }, "Only the first 200 are listed.") : null);
    } catch (error) {
      showError(output, error);
    }
  };
  picker.addEventListener("change", load);
  replace(container, el("h2", {}, "Violations"),
    el("div", { class: "toolbar" }, ...field("Workspace", picker),
      el("button", { type: "button", onclick: load }, "Check again")),
    el("div", { class: "split" }, output, detail));
  if (keys.length) await load();
}

/** The stored event with this sequence number: the one page after the sequence before it. */
async function showEvent(detail, workspace, sequence) {
  try {
    const page = await api(`/_mock/events${query({ workspace, cursor: sequence - 1, limit: 1 })}`);
    const event = (page.events ?? [])[0];
    replace(detail, event ? jsonBlock(event) : el("p", { class: "muted" }, "That event is no longer stored."));
  } catch (error) {
    showError(detail, error);
  }
}
