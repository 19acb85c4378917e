// Server-Sent Events read with fetch() and a stream reader (WHATWG HTML §9.2.6, "Interpreting an event
// stream"): EventSource cannot send the Authorization header, and the token must never be in a URL.

import { answer, headers } from "./api.js";

/**
 * Reads `url` until `signal` aborts, calling `onEvent({id, event, data})` for each event and `onOpen()` once
 * connected. Resolves when the stream ends; throws what `answer` throws for a refusal.
 */
export async function readEvents(url, { signal, lastEventId, onEvent, onOpen }) {
  const extra = lastEventId ? { "Last-Event-ID": String(lastEventId) } : {};
  const response = await fetch(url, { headers: headers(extra), signal, cache: "no-store" });
  if (!response.ok || !response.body) {
    await answer(response);
    return;
  }
  onOpen?.();
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  let event = { data: [] };
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let end;
    while ((end = buffer.search(/\r\n|\r|\n/)) >= 0) {
      const line = buffer.slice(0, end);
      buffer = buffer.slice(end + (buffer.startsWith("\r\n", end) ? 2 : 1));
      if (line === "") {
        if (event.data.length) onEvent({ id: event.id, event: event.event ?? "message", data: event.data.join("\n") });
        event = { data: [] };
        continue;
      }
      if (line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const name = colon < 0 ? line : line.slice(0, colon);
      let text = colon < 0 ? "" : line.slice(colon + 1);
      if (text.startsWith(" ")) text = text.slice(1);
      if (name === "data") event.data.push(text);
      else if (name === "event") event.event = text;
      else if (name === "id") event.id = text;
    }
  }
}
