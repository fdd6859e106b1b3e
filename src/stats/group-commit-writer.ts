import { Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { WriteLedger } from './write-ledger';

interface Pending<Item> {
  item: Item;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** Items (clicks) per transaction at the most; the rest wait for the next round of the same flush. */
const MAX_ITEMS_PER_WRITE = 500;

/**
 * The write loop shared by the counter writers. Buffered counts (impressions) are written every `flushMs`; items
 * (clicks) are committed before their caller is answered, grouped: every item waiting when a write starts goes into
 * the same transaction, so load raises the batch size, not the number of transactions. The writes go through a
 * `WriteLedger`, so a lost COMMIT answer neither doubles nor loses counts.
 */
export abstract class GroupCommitWriter<Item, Buffered> implements OnModuleInit, OnApplicationShutdown {
  protected readonly ledger: WriteLedger<Buffered>;
  private pending: Pending<Item>[] = [];
  private writing: Promise<void> | null = null;
  private again = false;
  private timer: NodeJS.Timeout | undefined;

  protected constructor(
    dataSource: DataSource,
    private readonly flushMs: number,
    protected readonly logger: Logger,
    /** Told of each committed transaction: its items and how long it took (the writer's metrics). */
    private readonly committed: (items: number, seconds: number) => void = () => undefined,
  ) {
    this.ledger = new WriteLedger(dataSource, logger, (carried) => this.putBack(carried));
  }

  onModuleInit(): void {
    this.timer = setInterval(() => void this.flush(), this.flushMs);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }

  /** Writes everything buffered so far; waits for a write already under way and runs once more if needed. */
  async flush(): Promise<void> {
    if (this.writing) {
      this.again = true;
      return this.writing;
    }
    this.writing = (async () => {
      try {
        do {
          this.again = false;
          await this.writeRound();
        } while (this.again || this.pending.length > 0);
      } finally {
        // cleared in the same step as the last check: a flush() arriving later starts a new write instead of
        // joining one that will not look at `again` any more
        this.writing = null;
      }
    })();
    return this.writing;
  }

  /** Resolves once the item is committed with the next group. */
  protected enqueue(item: Item): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ item, resolve, reject });
      void this.flush();
    });
  }

  /** Items waiting for the next write. */
  protected get itemsWaiting(): number {
    return this.pending.length;
  }

  /** Hands over what is buffered (the writer starts a new buffer), or undefined when nothing is. */
  protected abstract takeBuffered(): Buffered | undefined;

  /**
   * What was buffered, cut into the parts written one transaction each, handed out one at a time: the writer takes
   * the next part once the previous one committed, and a part that needs a turn of the event loop before it (its
   * cutting may take several) awaits it here. One part by default.
   */
  protected async *partsOf(buffered: Buffered): AsyncGenerator<Buffered> {
    yield buffered;
  }

  /** Returns what a write that did not commit carried to the buffer, to be written again. */
  protected abstract putBack(carried: Buffered): void;

  /**
   * Writes the items and the buffered counts through `this.ledger`, in one transaction. Answers false, with no items
   * given, when it wrote nothing and handed the counts back (putBack) to be written later: the round ends there, and
   * items that came meanwhile go into the next one instead of waiting for these counts.
   */
  protected abstract commit(items: Item[], buffered: Buffered | undefined): Promise<boolean | void>;

  private async writeRound(): Promise<void> {
    // One turn of the event loop first, so every request already read by this turn joins the group. Without it a
    // synchronous driver (better-sqlite3) committed each click on its own: its whole write ran in the microtasks of
    // the request that started it, before any other request was read (one transaction, one WAL sync, per click).
    await nextTurn();
    await this.ledger.settle();
    const buffered = this.takeBuffered();
    if (buffered === undefined) {
      await this.writePart(undefined);
      return;
    }
    // A synchronous driver holds the event loop for a whole transaction, and a second's impressions over many
    // campaigns held it far too long in one (docs/PERFORMANCE.md#periodic-work-in-parts): the parts come with turns
    // of the event loop between them. Each part takes the items waiting by then, so a click does not wait for the
    // whole flush.
    const parts = this.partsOf(buffered);
    for await (const part of parts) {
      if (await this.writePart(part)) continue;
      // the failed part is back in the buffer (or held in doubt) by the ledger; the parts not tried go back too
      for await (const untried of parts) this.putBack(untried);
      return;
    }
  }

  /**
   * Commits the items waiting and one part of the buffered counts; false when the write failed (its items refused) or
   * the part went back unwritten (commit answered false).
   */
  private async writePart(part: Buffered | undefined): Promise<boolean> {
    const group = this.pending.splice(0, MAX_ITEMS_PER_WRITE);
    if (group.length === 0 && part === undefined) return true;
    try {
      const started = performance.now();
      const wrote = await this.commit(
        group.map(({ item }) => item),
        part,
      );
      if (wrote === false && group.length === 0) return false;
      this.committed(group.length, (performance.now() - started) / 1000);
      for (const waiting of group) waiting.resolve();
      return true;
    } catch (error) {
      this.logger.error({ err: error }, `${this.constructor.name}: write failed; buffered counts kept for the next try, items refused`);
      for (const waiting of group) waiting.reject(error);
      return false;
    }
  }
}

/** Resolves on the next turn of the event loop, after the I/O already waiting. */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Orders ids the same way in every process, so concurrent writers lock rows in one order. */
export function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Runs `write` over `rows` in chunks of `size` (one multi-row statement per chunk). */
export async function inChunks<Row>(rows: Row[], size: number, write: (chunk: Row[]) => Promise<void>): Promise<void> {
  for (let i = 0; i < rows.length; i += size) await write(rows.slice(i, i + size));
}
