import { Module } from '@nestjs/common';
import { CLICK_STORE } from './click-store';
import { ClickRepository } from './click.repository';
import { ClickIdStore } from './click-ids';

/** The click rows' port, apart from the events module so that the serving, stats and verification features can import it. */
@Module({
  providers: [ClickRepository, { provide: CLICK_STORE, useExisting: ClickRepository }, ClickIdStore],
  exports: [CLICK_STORE, ClickIdStore],
})
export class ClickStoreModule {}
