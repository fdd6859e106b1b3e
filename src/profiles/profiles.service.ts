import { Inject, Injectable, Logger, OnModuleInit, Optional } from '@nestjs/common';
import { PROFILES_CONFIG, ProfilesConfig } from './profiles.config';
import { ACCOUNT_STORE, type AccountStore } from '../accounts/account-store';
import { isAdmin, Principal } from '../accounts/principal';
import { Clock } from '../common/clock';
import { ForbiddenError, NotFoundError, ValidationError } from '../common/errors';
import { newId } from '../common/ids';
import { WriteDeadline } from '../common/write-deadline';
import { QUEUE_NAMES } from '../queue/queue-names';
import { REDIS_DEADLINE, type RedisDeadline } from '../redis/redis-deadline';
import { QueueService } from '../queue/queue.service';
import type { JobQueue, QueueJob } from '../queue/queue.types';
import type { ProfileBatchStatusDto } from './dto/profile.dto';
import { ProfileBatchRepository } from './profile-batch.repository';
import { Profile } from './entities/profile.entity';
import { ProfileBatch } from './entities/profile-batch.entity';
import { PROFILE_COLUMNS, ProfileRow } from './profile-upsert';
import { ProfilesRepository, StoredProfile } from './profiles.repository';
import { factsOf, PROFILE_STORE, ProfileStore, PublisherProfileFacts, StoredProfileColumns } from './store/profile-store';

export interface ProfileBatchJob {
  batchId: string;
}

/** A CSV import that was never completed (the process died while reading it) is dropped after this long. */
const STALE_STAGED_MS = 60 * 60 * 1000;
const REBUILD_PAGE = 5000;

const toStoreEntry = (profile: StoredProfile): PublisherProfileFacts => ({
  accountId: profile.accountId,
  messengerUserId: profile.messengerUserId,
  facts: factsOf(profile),
});

/**
 * Profile batches (endpoint 10): accepted whole, kept with their records, applied by a queue job that upserts by
 * (publisher, messengerUserId) in chunks (one multi-row statement per chunk) and then writes the merged profiles'
 * targeting facts to the serving store. A batch belongs to one publisher account and changes only its profiles,
 * which serve only its ad blocks (docs/TRUST_AND_SAFETY.md).
 */
@Injectable()
export class ProfilesService implements OnModuleInit {
  private readonly logger = new Logger(ProfilesService.name);
  private readonly queue: JobQueue<ProfileBatchJob>;

  constructor(
    private readonly batches: ProfileBatchRepository,
    private readonly profiles: ProfilesRepository,
    @Inject(PROFILE_STORE) private readonly store: ProfileStore,
    @Inject(ACCOUNT_STORE) private readonly accounts: AccountStore,
    @Inject(PROFILES_CONFIG) private readonly config: ProfilesConfig,
    private readonly clock: Clock,
    queues: QueueService,
    /** On the MySQL + Redis profile: the batch's job is queued in Redis (BullMQ) within the request's Redis deadline. */
    @Optional() @Inject(REDIS_DEADLINE) private readonly redisDeadline: RedisDeadline | null = null,
  ) {
    this.queue = queues.queue<ProfileBatchJob>(QUEUE_NAMES.profileBatch);
  }

  /**
   * The publisher account an upload is for: the caller's own, unless an admin names another with `publisherId`
   * (an admin upload never lands on a publisher's users without naming that publisher). Checked before any record
   * is read or stored.
   */
  async ownerOf(principal: Principal, publisherId: string | undefined): Promise<string> {
    if (publisherId === undefined || publisherId === principal.accountId) return principal.accountId;
    if (!isAdmin(principal)) {
      const message = 'only an admin may upload profiles for another account';
      throw new ForbiddenError(`publisherId: ${message}`, { errors: [{ field: 'publisherId', message }] });
    }
    const account = await this.accounts.rolesOf(publisherId);
    if (!account) throw new NotFoundError('publisherId', 'publisher account');
    const roles = account.roles;
    if (!roles.includes('publisher') && !roles.includes('admin')) throw ValidationError.of('publisherId', 'must name a publisher account');
    return account.id;
  }

