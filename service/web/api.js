// The page's only way to the service: the public REST API, as any client would use it.
const KEY = "bluemoon.seats";

export async function api(method, path, body, token, headers = {}, retries = 2) {
  const response = await fetch(path, {
    method,
    headers: {
      ...(body === undefined ? {} : { "Content-Type": "application/json" }),
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (response.status === 429 && retries > 0) {
    // rate limited: wait as told, then try once more (a command keeps its Idempotency-Key)
    const seconds = Number(response.headers.get("Retry-After") || "1");
    await new Promise((resolve) => setTimeout(resolve, Math.min(seconds, 30) * 1000));
    return api(method, path, body, token, headers, retries - 1);
  }
  const text = await response.text();
  const parsed = text ? JSON.parse(text) : null;
  // a refusal is its problem document (RFC 9457), worded by the page from its code (i18n.js explain)
  const problem = response.ok ? null : (parsed?.code ? parsed : { status: response.status, detail: parsed?.detail || parsed?.title || `HTTP ${response.status}` });
  return { ok: response.ok, status: response.status, body: parsed, problem, etag: response.headers.get("ETag") };
}

export function mySeats() {
  try { return JSON.parse(localStorage.getItem(KEY) || "[]"); } catch { return []; }
}

export function remember(game, seat, token) {
  if (!token) return; // a seat reached through the account: nothing to keep here
  const seats = mySeats().filter((s) => !(s.game === game && s.seat === seat));
  seats.push({ game, seat, token });
  localStorage.setItem(KEY, JSON.stringify(seats));
}
