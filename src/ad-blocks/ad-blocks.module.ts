import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AdBlockRepository } from './ad-block.repository';
import { AdBlocksController } from './ad-blocks.controller';
import { AdBlocksService } from './ad-blocks.service';
import { AdBlock } from './entities/ad-block.entity';

@Module({
  imports: [TypeOrmModule.forFeature([AdBlock])],
  controllers: [AdBlocksController],
  providers: [AdBlocksService, AdBlockRepository],
  exports: [AdBlocksService],
})
export class AdBlocksModule {}
