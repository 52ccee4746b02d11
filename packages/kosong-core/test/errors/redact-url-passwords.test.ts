/** Passwords of URLs hidden in text that is shown or logged. */
import { hasUrlPassword, redactUrlPasswords } from "@kosong/core";
import { describe, expect, it } from "vitest";

describe("redactUrlPasswords", () => {
  it("hides the password of every URL, keeping the user, host and the rest", () => {
    expect(redactUrlPasswords("connect postgres://app:hunter2@db:5432/app failed; retry http://u:p%40ss@h/x")).toBe("connect postgres://app:***@db:5432/app failed; retry http://u:***@h/x");
    expect(redactUrlPasswords("redis://:only-pass@cache:6379")).toBe("redis://:***@cache:6379");
    expect(redactUrlPasswords("postgres://app:p@ss:w@rd@db/app")).toBe("postgres://app:***@db/app");
    expect(redactUrlPasswords("no secret: https://example.com/a?b=c git@github.com:o/r ssh://git@host/x")).toBe("no secret: https://example.com/a?b=c git@github.com:o/r ssh://git@host/x");
  });

  it("with the URL, also hides its password quoted elsewhere, as written or decoded", () => {
    expect(redactUrlPasswords('password "p@ss" rejected', "postgres://app:p%40ss@db/app")).toBe('password "***" rejected');
  });

  it("hasUrlPassword tells whether there is one", () => {
    expect(hasUrlPassword("DATABASE_URL=postgres://a:b@c/d")).toBe(true);
    expect(hasUrlPassword("https://example.com")).toBe(false);
  });
});
