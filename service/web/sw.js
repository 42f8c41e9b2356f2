// The pages' service worker, served at /sw.js (scope /): it shows the turn alerts the service
// pushes (application/alerts/messages.py: {title, body, url, game, tag}) and, when one is clicked,
// opens its game. No fetch handler and no cache: the pages stay exactly as fresh as without it.
self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim())); // the open pages too

/** Only a page of this service is opened: another address in a message falls back to the lobby. */
function ours(address) {
  try {
    const url = new URL(address, self.location.origin);
    return url.origin === self.location.origin ? url.href : new URL("/", self.location.origin).href;
  } catch {
    return new URL("/", self.location.origin).href;
  }
}

self.addEventListener("push", (event) => {
  const message = (() => {
    try {
      return event.data ? event.data.json() : {};
    } catch {
      return { body: event.data.text() };
    } // plain text: the body
  })();
  event.waitUntil(
    self.registration.showNotification(message.title || "Blue Moon City", {
      body: message.body || "",
      tag: message.tag, // a newer alert of the same game replaces the older one
      icon: "/web/icon-192.png",
      data: { url: ours(message.url || "/"), game: message.game ?? null },
    }),
  );
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const url = ours(event.notification.data?.url || "/");
  const opened = (async () => {
    const open = (await self.clients.matchAll({ type: "window", includeUncontrolled: true })).find(
      (client) => new URL(client.url).origin === self.location.origin,
    );
    if (open) {
      try {
        const moved = await open.navigate(url); // a page this worker does not control cannot be moved
        await (moved ?? open).focus().catch(() => {});
        return;
      } catch {
        /* then a new window */
      }
    }
    await self.clients.openWindow(url);
  })();
  event.waitUntil(opened);
});
