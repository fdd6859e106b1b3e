import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, LessThan, Repository } from 'typeorm';
import { RewardDayCount, RewardDelivery, type RewardStatus } from './entities/reward-delivery.entity';

/** The `reward_deliveries` and `reward_day_counts` rows: the rewards earned, their callbacks' log and the daily cap. */
@Injectable()
export class RewardRepository {
  constructor(@InjectRepository(RewardDelivery) private readonly deliveries: Repository<RewardDelivery>) {}

  /**
   * Takes one of the (block, user, day) pair's `cap` rewards in the caller's transaction; false when they are all
   * taken. The conditional update is the decision: concurrent takers queue on its row, so the cap holds exactly.
   */
  async takeDailyReward(manager: EntityManager, key: { adBlockId: string; messengerUserId: string; day: string }, cap: number): Promise<boolean> {
    await manager
      .createQueryBuilder()
      .insert()
      .into(RewardDayCount)
      .values({ ...key, rewards: 0 })
      .orIgnore()
      .execute();
    const taken = await manager
      .createQueryBuilder()
      .update(RewardDayCount)
      .set({ rewards: () => 'rewards + 1' })
      .where('adBlockId = :adBlockId AND messengerUserId = :messengerUserId AND day = :day AND rewards < :cap', { ...key, cap })
      .execute();
    return (taken.affected ?? 0) > 0;
  }

  /** Stores a reward in the caller's transaction; a second one of the same impression fails on the key (isDuplicateKey). */
  async insert(manager: EntityManager, row: RewardDelivery): Promise<void> {
    await manager.insert(RewardDelivery, row);
  }

  find(eventId: string): Promise<RewardDelivery | null> {
    return this.deliveries.findOneBy({ eventId });
  }

  /** A block's rewards newest first, optionally of one status, with the total. */
  page(adBlockId: string, status: RewardStatus | undefined, skip: number, take: number): Promise<[RewardDelivery[], number]> {
    return this.deliveries.findAndCount({ where: status ? { adBlockId, status } : { adBlockId }, order: { createdAt: 'DESC', eventId: 'DESC' }, skip, take });
  }

  /** One try's outcome: attempts + 1, its status code and error, and the status it leaves. */
  async recordAttempt(eventId: string, outcome: { status: RewardStatus; statusCode: number | null; error: string | null; at: number }): Promise<void> {
    await this.deliveries
      .createQueryBuilder()
      .update(RewardDelivery)
      .set({
        attempts: () => 'attempts + 1',
        status: outcome.status,
        lastStatusCode: outcome.statusCode,
        lastError: outcome.error,
        ...(outcome.status === 'delivered' ? { deliveredAt: outcome.at } : {}),
      })
      .where('eventId = :eventId', { eventId })
      .execute();
  }

  /** A replay asked for: pending again; answers the replay's number (its job's id). */
  async markReplay(eventId: string): Promise<number> {
    await this.deliveries
      .createQueryBuilder()
      .update(RewardDelivery)
      .set({ replays: () => 'replays + 1', status: 'pending' })
      .where('eventId = :eventId', { eventId })
      .execute();
    return (await this.deliveries.findOne({ where: { eventId }, select: { eventId: true, replays: true } }))?.replays ?? 0;
  }

  /** Rewards still pending that were created before `before` (their job may be lost), oldest first. */
  async pendingSince(before: number, limit: number): Promise<RewardDelivery[]> {
    return this.deliveries.find({ where: { status: 'pending', createdAt: LessThan(before) }, order: { createdAt: 'ASC' }, take: limit });
  }
}
