// Passkeys from the page: sign up, add one, sign in, through the browser's own authenticator.
// The service speaks WebAuthn's JSON form (binary fields in base64url); the browser wants
// ArrayBuffers, so each side is turned into the other here.
import { api } from "/web/transport.js";

const toBytes = (text) => Uint8Array.from(atob(text.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0));
const toText = (buffer) =>
  btoa(String.fromCharCode(...new Uint8Array(buffer)))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");

function creationOptions(options) {
  return {
    ...options,
    challenge: toBytes(options.challenge),
    user: { ...options.user, id: toBytes(options.user.id) },
    excludeCredentials: (options.excludeCredentials || []).map((c) => ({ ...c, id: toBytes(c.id) })),
  };
}

function requestOptions(options) {
  return {
    ...options,
    challenge: toBytes(options.challenge),
    allowCredentials: (options.allowCredentials || []).map((c) => ({ ...c, id: toBytes(c.id) })),
  };
}

function answer(credential) {
  const response = credential.response;
  const fields = {};
  for (const name of ["clientDataJSON", "attestationObject", "authenticatorData", "signature", "userHandle"]) {
    if (response[name]) fields[name] = toText(response[name]);
  }
  if (response.getTransports) fields.transports = response.getTransports();
  return {
    id: credential.id,
    rawId: toText(credential.rawId),
    type: credential.type,
    response: fields,
    clientExtensionResults: credential.getClientExtensionResults(),
    authenticatorAttachment: credential.authenticatorAttachment || undefined,
  };
}

// A new passkey: for the signed-in person, or (signed out) a new account named displayName.
export async function addPasskey(displayName) {
  const begun = await api("POST", "/auth/passkeys/registration", displayName ? { display_name: displayName } : {});
  if (!begun.ok) return begun;
  const credential = await navigator.credentials.create({ publicKey: creationOptions(begun.body.options) });
  return api("POST", "/auth/passkeys", { ceremony: begun.body.ceremony, credential: answer(credential) });
}

// Sign in with any passkey of this service; the answer is the person's profile.
export async function signInWithPasskey() {
  const begun = await api("POST", "/auth/passkeys/assertion");
  if (!begun.ok) return begun;
  const credential = await navigator.credentials.get({ publicKey: requestOptions(begun.body.options) });
  const sent = { ceremony: begun.body.ceremony, credential: answer(credential) };
  const signed = await api("POST", "/auth/passkeys/sign-in", sent);
  return { ...signed, sent };
}

export async function signOut() {
  return api("DELETE", "/auth/session");
}
