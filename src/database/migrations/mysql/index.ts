import { Init1763848800000 } from './1763848800000-Init';
import { Serving1763852400000 } from './1763852400000-Serving';
import { Profiles1763856000000 } from './1763856000000-Profiles';
import { Exchange1763859600000 } from './1763859600000-Exchange';
import { Conversions1763863200000 } from './1763863200000-Conversions';
import { StatsWrites1763866800000 } from './1763866800000-StatsWrites';
import { ClickVerificationIndex1763870400000 } from './1763870400000-ClickVerificationIndex';
import { KeyScopes1763874000000 } from './1763874000000-KeyScopes';
import { PublisherData1763877600000 } from './1763877600000-PublisherData';
import { BillableTraffic1763881200000 } from './1763881200000-BillableTraffic';
import { FrequencyCaps1763884800000 } from './1763884800000-FrequencyCaps';
import { CustomEvents1763888400000 } from './1763888400000-CustomEvents';
import { ExchangeConversions1763892000000 } from './1763892000000-ExchangeConversions';
import { Views1763895600000 } from './1763895600000-Views';
import { EventPartitions1763899200000 } from './1763899200000-EventPartitions';
import { CampaignStatusIdIndex1763902800000 } from './1763902800000-CampaignStatusIdIndex';
import { AccountTimeZones1763906400000 } from './1763906400000-AccountTimeZones';
import { ForecastSamples1763910000000 } from './1763910000000-ForecastSamples';
import { PublisherControls1763920800000 } from './1763920800000-PublisherControls';
import { CreativeReview1763924400000 } from './1763924400000-CreativeReview';
import { RewardedBlocks1763921700000 } from './1763921700000-RewardedBlocks';
import { Completions1763921800000 } from './1763921800000-Completions';
import { RewardDeliveries1763921900000 } from './1763921900000-RewardDeliveries';
import { ReportRollup1763906400000 } from './1763906400000-ReportRollup';
import { ClickIdsPostbacks1763910000000 } from './1763910000000-ClickIdsPostbacks';
import { IdempotencyKeys1763913600000 } from './1763913600000-IdempotencyKeys';
import { ReportCompletions1763928000000 } from './1763928000000-ReportCompletions';
import { CampaignPacing1764300000000 } from './1764300000000-CampaignPacing';

/** Every mysql migration in order; listed explicitly so the app, the CLI and the tests load the same set. */
export const MYSQL_MIGRATIONS = [
  Init1763848800000,
  Serving1763852400000,
  Profiles1763856000000,
  Exchange1763859600000,
  Conversions1763863200000,
  StatsWrites1763866800000,
  ClickVerificationIndex1763870400000,
  KeyScopes1763874000000,
  PublisherData1763877600000,
  BillableTraffic1763881200000,
  FrequencyCaps1763884800000,
  CustomEvents1763888400000,
  ExchangeConversions1763892000000,
  Views1763895600000,
  EventPartitions1763899200000,
  CampaignStatusIdIndex1763902800000,
  AccountTimeZones1763906400000,
  ForecastSamples1763910000000,
  PublisherControls1763920800000,
  CreativeReview1763924400000,
  RewardedBlocks1763921700000,
  Completions1763921800000,
  RewardDeliveries1763921900000,
  ReportRollup1763906400000,
  ClickIdsPostbacks1763910000000,
  IdempotencyKeys1763913600000,
  ReportCompletions1763928000000,
  CampaignPacing1764300000000,
];
