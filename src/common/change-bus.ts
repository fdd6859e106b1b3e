import { Global, Inject, Injectable, Logger, Module, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import Redis from 'ioredis';
import { APP_CONFIG, AppConfig } from '../config/app.config';

type Handler = (id: string) => void;
const CHANNEL = 'changes';

/**
 * "Something with this id changed" notices between the parts of one process and, with Redis, between
 * processes (pub/sub), so in-memory indexes can reload just that item instead of waiting for their refresh.
 */
@Injectable()
export class ChangeBus implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(ChangeBus.name);
  private readonly handlers = new Map<string, Handler[]>();
  private publisher: Redis | null = null;
  private subscriber: Redis | null = null;
  private readonly channel: string;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    this.channel = `${config.redisPrefix}${CHANNEL}`;
  }

  async onModuleInit(): Promise<void> {
    if (!this.config.redisUrl) return;
    this.publisher = new Redis(this.config.redisUrl, { maxRetriesPerRequest: 2 });
    this.subscriber = new Redis(this.config.redisUrl, { maxRetriesPerRequest: null });
    this.subscriber.on('message', (_channel: string, message: string) => {
      const split = message.indexOf(' ');
      this.deliver(message.slice(0, split), message.slice(split + 1));
    });
    await this.subscriber.subscribe(this.channel);
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([this.publisher?.quit().catch(() => undefined), this.subscriber?.quit().catch(() => undefined)]);
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

  private deliver(topic: string, id: string): void {
    for (const handler of this.handlers.get(topic) ?? []) handler(id);
  }
}

@Global()
@Module({ providers: [ChangeBus], exports: [ChangeBus] })
export class ChangeBusModule {}
