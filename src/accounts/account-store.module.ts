import { Module } from '@nestjs/common';
import { ACCOUNT_STORE } from './account-store';
import { AccountRepository } from './account.repository';

/** The account rows' port, apart from the accounts module (its guards and start-up keys) so any process can import it. */
@Module({
  providers: [AccountRepository, { provide: ACCOUNT_STORE, useExisting: AccountRepository }],
  exports: [ACCOUNT_STORE, AccountRepository],
})
export class AccountStoreModule {}
