// The seat tokens this browser keeps (localStorage), so that a seat's page and the lobby's list
// find them again without putting them in an address.
const KEY = "bluemoon.seats";

export function mySeats() {
  try {
    return JSON.parse(localStorage.getItem(KEY) || "[]");
  } catch {
    return [];
  }
}

export function remember(game, seat, token) {
  if (!token) return; // a seat reached through the account: nothing to keep here
  const seats = mySeats().filter((s) => !(s.game === game && s.seat === seat));
  seats.push({ game, seat, token });
  localStorage.setItem(KEY, JSON.stringify(seats));
}
