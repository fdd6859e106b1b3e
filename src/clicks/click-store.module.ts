import { Module } from '@nestjs/common';
import { CLICK_STORE } from './click-store';
import { ClickRepository } from './click.repository';

/** The click rows' port, apart from the events module so that the serving, stats and verification features can import it. */
@Module({
  providers: [ClickRepository, { provide: CLICK_STORE, useExisting: ClickRepository }],
  exports: [CLICK_STORE],
})
export class ClickStoreModule {}
