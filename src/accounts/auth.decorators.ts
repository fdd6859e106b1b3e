import { createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import type { Role } from './entities/account.entity';
import type { Principal } from './principal';

export const PUBLIC_ROUTE = 'adnet:public';
export const REQUIRED_ROLES = 'adnet:roles';

/** No `x-api-key` needed (health, metrics). */
export const Public = () => SetMetadata(PUBLIC_ROUTE, true);

/** The key's account needs one of these roles; admin passes every role check. */
export const Roles = (...roles: Role[]) => SetMetadata(REQUIRED_ROLES, roles);

export const CurrentPrincipal = createParamDecorator(
  (_: unknown, context: ExecutionContext): Principal => context.switchToHttp().getRequest().principal,
);
