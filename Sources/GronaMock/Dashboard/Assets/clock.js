// The mock's clock (GET and POST /_mock/clock): show it, advance it, freeze it, let it run, reset it.

import { api } from "./api.js";
import { el, field, isoTime, replace, showError } from "./dom.js";

const units = { ms: 1, s: 1000, min: 60_000, h: 3_600_000, d: 86_400_000 };

export async function render(container) {
  const shown = el("div", { id: "clock-state", class: "card" });
  const amount = el("input", { id: "clock-amount", value: "1", inputmode: "decimal" });
  const unit = el("select", { id: "clock-unit" }, Object.keys(units).map((name) =>
    el("option", { value: name, selected: name === "h" }, name)));
  const at = el("input", { id: "clock-at", placeholder: "2026-12-24T18:00:00Z (empty: now)", spellcheck: "false" });

  const draw = (clock) => replace(shown,
    el("p", {}, "Now: ", el("strong", { id: "clock-now", "data-now": clock.now }, isoTime(clock.now))),
    el("p", {}, `Offset from real time: ${clock.offsetMs} ms · `,
      el("span", { id: "clock-frozen", "data-frozen": String(clock.frozen) }, clock.frozen ? "frozen" : "running")));

  const post = async (change) => {
    try {
      draw(await api("/_mock/clock", { method: "POST", body: change }));
    } catch (error) {
      showError(container, error);
    }
  };

  const advance = () => {
    const milliseconds = Math.round(Number(amount.value) * units[unit.value]);
    if (!Number.isSafeInteger(milliseconds)) return showError(container, new Error("Enter a number to advance by."));
    return post({ advanceMs: milliseconds });
  };
  const freeze = () => {
    if (!at.value.trim()) return post({ freeze: true });
    const time = Date.parse(at.value.trim());
    if (Number.isNaN(time)) return showError(container, new Error("The time is not an ISO 8601 date and time."));
    return post({ freeze: true, at: time });
  };

  replace(container, el("h2", {}, "Clock"), shown,
    el("div", { class: "toolbar" }, ...field("Advance by", amount), unit,
      el("button", { type: "button", id: "clock-advance", onclick: advance }, "Advance")),
    el("div", { class: "toolbar" }, ...field("Freeze at", at),
      el("button", { type: "button", id: "clock-freeze", onclick: freeze }, "Freeze"),
      el("button", { type: "button", id: "clock-run", onclick: () => post({ freeze: false }) }, "Let it run"),
      el("button", { type: "button", id: "clock-reset", onclick: () => post({ reset: true }) }, "Reset to real time")));
  draw(await api("/_mock/clock"));
}
