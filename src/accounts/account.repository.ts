import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { AccountStore } from './account-store';
import { Account, Role } from './entities/account.entity';

/** The account reads other features make. */
@Injectable()
export class AccountRepository implements AccountStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async rolesOf(accountId: string): Promise<{ id: string; roles: Role[] } | null> {
    const account = await this.dataSource.getRepository(Account).findOneBy({ id: accountId });
    return account ? { id: account.id, roles: account.roleList } : null;
  }
}
