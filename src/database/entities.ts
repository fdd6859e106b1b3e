import { Account } from '../accounts/entities/account.entity';
import { ApiKey } from '../accounts/entities/api-key.entity';
import { AdBlock } from '../ad-blocks/entities/ad-block.entity';
import { Campaign } from '../campaigns/entities/campaign.entity';
import { Click } from '../events/entities/click.entity';
import { StatsHourly } from '../stats/entities/stats-hourly.entity';

export const ENTITIES = [Account, ApiKey, Campaign, AdBlock, Click, StatsHourly];
