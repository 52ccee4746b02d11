/** Hiding the passwords of URLs (`scheme://user:password@host`) in text that is shown or logged. */

/**
 * `scheme://user:password@`: the password runs to the authority's last `@`,
 * so one with a raw `@` (`p@ss`, not valid but common) is hidden whole.
 */
const urlUserinfo = /\b([a-z][a-z0-9+.-]*:\/\/[^\s/@:]*):([^\s/]+)@/gi;

/**
 * `text` with the password of every URL in it replaced by `***`
 * (`postgres://app:hunter2@db/app` becomes `postgres://app:***@db/app`), for
 * error messages and logs that quote a connection string or an endpoint.
 * Pass `url` (the URL the message is about) to also hide its password where
 * it appears outside a URL, as written or percent-decoded.
 */
export function redactUrlPasswords(text: string, url?: string): string {
  let out = text.replace(urlUserinfo, "$1:***@");
  for (const password of passwordsOf(url)) out = out.split(password).join("***");
  return out;
}

/** True when `text` holds a URL with a password. */
export function hasUrlPassword(text: string): boolean {
  return redactUrlPasswords(text) !== text;
}

function passwordsOf(url: string | undefined): string[] {
  if (url === undefined) return [];
  const match = /^[a-z][a-z0-9+.-]*:\/\/[^\s/@:]*:([^\s/]+)@/i.exec(url.trim());
  if (!match) return [];
  const raw = match[1]!;
  let decoded = raw;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    // Not valid percent-encoding: only the raw form.
  }
  return [...new Set([raw, decoded])].filter((password) => password.length >= 3).sort((a, b) => b.length - a.length);
}
