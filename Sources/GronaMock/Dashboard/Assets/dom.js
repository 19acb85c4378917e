// Building the page from data without ever parsing data as HTML: every string goes in as a text node or an
// attribute value, so event content, campaign names and server messages cannot become markup or script.

/** An element with attributes (strings; `on*` keys are listeners) and children (nodes, or strings as text). */
export function el(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on") && typeof value === "function") {
      element.addEventListener(name.slice(2), value);
    } else {
      element.setAttribute(name, value === true ? "" : String(value));
    }
  }
  append(element, children);
  return element;
}

/** An SVG element, built the same way. */
export function svg(tag, attributes = {}, ...children) {
  const element = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, String(value));
  append(element, children);
  return element;
}

function append(element, children) {
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replaces the children of `element`. */
export function replace(element, ...children) {
  element.replaceChildren();
  append(element, children);
}

/** A `<pre>` with a value as indented JSON, as text. */
export function jsonBlock(value) {
  return el("pre", { class: "json" }, JSON.stringify(value, null, 2));
}

/** Milliseconds since the epoch as an ISO 8601 UTC time, or a dash. */
export function isoTime(milliseconds) {
  if (typeof milliseconds !== "number" || !Number.isFinite(milliseconds)) return "–";
  const date = new Date(milliseconds);
  return Number.isNaN(date.getTime()) ? String(milliseconds) : date.toISOString();
}

/** A labelled control for a form grid. */
export function field(label, control) {
  return [el("label", { for: control.id }, label), control];
}

/** An error of a page's action, shown in place as text; a refused token brings the prompt back instead. */
export function showError(container, error) {
  if (error?.name === "TokenRequired" || error?.constructor?.name === "TokenRequired") {
    window.dispatchEvent(new CustomEvent("grona-token-required"));
    return;
  }
  for (const old of container.querySelectorAll(":scope > p.error")) old.remove();
  container.prepend(el("p", { class: "error", role: "alert" }, error?.message ?? String(error)));
}
