import { Module } from '@nestjs/common';
import { AccountStoreModule } from '../accounts/account-store.module';
import { CsvContentType } from './csv-content-type';
import { ProfileBatchProcessor } from './profile-batch.processor';
import { ProfileCsvImporter } from './profile-csv-import';
import { ProfilesAdminController, ProfilesController } from './profiles.controller';
import { ProfileBatchRepository } from './profile-batch.repository';
import { ProfilesRepository } from './profiles.repository';
import { ProfilesService } from './profiles.service';
import { ProfileStoreModule } from './store/profile-store.module';

@Module({
  imports: [ProfileStoreModule, AccountStoreModule],
  controllers: [ProfilesController, ProfilesAdminController],
  providers: [ProfilesService, ProfilesRepository, ProfileBatchRepository, ProfileCsvImporter, ProfileBatchProcessor, CsvContentType],
  exports: [ProfilesService],
})
export class ProfilesModule {}
