import { Global, Module } from '@nestjs/common';
import { TrafficClassifier } from './traffic-classifier';

/** Trust and safety pieces shared by serving, events and exchange (docs/TRUST_AND_SAFETY.md). */
@Global()
@Module({ providers: [TrafficClassifier], exports: [TrafficClassifier] })
export class TrustModule {}
