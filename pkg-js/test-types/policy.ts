// Policies type-check as literals, without `as const`.
import { configureWebMCP, definePolicy, lintPolicy, type Policy, type PolicyRule, type Rule } from 'webmcp-warden';
import { expect, type Equal } from './assert.js';

expect<Equal<Rule, PolicyRule>>();

const policy = definePolicy({
  deny: [{ match: 'shop/delete_*', id: 'no-deletes', reason: 'Deleting is done by people, not agents.' }],
  ask: [{ match: 'shop/checkout', id: 'checkout-needs-human' }],
  allow: ['*/get_*', { match: 'shop/search', when: { arg: '/limit', max: 50 } }, /^read_/],
  default: 'ask',
});
configureWebMCP({ policy });
expect<Equal<(typeof policy)['default'], 'ask'>>();

const viaSatisfies = {
  deny: [{ match: '*', when: [{ annotation: { destructiveHint: true } }, 'tainted'] }],
  allow: [{ match: 'search', when: { principal: ['alice', 'bob'] } }, { match: 'pay', when: (call) => call.principal === 'alice' }],
  default: 'deny',
  pin: 'ask',
  allowNewTools: 'ask',
} satisfies Policy;
configureWebMCP({ policy: viaSatisfies });

const readonlyPolicy = { allow: ['*'], default: 'deny' } as const;
configureWebMCP({ policy: readonlyPolicy });
lintPolicy(policy);

// The approver's call always carries the decision that asked.
configureWebMCP({ onAsk: async (call) => (call.decision.explanation.length > 0 ? { allow: 'once' } : { deny: 'No.' }) });

// @ts-expect-error 'maybe' is not an effect
definePolicy({ default: 'maybe' });
// @ts-expect-error unknown predicate
definePolicy({ allow: [{ match: '*', when: { weather: 'sunny' } }] });
// @ts-expect-error the approver answers allow once/always or deny
configureWebMCP({ onAsk: () => ({ allow: 'sometimes' }) });
