import type { DataSource, EntityManager } from 'typeorm';
import { isDuplicateKey } from '../database/duplicate-key';
import { WriteDeadline } from './write-deadline';

/** How one kind of conversion finds the click it may be credited to, and stores itself (see attributeOnce). */
export interface Attribution<Click> {
  /** The user's latest counted click within the attribution window, or null. */
  latestClick(manager: EntityManager): Promise<Click | null>;
  /**
   * Stores the conversion credited to `click` and counts it, or stores it unattributed (`click` null). Storing it
   * against a click credited already must fail on a unique index of the click.
   */
  store(manager: EntityManager, click: Click | null): Promise<void>;
}

/**
 * The attribution rule of conversions (docs/CONTRACT.md §6, §14): credited to the user's latest counted click, at most
 * once per click, else kept unattributed. Lookup, conversion row and counters are one transaction, committed before
 * the answer; between concurrent reports on one click the unique index decides, and the loser is kept unattributed.
 * Held to a WriteDeadline: past it the answer is a 503 and nothing is committed. Answers the click credited, or null.
 */
export function attributeOnce<Click>(dataSource: DataSource, attribution: Attribution<Click>): Promise<Click | null> {
  return WriteDeadline.run(async (deadline) => {
    try {
      return await dataSource.transaction(async (manager) => {
        const click = await attribution.latestClick(manager);
        await attribution.store(manager, click);
        deadline.beforeCommit();
        return click;
      });
    } catch (error) {
      deadline.rolledBack();
      if (!isDuplicateKey(error)) throw error;
      await dataSource.transaction(async (manager) => {
        await attribution.store(manager, null);
        deadline.beforeCommit();
      });
      return null;
    }
  });
}
