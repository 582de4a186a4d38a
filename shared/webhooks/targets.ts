/**
 * Where a webhook may deliver (data-flow.md 4, SSRF): `https` in deployed stages (`http` too in
 * local mode), and only to public addresses, by the one address policy every outbound request
 * follows (`shared/net/addresses.ts`), whether the URL names the address or a hostname resolves to
 * it (every address it resolves to is checked). Local mode allows loopback, so a developer (and the
 * tests) receive on their own machine. Checked when a webhook is created or its URL changed, and
 * again on every delivery, where the connection goes only to the address just checked
 * (`safeLookup`): a name that resolves elsewhere later is refused then.
 */
import type { LookupFunction } from 'node:net';
import type { AddressPolicy } from '#shared/net/addresses.ts';
import { guardedLookup, hostOf, hostProblem } from '#shared/net/outbound.ts';

export interface TargetRules {
  /** Local mode: `http` and loopback allowed. */
  local: boolean;
}

const policyOf = (rules: TargetRules): AddressPolicy => ({ allowLoopback: rules.local });

/** Why a URL may not be a webhook's target, before any lookup (scheme, form); undefined when it may. Pure. */
export const urlProblem = (url: string, rules: TargetRules): string | undefined => {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'must be an absolute http(s) URL';
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return 'must be an http(s) URL';
  if (parsed.protocol === 'http:' && !rules.local)
    return 'must be an https URL (http is allowed in local mode only)';
  if (parsed.username || parsed.password) return 'must not carry a user name or password';
  return undefined;
};

/**
 * Every address the URL's host resolves to, checked: answers why one is refused (or the name does
 * not resolve), or undefined when all may be reached.
 */
export const addressProblem = (url: string, rules: TargetRules): Promise<string | undefined> =>
  hostProblem(hostOf(new URL(url)), policyOf(rules));

/**
 * A `lookup` for `http.request` that resolves the name and refuses, as a connection error, any
 * address the policy refuses: the connection goes to the address checked, never to one a second
 * resolution answers.
 */
export const safeLookup = (rules: TargetRules): LookupFunction => guardedLookup(policyOf(rules));
