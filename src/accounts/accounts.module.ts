import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { AccountsController, AdminAccountsController } from './accounts.controller';
import { AccountsService } from './accounts.service';
import { ApiKeyGuard, RateLimitGuard, RolesGuard } from './auth.guards';

@Module({
  controllers: [AccountsController, AdminAccountsController],
  providers: [
    AccountsService,
    // Global guards run in this order: key (401) -> role (403) -> rate limit (429), before any input check.
    { provide: APP_GUARD, useClass: ApiKeyGuard },
    { provide: APP_GUARD, useClass: RolesGuard },
    { provide: APP_GUARD, useClass: RateLimitGuard },
  ],
  exports: [AccountsService],
})
export class AccountsModule {}
