// Live events: what the SDK sends, as the server commits it (GET /_mock/events/live), filtered by workspace,
// type, install and campaign; pause and resume; a click opens the event's JSON; rejected events show why.

import { query, vocabulary, workspaceKeys } from "./api.js";
import { el, field, isoTime, jsonBlock, replace, showError } from "./dom.js";
import { readEvents } from "./sse.js";

/** Rows kept on screen; older ones are removed as new ones come. */
const maxRows = 500;

export async function render(container) {
  const [keys, { eventTypes }] = await Promise.all([workspaceKeys(), vocabulary()]);
  // Suggested, not imposed: a type from a newer SDK is still one to filter on.
  const types = el("datalist", { id: "live-types" }, eventTypes.map((type) => el("option", { value: type })));
  const filters = {
    workspace: el("select", { id: "live-workspace" }, el("option", { value: "" }, "all workspaces"),
      keys.map((key) => el("option", { value: key }, key))),
    type: el("input", { id: "live-type", list: "live-types", placeholder: "any type", spellcheck: "false" }),
    install: el("input", { id: "live-install", placeholder: "installID", spellcheck: "false" }),
    campaign: el("input", { id: "live-campaign", placeholder: "campaignID", spellcheck: "false" }),
  };
  const state = el("span", { id: "live-state", class: "muted" }, "connecting…");
  const pause = el("button", { type: "button", id: "live-pause" }, "Pause");
  const rows = el("tbody", { id: "live-rows" });
  const detail = el("div", { id: "live-detail" }, el("p", { class: "muted" }, "Click an event to see its JSON."));
  let paused = false;
  let held = [];
  let lastId = null;
  let controller = null;

  function addRow(message) {
    const data = message.payload;
    const row = el("tr", { "data-id": message.id, "data-status": data.status ?? message.event },
      el("td", { class: "number" }, message.id ?? ""),
      el("td", {}, isoTime(data.receivedAt)),
      el("td", { class: `status-${data.status ?? message.event}` }, data.status ?? message.event),
      el("td", {}, data.workspace ?? ""), el("td", {}, data.type ?? ""), el("td", {}, data.installID ?? ""),
      el("td", {}, [data.campaignID, data.arm].filter(Boolean).join(" / ")),
      el("td", { class: "reason" },
        message.event === "gap" ? `${data.missed} events were dropped before this view read them`
          : data.reason ? `${data.field}: ${data.reason}` : ""));
    const open = () => {
      for (const selected of rows.querySelectorAll("tr.selected")) selected.classList.remove("selected");
      row.classList.add("selected");
      replace(detail,
        data.reason ? el("p", { class: "error" }, `Rejected at ${data.field}: ${data.reason}`) : null,
        jsonBlock(data.event ?? data));
    };
    // A row opens by keyboard too: Tab reaches it, Enter or Space opens it.
    row.tabIndex = 0;
    row.addEventListener("click", open);
    row.addEventListener("keydown", (event) => {
      if (event.key !== "Enter" && event.key !== " ") return;
      event.preventDefault();
      open();
    });
    rows.prepend(row);
    while (rows.childElementCount > maxRows) rows.lastElementChild.remove();
  }

  function received(message) {
    lastId = message.id ?? lastId;
    let payload;
    try {
      payload = JSON.parse(message.data);
    } catch {
      return;
    }
    const entry = { id: message.id, event: message.event, payload };
    if (paused) {
      held.push(entry);
      if (held.length > maxRows) held = held.slice(-maxRows);
    } else {
      addRow(entry);
    }
  }

  async function connect() {
    controller?.abort();
    controller = new AbortController();
    const signal = controller.signal;
    const parameters = Object.fromEntries(Object.entries(filters).map(([name, control]) => [name, control.value.trim()]));
    state.textContent = "connecting…";
    for (let attempt = 0; !signal.aborted; attempt += 1) {
      try {
        await readEvents(`/_mock/events/live${query(parameters)}`, {
          signal, lastEventId: lastId,
          onOpen: () => {
            attempt = 0;
            state.textContent = "live";
            state.dataset.state = "live";
          },
          onEvent: received,
        });
      } catch (error) {
        if (signal.aborted) return;
        if (error?.constructor?.name === "TokenRequired") return showError(container, error);
        state.textContent = `disconnected (${error.message}); retrying`;
        state.dataset.state = "retrying";
      }
      await new Promise((resolve) => setTimeout(resolve, Math.min(5000, 250 * 2 ** attempt)));
    }
  }

  pause.addEventListener("click", () => {
    paused = !paused;
    pause.textContent = paused ? "Resume" : "Pause";
    if (!paused) {
      for (const entry of held) addRow(entry);
      held = [];
    }
  });
  const apply = el("button", {
    type: "button", id: "live-apply",
    onclick: () => {
      replace(rows);
      lastId = null;
      connect();
    },
  }, "Apply filters");

  replace(container,
    el("h2", {}, "Live events"),
    el("div", { class: "toolbar" }, ...field("Workspace", filters.workspace), ...field("Type", filters.type),
      ...field("Install", filters.install), ...field("Campaign", filters.campaign), types, apply, pause, state),
    el("div", { class: "split" },
      el("table", { class: "events" },
        el("thead", {}, el("tr", {}, ["id", "received", "status", "workspace", "type", "install", "campaign / arm",
          "reason"].map((title) => el("th", {}, title)))),
        rows),
      detail));
  connect();
  return () => controller?.abort();
}