  /** At start: drop abandoned CSV imports, rebuild the serving store if it lost profiles, re-enqueue unfinished batches. */
  async onModuleInit(): Promise<void> {
    const now = this.clock.now();
    await this.batches.deleteStagedBefore(now - STALE_STAGED_MS);
    if (!(await this.store.isBuilt())) await this.rebuildStore();
    const unfinished = await this.batches.unfinishedIds();
    // jobId = batchId: a batch whose job still exists (BullMQ) is not added twice
    if (unfinished.length > 0) await this.queue.addBulk(unfinished.map((id) => this.jobOf(id)));
  }

  /** Stores an accepted batch of the publisher `accountId` (see ownerOf) and queues its job; answers the batchId. */
  async accept(accountId: string, rows: ProfileRow[]): Promise<string> {
    // Held to the write deadline: an upload never waits out a frozen database, and one answered 503 is never stored.
    const batch = this.newBatch(accountId, rows, 'json', 'queued');
    await WriteDeadline.run((deadline) => this.batches.insertWithin(batch, deadline));
    const batchId = batch.id;
    try {
      // A Redis that does not answer within the deadline: 503 at once, the batch deleted. A job that reaches Redis
      // after that finds no batch and does nothing (applyBatch): the refused upload stores nothing.
      const add = () => this.queue.add(QUEUE_NAMES.profileBatch, { batchId }, this.jobOf(batchId).options);
      await (this.redisDeadline ? this.redisDeadline.run(add) : add());
    } catch (error) {
      await this.batches.delete(batchId);
      throw error;
    }
    return batchId;
  }

  /** A chunk of a CSV import still being read: stored, invisible and not queued until release(). */
  async stage(accountId: string, rows: ProfileRow[]): Promise<string> {
    const batch = this.newBatch(accountId, rows, 'csv', 'staged');
    await this.batches.insert(batch);
    return batch.id;
  }

  async release(batchIds: string[]): Promise<void> {
    if (batchIds.length === 0) return;
    await this.batches.releaseStaged(batchIds, this.clock.now());
    await this.queue.addBulk(batchIds.map((id) => this.jobOf(id)));
  }

  async dropStaged(batchIds: string[]): Promise<void> {
    if (batchIds.length > 0) await this.batches.deleteStaged(batchIds);
  }

  async status(principal: Principal, batchId: string): Promise<ProfileBatchStatusDto> {
    const batch = await this.batches.statusOf(batchId);
    if (!batch || batch.status === 'staged' || (batch.accountId !== principal.accountId && !isAdmin(principal))) {
      throw new NotFoundError('batchId', 'batch');
    }
    return {
      batchId: batch.id,
      status: batch.status as ProfileBatchStatusDto['status'],
      total: batch.total,
      processed: batch.processed,
      attempts: batch.attempts,
      error: batch.error,
      createdAt: batch.createdAt,
      finishedAt: batch.finishedAt,
    };
  }

