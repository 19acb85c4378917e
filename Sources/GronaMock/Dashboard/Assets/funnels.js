// Funnels: per campaign, variant and arm, eligible → anchor_visible → exposure → served → action → purchase,
// with counts and each step's rate over the one before (GET /_mock/events/funnels), treatment against control,
// drawn as SVG bar charts.

import { api, query, vocabulary, workspaceKeys } from "./api.js";
import { el, field, replace, showError, svg } from "./dom.js";

// The steps the server counts and the arms of contract §5, in its order, from vocabulary.json (the engine's
// enums): set as the view opens. The purchases come last, from each row's `purchases`, under the step name the
// vocabulary gives them.
let steps = [];
let purchases = "";
let armOrder = [];
let compared = [];
let conversion = { from: "", to: "" };

/** The counts of one funnel row by step: the server's steps, and its purchases as the last. */
function counts(row) {
  const byStep = Object.fromEntries((row.steps ?? []).map((step) => [step.type, step.count]));
  byStep[purchases] = row.purchases ?? 0;
  return steps.map((step) => byStep[step] ?? 0);
}

/** Each step's rate over the one before, as the server gives it; the purchases' over the server's last step. */
function rates(row, values) {
  const byStep = Object.fromEntries((row.steps ?? []).map((step) => [step.type, step.rate]));
  const last = values[values.length - 2];
  byStep[purchases] = last === 0 ? null : Math.round((values[values.length - 1] / last) * 10000) / 10000;
  return steps.map((step) => byStep[step] ?? null);
}

const percent = (rate) => (rate === null ? "–" : `${(rate * 100).toFixed(1)}%`);

export async function render(container) {
  const names = await vocabulary();
  purchases = names.funnelPurchases;
  steps = [...names.funnelSteps, purchases];
  armOrder = names.arms;
  compared = [names.treatmentArm, names.controlArm];
  conversion = names.funnelConversion;
  const keys = await workspaceKeys();
  const picker = el("select", { id: "funnel-workspace" }, keys.map((key) => el("option", { value: key }, key)));
  const output = el("div", { id: "funnel-output" });
  const load = async () => {
    try {
      drawFunnels(output, await api(`/_mock/events/funnels${query({ workspace: picker.value })}`));
    } catch (error) {
      // A refused token brings the prompt back; anything else is said in place, not left uncaught.
      showError(output, error);
    }
  };
  picker.addEventListener("change", load);
  replace(container, el("h2", {}, "Funnels"),
    el("div", { class: "toolbar" }, ...field("Workspace", picker),
      el("button", { type: "button", id: "funnel-refresh", onclick: load }, "Refresh")),
    output);
  if (keys.length) await load();
}

function drawFunnels(output, answer) {
  const byCampaign = new Map();
  for (const row of answer.funnels ?? []) {
    if (!byCampaign.has(row.campaignID)) byCampaign.set(row.campaignID, []);
    byCampaign.get(row.campaignID).push(row);
  }
  if (!byCampaign.size) {
    replace(output, el("p", { class: "muted" }, "No funnel events for this workspace yet."));
    return;
  }
  replace(output, [...byCampaign].map(([campaign, rows]) => campaignSection(campaign, rows)),
    (answer.demo ?? []).length ? el("p", { class: "muted" }, `${answer.demo.length} demo rows are counted apart.`) : null);
}

/** The arms compared: treatment and control always, any other (the holdout) when it has rows. */
function campaignSection(campaign, rows) {
  const present = armOrder.filter((arm) => compared.includes(arm) || rows.some((row) => row.arm === arm));
  const totals = present.map((arm) => {
    const total = steps.map(() => 0);
    for (const row of rows.filter((candidate) => candidate.arm === arm)) {
      counts(row).forEach((value, index) => { total[index] += value; });
    }
    return { arm, values: total };
  });
  return el("section", { class: "card", "data-campaign": campaign },
    el("h3", {}, campaign),
    table(rows),
    el("h3", {}, heading(present)),
    armTable(totals),
    chart(totals));
}

/** "Treatment against control", and any other arm drawn: "… and holdout". */
function heading(arms) {
  const [treatment, control] = compared;
  const others = arms.filter((arm) => !compared.includes(arm));
  const first = treatment.charAt(0).toUpperCase() + treatment.slice(1);
  return [`${first} against ${control}`, ...others].join(" and ");
}

function table(rows) {
  return el("table", { class: "funnel" },
    el("thead", {}, el("tr", {}, el("th", {}, "variant"), el("th", {}, "arm"),
      steps.map((step) => el("th", {}, step)))),
    el("tbody", {}, rows.map((row) => {
      const values = counts(row);
      const stepRates = rates(row, values);
      return el("tr", { "data-variant": row.variantID, "data-arm": row.arm },
        el("td", {}, row.variantID), el("td", {}, row.arm),
        values.map((value, index) => el("td", { class: "number", "data-step": steps[index], "data-count": value },
          String(value), el("div", { class: "muted" }, percent(stepRates[index])))));
    })));
}

function armTable(arms) {
  return el("table", { class: "arms" },
    el("thead", {}, el("tr", {}, el("th", {}, "arm"), steps.map((step) => el("th", {}, step)),
      el("th", {}, `${conversion.from} → ${conversion.to}`))),
    el("tbody", {}, arms.map(({ arm, values }) => {
      const from = values[steps.indexOf(conversion.from)];
      const rate = from === 0 ? null : values[steps.indexOf(conversion.to)] / from;
      return el("tr", { "data-arm-total": arm }, el("td", {}, arm),
        values.map((value, index) => el("td", { class: "number", "data-step": steps[index] }, String(value))),
        el("td", { class: "number" }, percent(rate)));
    })));
}

/** Bars per step, treatment beside control, on one scale. */
function chart(arms) {
  const width = 620;
  const height = 180;
  const band = (width - 40) / steps.length;
  const bar = band / (arms.length + 1);
  const top = Math.max(1, ...arms.flatMap(({ values }) => values));
  // 15 px left above the tallest bar for its value.
  const scale = (value) => ((height - 55) * value) / top;
  const bars = [];
  steps.forEach((step, index) => {
    arms.forEach(({ arm, values }, position) => {
      const x = 30 + index * band + position * bar + bar / 2;
      const barHeight = scale(values[index]);
      bars.push(svg("rect", { class: arm, x, y: height - 25 - barHeight, width: bar - 2, height: barHeight },
        svg("title", {}, `${arm} ${step}: ${values[index]}`)));
      // The count above its bar, so the chart reads without hovering (the table below has the same numbers).
      bars.push(svg("text", {
        class: "value", x: x + (bar - 2) / 2, y: height - 29 - barHeight, "text-anchor": "middle",
        "data-arm": arm, "data-step": step,
      }, String(values[index])));
    });
    bars.push(svg("text", { x: 30 + index * band + band / 2, y: height - 10, "text-anchor": "middle" }, step));
  });
  return el("figure", {},
    svg("svg", { viewBox: `0 0 ${width} ${height}`, width, height, role: "img", "aria-label": "funnel by arm" }, bars),
    el("figcaption", { class: "legend" },
      arms.map(({ arm }) => el("span", {}, el("span", { class: `swatch ${arm}` }), arm))));
}
