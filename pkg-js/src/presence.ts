// webmcp-warden/presence: approvals only the person at the device can give (docs/limits-and-presence.md).
//
// An agent that drives the page can click the page's "Approve" button; it cannot pass the
// platform authenticator's user verification (a fingerprint, a face, the device PIN), which the
// browser asks for outside the page. `registerPresence()` makes a WebAuthn credential once
// (`navigator.credentials.create`); `presenceApprover()` is an approver that asks for an assertion
// of it with `userVerification: 'required'` (`navigator.credentials.get`) before it approves, and
// checks what comes back: the challenge it sent, the origin, the relying party, the user-verified
// flag, and the signature against the credential's public key.
//
// The approver is page code as far as the core is concerned: its answer is judged by the core
// like any approver's (docs/behaviour.md, "Approvals"), a deny carrying its `code`. The lockout
// (N failed or cancelled confirmations within a window) lives here because only this code sees
// the ceremony's outcome; it is the core that turns the answer into the call's denial. This entry
// imports nothing of the package: a page that does not import it downloads nothing of it.
import type { ApprovalCall, Approver, AskAnswer, GovernanceContext } from './types/policy-types.js';

/** The credential `registerPresence()` made, as it is kept (`localStorage`, by default). */
export interface PresenceCredential {
  /** The credential's id, base64url. */
  id: string;
  /** Its public key (SubjectPublicKeyInfo, base64url), when the browser gave it: signatures are checked with it. */
  publicKey?: string;
  /** The COSE algorithm of the key: -7 (ES256) or -257 (RS256). */
  algorithm?: number;
  /** The relying party id it was made for. */
  rpId: string;
}

/** Where presence keeps its credential and its lockout (a `Storage`: `localStorage` by default). */
export interface PresenceStorageOptions {
  /** The storage (default `localStorage`; in memory where there is none). */
  storage?: Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;
  /** The key of the credential (default `'webmcp-warden:presence'`); its lockout is kept under `<key>:failures`. */
  key?: string;
}

/** Options of {@link registerPresence}. */
export interface RegisterPresenceOptions extends PresenceStorageOptions {
  /** The relying party id (default: the page's host name). WebAuthn needs a secure context and a domain: `localhost` counts, an IP address does not. */
  rpId?: string;
  /** The relying party name the authenticator shows (default: the host name). */
  rpName?: string;
  /** The user name the authenticator shows (default `'webmcp-warden'`). */
  userName?: string;
  /** How long the browser waits for the person, in ms (default 60 000). */
  timeout?: number;
  /** The credentials container (default `navigator.credentials`; tests). */
  credentials?: Pick<CredentialsContainer, 'create'>;
}

/** Options of {@link presenceApprover}. */
export interface PresenceApproverOptions extends PresenceStorageOptions {
  /** The relying party id (default: the credential's, else the page's host name). */
  rpId?: string;
  /** The credential to confirm with (default: the one `registerPresence()` kept under `key`). */
  credential?: PresenceCredential;
  /**
   * The page's own dialog, asked first: it shows the call (show `call.display`, never raw
   * arguments) and answers. Its allow stands only once presence confirms; its deny stands as it
   * is. Without one, a confirmed presence answers `{ allow: 'once' }`.
   */
  dialog?: Approver;
  /** How many failed or cancelled confirmations within `windowMs` lock presence (default 3). */
  attempts?: number;
  /** The window of `attempts`, in ms (default 300 000): the lock lifts when the first of them is that old. */
  windowMs?: number;
  /** How long the browser waits for the person, in ms (default 60 000). */
  timeout?: number;
  /** The credentials container (default `navigator.credentials`; tests). */
  credentials?: Pick<CredentialsContainer, 'get'>;
  /** The clock of the lockout, in ms since the epoch (default `Date.now`). */
  clock?: () => number;
}

/** The approver {@link presenceApprover} makes, and its lockout. */
export interface PresenceApprover extends Approver {
  /** Until when presence is locked (ms since the epoch); 0 when it is not. */
  lockedUntil(): number;
  /** Forgets the failed confirmations (a person unlocked it another way). */
  unlock(): void;
}

/** The `code` of a denial by the presence approver (`outcome.error.code`). */
export type PresenceDenial = 'presence_locked' | 'presence_failed' | 'presence_unregistered';

const DEFAULT_KEY = 'webmcp-warden:presence';

function storageOf(options: PresenceStorageOptions): Pick<Storage, 'getItem' | 'setItem' | 'removeItem'> {
  if (options.storage) return options.storage;
  try {
    const local = (globalThis as { localStorage?: Storage }).localStorage;
    if (local) return local;
  } catch {
    // a page whose storage is blocked: keep it in memory
  }
  const memory = new Map<string, string>();
  return { getItem: (k) => memory.get(k) ?? null, setItem: (k, v) => void memory.set(k, v), removeItem: (k) => void memory.delete(k) };
}

const base64url = (bytes: ArrayBuffer | Uint8Array): string => {
  let text = '';
  for (const byte of new Uint8Array(bytes)) text += String.fromCharCode(byte);
  return btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
};

