import { Account } from '../accounts/entities/account.entity';
import { ApiKey } from '../accounts/entities/api-key.entity';
import { Campaign } from '../campaigns/entities/campaign.entity';

export const ENTITIES = [Account, ApiKey, Campaign];
