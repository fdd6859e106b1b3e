import { Global, Inject, Injectable, Logger, Module, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { REDIS_CONFIG, RedisConfig } from '../redis/redis.config';
import { closeRedis, redisConnection, RedisClient } from '../redis/redis.module';

type Handler = (id: string) => void;
const CHANNEL = 'changes';
/** Topic suffix of a notice carrying a JSON array of ids. */
const MANY = '*';

/**
 * "Something with this id changed" notices between the parts of one process and, with Redis, between
 * processes (pub/sub), so in-memory indexes can reload just that item instead of waiting for their refresh.
 */
@Injectable()
export class ChangeBus implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(ChangeBus.name);
  private readonly handlers = new Map<string, Handler[]>();
  private publisher: RedisClient | null = null;
  private subscriber: RedisClient | null = null;
  private readonly channel: string;
  private readonly reconnectHandlers: (() => void)[] = [];

  constructor(@Inject(REDIS_CONFIG) private readonly config: RedisConfig) {
    this.channel = `${config.redisPrefix}${CHANNEL}`;
  }

  async onModuleInit(): Promise<void> {
    if (!this.config.redisUrl) return;
    // On a cluster a notice published on any node reaches the subscribers of every node (classic pub/sub).
    this.publisher = redisConnection(this.config, { maxRetriesPerRequest: 2 });
    this.subscriber = redisConnection(this.config, { maxRetriesPerRequest: null });
    this.subscriber.on('message', (_channel: string, message: string) => {
      const split = message.indexOf(' ');
      const topic = message.slice(0, split);
      if (topic.endsWith(MANY)) {
        for (const id of JSON.parse(message.slice(split + 1)) as string[]) this.deliver(topic.slice(0, -MANY.length), id);
      } else {
        this.deliver(topic, message.slice(split + 1));
      }
    });
    let connections = 0;
    // Notices published while the subscriber was reconnecting are lost: caches that rely on them must start afresh,
    // once the subscription is back (ioredis reports `ready` before it subscribes again, so subscribe here and wait).
    this.subscriber.on('ready', () => {
      connections += 1;
      if (connections === 1 || !this.subscriber) return;
      this.subscriber.subscribe(this.channel).then(
        () => this.reconnectHandlers.forEach((handler) => handler()),
        (error: unknown) => this.logger.warn({ err: error }, 'change notices: subscribing again failed'),
      );
    });
    await this.subscriber.subscribe(this.channel);
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([closeRedis(this.publisher), closeRedis(this.subscriber)]);
  }

  /** Called after the subscription was lost and is back: notices of the gap are gone. */
  onReconnect(handler: () => void): void {
    this.reconnectHandlers.push(handler);
  }

  on(topic: string, handler: Handler): void {
    this.handlers.set(topic, [...(this.handlers.get(topic) ?? []), handler]);
  }

  publish(topic: string, id: string): void {
    if (this.publisher) {
      // Delivered back to this process too, through the subscription.
      this.publisher.publish(this.channel, `${topic} ${id}`).catch((error) => {
        this.logger.warn({ err: error }, 'change notice not published; other processes catch up at their next refresh');
        this.deliver(topic, id);
      });
    } else {
      this.deliver(topic, id);
    }
  }

  /** One notice for many ids (a chunk of profiles): one message, delivered to the handlers id by id. */
  async publishMany(topic: string, ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    if (!this.publisher) {
      for (const id of ids) this.deliver(topic, id);
      return;
    }
    try {
      await this.publisher.publish(this.channel, `${topic}${MANY} ${JSON.stringify(ids)}`);
    } catch (error) {
      this.logger.warn({ err: error }, 'change notice not published');
      for (const id of ids) this.deliver(topic, id);
      throw error;
    }
  }

  private deliver(topic: string, id: string): void {
    for (const handler of this.handlers.get(topic) ?? []) handler(id);
  }
}

@Global()
@Module({ providers: [ChangeBus], exports: [ChangeBus] })
export class ChangeBusModule {}
