import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { Principal } from '../../src/accounts/principal';
import { loadConfig } from '../../src/app-config';
import { AppModule } from '../../src/app.module';

/**
 * The application's providers without HTTP, on an in-memory SQLite database built by the migrations: what the
 * service specs beside the code run against. Not createApp: the HTTP bootstrap patches Node's AsyncResource.bind
 * for the whole process, which every later spec of the same Jest worker would inherit.
 */
export function startAppContext(env: Record<string, string> = {}): Promise<INestApplicationContext> {
  const config = loadConfig({ DATABASE_URL: 'sqlite::memory:', LOG_LEVEL: 'silent', ADMIN_API_KEY: 'spec-admin-key-0123456789', ...env });
  return NestFactory.createApplicationContext(AppModule.forRoot(config, { dropSchema: true }), { logger: false });
}

/** A caller as the key guard resolves it: an account with these roles and a full key. */
export function principalOf(accountId: string, roles: Principal['roles']): Principal {
  return { accountId, keyId: `key-${accountId}`, roles, sandbox: false, scope: 'full', allowedOrigins: null };
}
