import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { AccountStoreModule } from './account-store.module';
import { AccountsController, AdminAccountsController } from './accounts.controller';
import { AccountsService } from './accounts.service';
import { MalformedJsonGuard } from '../common/json-body';
import { ApiKeyGuard, RateLimitGuard, RolesGuard } from './auth.guards';
import { LaneGate } from './lane-gate';
import { PrincipalResolver } from './principal-resolver';
import { RateLimiter } from './rate-limiter';

@Module({
  imports: [AccountStoreModule],
  controllers: [AccountsController, AdminAccountsController],
  providers: [
    AccountsService,
    PrincipalResolver,
    RateLimiter,
    LaneGate,
    // Global guards run in this order: key (401) -> role (403) -> rate limit (429) -> malformed JSON body (400).
    { provide: APP_GUARD, useClass: ApiKeyGuard },
    { provide: APP_GUARD, useClass: RolesGuard },
    { provide: APP_GUARD, useClass: RateLimitGuard },
    { provide: APP_GUARD, useClass: MalformedJsonGuard },
  ],
  exports: [AccountsService, PrincipalResolver, RateLimiter, LaneGate],
})
export class AccountsModule {}