  /**
   * The job: applies the batch's records. Safe to run twice: upserts are idempotent and a done batch is skipped.
   * A failed try records its error and leaves the batch `queued` for the retry, or `failed` after the last one.
   */
  async applyBatch(job: QueueJob<ProfileBatchJob>): Promise<void> {
    const { batchId } = job.data;
    const batch = await this.batches.findById(batchId);
    if (!batch || batch.records === null || batch.status === 'done' || batch.status === 'staged') return;
    await this.batches.update(batchId, { status: 'processing', attempts: job.attemptsMade + 1, processed: 0, updatedAt: this.clock.now() });
    try {
      const rows = JSON.parse(batch.records) as ProfileRow[];
      const chunkSize = this.config.profileChunkSize;
      for (let from = 0; from < rows.length; from += chunkSize) {
        const chunk = rows.slice(from, from + chunkSize);
        await this.upsertChunk(batch.accountId, chunk);
        await this.publishFacts(batch.accountId, chunk);
        const processed = Math.min(from + chunkSize, rows.length);
        if (processed < rows.length) await this.batches.update(batchId, { processed, updatedAt: this.clock.now() });
      }
      const now = this.clock.now();
      await this.batches.update(batchId, { status: 'done', processed: rows.length, records: null, updatedAt: now, finishedAt: now });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const lastTry = job.attemptsMade + 1 >= job.attempts;
      const now = this.clock.now();
      await this.batches.update(batchId, {
        status: lastTry ? 'failed' : 'queued',
        error: message.slice(0, 500),
        updatedAt: now,
        finishedAt: lastTry ? now : null,
      });
      throw error;
    }
  }

  /** Writes one chunk of the publisher's records with one multi-row upsert statement. */
  upsertChunk(accountId: string, rows: ProfileRow[]): Promise<void> {
    return this.profiles.upsertChunk(accountId, rows, this.clock.now());
  }

  /**
   * Writes the chunk's targeting facts to the serving store. A record that carries every column and is its user's
   * only one in the chunk is the merged profile itself; the others are read back merged (one query).
   */
  private async publishFacts(accountId: string, chunk: ProfileRow[]): Promise<void> {
    const occurrences = new Map<string, number>();
    for (const row of chunk) occurrences.set(row.messengerUserId, (occurrences.get(row.messengerUserId) ?? 0) + 1);
    const entries: PublisherProfileFacts[] = [];
    const readBack = new Set<string>();
    for (const row of chunk) {
      const complete = occurrences.get(row.messengerUserId) === 1 && PROFILE_COLUMNS.every((column) => row[column] !== undefined);
      if (complete) entries.push({ accountId, messengerUserId: row.messengerUserId, facts: factsOf(row as StoredProfileColumns) });
      else readBack.add(row.messengerUserId);
    }
    if (readBack.size > 0) {
      for (const profile of await this.profiles.findMerged(accountId, [...readBack])) entries.push(toStoreEntry(profile));
    }
    await this.store.putMany(entries);
  }

  /** Writes every stored profile to the serving store (after Redis lost it, or at an embedded start). */
  async rebuildStore(): Promise<number> {
    const started = this.clock.now();
    let after: StoredProfile | null = null;
    let count = 0;
    for (;;) {
      const page = await this.profiles.page(after, REBUILD_PAGE);
      if (page.length === 0) break;
      await this.store.putMany(page.map(toStoreEntry));
      count += page.length;
      after = page[page.length - 1];
      if (page.length < REBUILD_PAGE) break;
    }
    await this.store.markBuilt();
    if (count > 0) this.logger.log(`serving store rebuilt from the database: ${count} profiles in ${this.clock.now() - started} ms`);
    return count;
  }

  /** One publisher's profile of a user as stored (tests and the admin panel). */
  findProfile(accountId: string, messengerUserId: string): Promise<Profile | null> {
    return this.profiles.findOne(accountId, messengerUserId);
  }

  private newBatch(accountId: string, rows: ProfileRow[], source: 'json' | 'csv', status: 'queued' | 'staged'): ProfileBatch {
    const now = this.clock.now();
    return {
      id: newId(now),
      accountId,
      source,
      status,
      total: rows.length,
      processed: 0,
      attempts: 0,
      error: null,
      records: JSON.stringify(rows),
      createdAt: now,
      updatedAt: now,
      finishedAt: null,
    };
  }

  private jobOf(batchId: string) {
    return {
      name: QUEUE_NAMES.profileBatch,
      data: { batchId },
      // the batch id is the job id: enqueuing the same batch again (start-up recovery, a retried release) is a no-op
      options: { jobId: batchId, attempts: this.config.profileBatchAttempts, backoffMs: this.config.profileBatchBackoffMs },
    };
  }
}