const fromBase64url = (text: string): Uint8Array<ArrayBuffer> => {
  const plain = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  const bytes = new Uint8Array(plain.length);
  for (let i = 0; i < plain.length; i++) bytes[i] = plain.charCodeAt(i);
  return bytes;
};

const randomBytes = (n: number): Uint8Array<ArrayBuffer> => crypto.getRandomValues(new Uint8Array(n));

const hostName = (): string => (globalThis as { location?: Location }).location?.hostname ?? 'localhost';

/**
 * Makes the WebAuthn credential presence confirms with (`navigator.credentials.create`, a
 * platform authenticator with user verification required) and keeps it in `storage` under `key`.
 * Call it from a click of the person's (browsers ask for a user gesture); once per device is
 * enough. Rejects as the browser does (`NotAllowedError` when the person cancels).
 */
export async function registerPresence(options: RegisterPresenceOptions = {}): Promise<PresenceCredential> {
  const rpId = options.rpId ?? hostName();
  const credentials = options.credentials ?? navigator.credentials;
  const made = (await credentials.create({
    publicKey: {
      challenge: randomBytes(32),
      rp: { id: rpId, name: options.rpName ?? rpId },
      user: { id: randomBytes(16), name: options.userName ?? 'webmcp-warden', displayName: options.userName ?? 'webmcp-warden' },
      pubKeyCredParams: [
        { type: 'public-key', alg: -7 },
        { type: 'public-key', alg: -257 },
      ],
      authenticatorSelection: { authenticatorAttachment: 'platform', userVerification: 'required', residentKey: 'discouraged' },
      timeout: options.timeout ?? 60_000,
      attestation: 'none',
    },
  })) as PublicKeyCredential | null;
  if (made === null) throw new DOMException('no credential was made', 'NotAllowedError');
  const response = made.response as AuthenticatorAttestationResponse;
  const credential: PresenceCredential = { id: base64url(made.rawId), rpId };
  // Where the browser says the key (all current ones do), signatures are checked with it.
  const key = typeof response.getPublicKey === 'function' ? response.getPublicKey() : null;
  if (key !== null) {
    credential.publicKey = base64url(key);
    credential.algorithm = response.getPublicKeyAlgorithm();
  }
  storageOf(options).setItem(options.key ?? DEFAULT_KEY, JSON.stringify(credential));
  return credential;
}

/** The credential kept under `key`, if it reads as one. */
function storedCredential(options: PresenceStorageOptions): PresenceCredential | undefined {
  try {
    const parsed = JSON.parse(storageOf(options).getItem(options.key ?? DEFAULT_KEY) ?? 'null') as Partial<PresenceCredential> | null;
    return parsed && typeof parsed.id === 'string' && typeof parsed.rpId === 'string' ? (parsed as PresenceCredential) : undefined;
  } catch {
    return undefined;
  }
}

/** A DER ECDSA signature (`SEQUENCE { INTEGER r, INTEGER s }`) as the 64 bytes `r || s` SubtleCrypto verifies. */
function derToRaw(der: Uint8Array): Uint8Array<ArrayBuffer> | undefined {
  const raw = new Uint8Array(64);
  let at = 2;
  if (der[0] !== 0x30) return undefined;
  for (let part = 0; part < 2; part++) {
    if (der[at] !== 0x02) return undefined;
    let length = der[at + 1] ?? 0;
    at += 2;
    while (length > 32 && der[at] === 0) {
      at++;
      length--;
    }
    if (length > 32 || at + length > der.length) return undefined;
    raw.set(der.subarray(at, at + length), part * 32 + 32 - length);
    at += length;
  }
  return raw;
}

const sha256 = async (bytes: Uint8Array<ArrayBuffer>): Promise<Uint8Array> => new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));

const equalBytes = (a: Uint8Array, b: Uint8Array): boolean => a.length === b.length && a.every((byte, i) => byte === b[i]);

/**
 * Whether an assertion proves that the person at the device confirmed `challenge` with
 * `credential`: the client data is a `webauthn.get` of this challenge from this origin; the
 * authenticator data is for `rpId` with the user present and verified; the signature verifies
 * with the credential's public key (when it was kept).
 */
