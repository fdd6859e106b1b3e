import { Module } from '@nestjs/common';
import { ConversionsModule } from '../conversions/conversions.module';
import { ClicksModule } from '../clicks/clicks.module';
import { ExchangeModule } from '../exchange/exchange.module';
import { ProfilesModule } from '../profiles/profiles.module';
import { ServingModule } from '../serving/serving.module';
import { RewardsModule } from '../rewards/rewards.module';
import { CompatController } from './compat.controller';
import { CompatService } from './compat.service';

/**
 * The npm package ton-ai-sdk 2.2.2's routes (docs/SWITCHING_FROM_TON_AI.md): one controller translating its names
 * and answer shapes onto the canonical services; no serving, billing or attribution of its own.
 */
@Module({
  imports: [ServingModule, ClicksModule, ConversionsModule, ExchangeModule, ProfilesModule, RewardsModule],
  controllers: [CompatController],
  providers: [CompatService],
})
export class CompatModule {}
