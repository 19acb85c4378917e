// Conformance: the last `grona-mock conformance` run on this server (GET /_mock/conformance), by area, each test
// with its outcome; a click on a failed test shows its explanation, the evidence and the test's timeline.

import { api } from "./api.js";
import { el, isoTime, replace, showError } from "./dom.js";

export async function render(container) {
  const output = el("div", { id: "conformance-output" });
  const detail = el("div", { id: "conformance-detail" });
  let timer = null;
  const load = async () => {
    try {
      const { run } = await api("/_mock/conformance");
      if (!run) {
        replace(output, el("p", { class: "muted" },
          "No conformance run on this server. grona-mock conformance --service URL starts one (docs/conformance.md)."));
        return;
      }
      replace(output, summary(run), ...areas(run, detail));
      // A run in progress is read again until it ends.
      clearTimeout(timer);
      if (!run.finished) timer = setTimeout(load, 1000);
    } catch (error) {
      showError(output, error);
    }
  };
  replace(container, el("h2", {}, "Conformance"),
    el("div", { class: "toolbar" }, el("button", { type: "button", onclick: load }, "Reload")),
    el("div", { class: "split" }, output, detail));
  await load();
  return () => clearTimeout(timer);
}

function summary(run) {
  const { passed = 0, failed = 0, skipped = 0 } = run.summary ?? {};
  const service = run.service ?? {};
  return el("p", { id: "conformance-summary" },
    el("span", { class: failed ? "error" : "ok" }, `${passed} passed, ${failed} failed, ${skipped} skipped`),
    ` in ${run.durationMs ?? 0} ms, against ${service.name ?? "?"} ${service.version ?? ""}`,
    ` (started ${isoTime(run.startedAt)}${run.finished ? "" : ", still running"})`);
}

/** One table per area, its tests in run order. */
function areas(run, detail) {
  const byArea = new Map();
  for (const test of run.tests ?? []) {
    if (!byArea.has(test.area)) byArea.set(test.area, []);
    byArea.get(test.area).push(test);
  }
  return [...byArea.entries()].map(([area, tests]) => el("section", { class: "conformance-area", "data-area": area },
    el("h3", {}, `${area} `, el("span", { class: "muted" },
      `${tests.filter((test) => test.outcome === "passed").length}/${tests.length} passed`)),
    el("table", {},
      el("tbody", {}, tests.map((test) => el("tr", { "data-test": test.name, "data-outcome": test.outcome },
        el("td", { class: `outcome-${test.outcome}` }, test.outcome.toUpperCase()),
        el("td", {}, test.outcome === "failed"
          ? el("button", { type: "button", onclick: () => showFailure(detail, test) }, test.scenario)
          : test.scenario),
        el("td", { class: "muted" }, test.outcome === "skipped"
          ? `missing: ${(test.missingCapabilities ?? []).join(", ")}` : test.description),
        el("td", { class: "number" }, `${test.durationMs} ms`)))))));
}

/** A failed test's explanations (expected, observed, why, evidence) and its timeline. */
function showFailure(detail, test) {
  replace(detail, el("h3", {}, test.name), el("p", { class: "muted" }, test.description),
    ...(test.failures ?? []).map((failure) => el("div", { class: "card conformance-failure" },
      el("p", {}, el("strong", {}, failure.place), ": expected ", failure.expected),
      el("p", { class: "error" }, "observed ", failure.observed),
      failure.why ? el("p", { class: "muted" }, "why: ", failure.why) : null,
      failure.evidence?.length ? el("pre", {}, failure.evidence.join("\n")) : null)),
    el("h3", {}, "Timeline"), el("pre", { class: "conformance-log" }, (test.log ?? []).join("\n")));
}
