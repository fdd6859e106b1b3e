import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { VerificationCall } from './entities/verification-call.entity';

/** Every statement on the `verification_calls` table. */
@Injectable()
export class VerificationCallRepository {
  constructor(@InjectRepository(VerificationCall) private readonly calls: Repository<VerificationCall>) {}

  async insert(call: VerificationCall): Promise<void> {
    await this.calls.insert(call);
  }

  /** A campaign's latest calls, newest first. */
  latest(campaignId: string, limit: number): Promise<VerificationCall[]> {
    return this.calls.find({ where: { campaignId }, order: { calledAt: 'DESC', id: 'DESC' }, take: limit });
  }
}
