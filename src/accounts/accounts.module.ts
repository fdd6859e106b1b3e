import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { AccountsController, AdminAccountsController } from './accounts.controller';
import { AccountsService } from './accounts.service';
import { MalformedJsonGuard } from '../common/json-body';
import { ApiKeyGuard, RateLimitGuard, RolesGuard } from './auth.guards';
import { RateLimiter } from './rate-limiter';

@Module({
  controllers: [AccountsController, AdminAccountsController],
  providers: [
    AccountsService,
    RateLimiter,
    // Global guards run in this order: key (401) -> role (403) -> rate limit (429) -> malformed JSON body (400).
    { provide: APP_GUARD, useClass: ApiKeyGuard },
    { provide: APP_GUARD, useClass: RolesGuard },
    { provide: APP_GUARD, useClass: RateLimitGuard },
    { provide: APP_GUARD, useClass: MalformedJsonGuard },
  ],
  exports: [AccountsService, RateLimiter],
})
export class AccountsModule {}
