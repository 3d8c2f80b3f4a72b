/** Scope areas of DESIGN §3. `<area>` grants read and write, `<area>.read` read only. */
export const scopeAreas = ['pets', 'medical', 'bookings', 'marketplace', 'payments', 'notifications', 'webhooks', 'ai', 'analytics', 'admin'] as const;

export type ScopeArea = (typeof scopeAreas)[number];
export type Scope = ScopeArea | `${ScopeArea}.read`;

export const allScopes: readonly Scope[] = scopeAreas.flatMap((a) => [a, `${a}.read`] as Scope[]);
const scopeSet = new Set<string>(allScopes);

export const roles = ['admin', 'doctor', 'staff'] as const;
export type Role = (typeof roles)[number];

/** The most each role may ever hold; a client's own ceiling and the request narrow it further. */
const roleCeilings: Record<Role, readonly Scope[]> = {
  admin: allScopes,
  doctor: ['pets', 'medical', 'bookings', 'ai', 'analytics.read'],
  staff: ['pets', 'medical.read', 'bookings', 'payments', 'notifications', 'ai.read'],
};

export const isScope = (value: string): value is Scope => scopeSet.has(value);

/** A route's `access.scope` as a list: the one scope it needs, or the scopes any one of which will do. */
export const scopesOf = (scope: Scope | readonly Scope[]): readonly Scope[] => (typeof scope === 'string' ? [scope] : scope);

/** Adds the read scope implied by each write scope: `pets` ⇒ `pets.read`. */
export function expandScopes(scopes: Iterable<string>): Set<Scope> {
  const out = new Set<Scope>();
  for (const s of scopes) {
    if (!isScope(s)) continue;
    out.add(s);
    if (!s.endsWith('.read')) out.add(`${s}.read` as Scope);
  }
  return out;
}

export const roleCeiling = (role: Role): readonly Scope[] => roleCeilings[role];

const roleRights = new Map(roles.map((role) => [role, expandScopes(roleCeilings[role])] as const));

/** Every right a client may use: its ceiling ∩ its role, with the read scope of each write scope. */
export function heldScopes(clientCeiling: readonly string[], role: Role): Set<Scope> {
  const byRole = roleRights.get(role) ?? new Set<Scope>();
  return new Set([...expandScopes(clientCeiling)].filter((s) => byRole.has(s)));
}

/**
 * Granted scope = requested ∩ client ceiling ∩ role, kept in the caller's own terms
 * (asking for `pets.read` with a `pets` ceiling grants `pets.read`).
 */
export function grantScopes(requested: readonly Scope[], clientCeiling: readonly string[], role: Role): Scope[] {
  const held = heldScopes(clientCeiling, role);
  return [...new Set(requested.filter((s) => held.has(s)))].sort();
}

export function parseScopeString(value: string | undefined): string[] {
  return (value ?? '').split(/\s+/).filter(Boolean);
}
