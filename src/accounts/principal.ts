import type { Role } from './entities/account.entity';
import type { KeyScope } from './key-access';

/** Who is calling: resolved from `x-api-key` by the guard, read by controllers through @CurrentPrincipal(). */
export interface Principal {
  accountId: string;
  keyId: string;
  roles: Role[];
  sandbox: boolean;
  scope: KeyScope;
  /** Exact browser origins the key may be used from; null: any. */
  allowedOrigins: string[] | null;
}

export function hasRole(principal: Principal, role: Role): boolean {
  return principal.roles.includes('admin') || principal.roles.includes(role);
}

export function isAdmin(principal: Principal): boolean {
  return principal.roles.includes('admin');
}