async function confirmed(assertion: PublicKeyCredential, credential: PresenceCredential, rpId: string, challenge: Uint8Array<ArrayBuffer>): Promise<boolean> {
  const response = assertion.response as AuthenticatorAssertionResponse;
  const clientJson = new Uint8Array(response.clientDataJSON);
  const client = JSON.parse(new TextDecoder().decode(clientJson)) as { type?: unknown; challenge?: unknown; origin?: unknown };
  const origin = (globalThis as { location?: Location }).location?.origin;
  if (client.type !== 'webauthn.get' || client.challenge !== base64url(challenge) || (origin !== undefined && client.origin !== origin)) return false;
  if (base64url(assertion.rawId) !== credential.id) return false;
  const data = new Uint8Array(response.authenticatorData);
  // Bytes 0–31: SHA-256 of the relying party id; byte 32: flags (0x01 user present, 0x04 user verified).
  const flags = data[32] ?? 0;
  if (data.length < 37 || !equalBytes(data.subarray(0, 32), await sha256(new TextEncoder().encode(rpId))) || (flags & 0x05) !== 0x05) return false;
  if (credential.publicKey === undefined) return true;
  const signed = new Uint8Array(data.length + 32);
  signed.set(data);
  signed.set(await sha256(clientJson), data.length);
  const signature = new Uint8Array(response.signature);
  const spki = fromBase64url(credential.publicKey);
  if (credential.algorithm === -7) {
    const raw = derToRaw(signature);
    const key = await crypto.subtle.importKey('spki', spki, { name: 'ECDSA', namedCurve: 'P-256' }, false, ['verify']);
    return raw !== undefined && crypto.subtle.verify({ name: 'ECDSA', hash: 'SHA-256' }, key, raw, signed);
  }
  if (credential.algorithm === -257) {
    const key = await crypto.subtle.importKey('spki', spki, { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }, false, ['verify']);
    return crypto.subtle.verify('RSASSA-PKCS1-v1_5', key, signature, signed);
  }
  return false;
}

/**
 * An approver that approves only when the person at the device confirms with the credential
 * `registerPresence()` made (WebAuthn, `userVerification: 'required'`), after the page's own
 * `dialog` (if given) allowed. Denials carry a `code`: `presence_failed` (cancelled, timed out, or
 * not verified), `presence_locked` (`attempts` failures within `windowMs`; no confirmation is asked
 * until the lock lifts) or `presence_unregistered` (no credential). Use it as `onAsk`, or as a
 * provider's `approver`. A presence check proves a person approved, not that they read the
 * arguments: show them `call.display` in the dialog.
 */
export function presenceApprover(options: PresenceApproverOptions = {}): PresenceApprover {
  const attempts = options.attempts ?? 3;
  const windowMs = options.windowMs ?? 300_000;
  if (!(Number.isInteger(attempts) && attempts > 0)) throw new TypeError('presenceApprover: attempts must be a whole number above 0');
  if (!(Number.isFinite(windowMs) && windowMs > 0)) throw new TypeError('presenceApprover: windowMs must be a positive number of ms');
  const clock = options.clock ?? Date.now;
  const storage = storageOf(options);
  const failuresKey = `${options.key ?? DEFAULT_KEY}:failures`;
  // The failures of the window, kept in storage so a reload does not lift a lock.
  const failures = (): number[] => {
    try {
      const kept = JSON.parse(storage.getItem(failuresKey) ?? '[]') as unknown;
      const since = clock() - windowMs;
      return Array.isArray(kept) ? kept.filter((at): at is number => typeof at === 'number' && at > since) : [];
    } catch {
      return [];
    }
  };
  const lockedUntil = (): number => {
    const recent = failures();
    return recent.length >= attempts ? (recent[recent.length - attempts] ?? 0) + windowMs : 0;
  };
  const deny = (code: PresenceDenial, text: string): AskAnswer => ({ deny: text, code });
  const approver = async (call: ApprovalCall, ctx: GovernanceContext & { signal: AbortSignal }): Promise<AskAnswer> => {
    const until = lockedUntil();
    if (until > clock()) return deny('presence_locked', `presence confirmation is locked after ${attempts} failed attempts; try again in ${Math.ceil((until - clock()) / 1000)} s`);
    const answer: AskAnswer = options.dialog ? await options.dialog(call, ctx) : { allow: 'once' };
    // The dialog's deny (or anything that is not an allow, which the core then judges) stands.
    if (answer === null || typeof answer !== 'object' || !('allow' in answer)) return answer;
    const credential = options.credential ?? storedCredential(options);
    if (credential === undefined) return deny('presence_unregistered', 'no presence credential is registered on this device');
    const rpId = options.rpId ?? credential.rpId;
    const challenge = randomBytes(32);
    let ok = false;
    try {
      const credentials = options.credentials ?? navigator.credentials;
      const assertion = (await credentials.get({
        publicKey: {
          challenge,
          rpId,
          allowCredentials: [{ type: 'public-key', id: fromBase64url(credential.id) }],
          userVerification: 'required',
          timeout: options.timeout ?? 60_000,
        },
        signal: ctx.signal,
      })) as PublicKeyCredential | null;
      ok = assertion !== null && (await confirmed(assertion, credential, rpId, challenge));
    } catch {
      // Cancelled, timed out, not verified, or an assertion that does not read: not confirmed.
    }
    // A call that was aborted meanwhile ends as aborted; it is no failed confirmation.
    if (ctx.signal.aborted) return deny('presence_failed', 'the call was aborted');
    if (ok) {
      storage.removeItem(failuresKey);
      return answer;
    }
    storage.setItem(failuresKey, JSON.stringify([...failures(), clock()].slice(-attempts)));
    return deny('presence_failed', 'the person at the device did not confirm');
  };
  return Object.assign(approver, { lockedUntil, unlock: () => storage.removeItem(failuresKey) });
}
