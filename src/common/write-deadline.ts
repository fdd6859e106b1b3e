import { HandlerDeadline } from './edge/route-config';
import { DependencyUnavailableError } from './errors';

/**
 * The longest a request waits for a database write it answers with (a conversion or custom event): past it, 503 with
 * Retry-After, and the write is rolled back, never committed after that answer (docs/OPERATIONS.md, "Faults"). A
 * healthy write takes milliseconds; this bounds one stuck behind a frozen or stopped database.
 */
export const DATABASE_WRITE_DEADLINE_MS = 2000;

/**
 * One write's deadline. The write calls `beforeCommit()` as the last step inside its transaction: past the deadline
 * it throws (the transaction rolls back); else the commit is sent, and from then on the answer waits for its outcome,
 * because a COMMIT already sent cannot be called back. So an answer that said "not stored" is never followed by a
 * stored row, and one that waits long is only ever waiting on a commit under way.
 */
export class WriteDeadline {
  private expired = false;
  private committing = false;

  /** The last step inside the transaction. */
  beforeCommit(): void {
    if (this.expired) throw new DependencyUnavailableError('database');
    this.committing = true;
  }

  /** The transaction failed: a later one (a retry inside the same write) is held to the deadline again. */
  rolledBack(): void {
    this.committing = false;
  }

  /**
   * Runs `write` and answers its outcome, or a DependencyUnavailableError once `ms` passed before its commit was
   * sent (the write then goes on only to roll back). A database error is a DependencyUnavailableError too; errors of
   * the request (a status) and of the code stay what they are.
   */
  static run<T>(write: (deadline: WriteDeadline) => Promise<T>, ms = DATABASE_WRITE_DEADLINE_MS): Promise<T> {
    const deadline = new WriteDeadline();
    return new Promise<T>((resolve, reject) => {
      let answered = false;
      const timer = setTimeout(() => {
        if (deadline.committing) return;
        deadline.expired = true;
        answered = true;
        reject(new DependencyUnavailableError('database'));
      }, ms);
      write(deadline).then(
        (value) => {
          clearTimeout(timer);
          if (!answered) resolve(value);
        },
        (error: unknown) => {
          clearTimeout(timer);
          if (!answered) reject(error);
        },
      );
    });
  }
}

/**
 * The route of a write held to a WriteDeadline (the conversions): it keeps only REQUEST_TIMEOUT_MS, because the 15 s
 * handler deadline would answer 503 while a COMMIT already sent may still store the write.
 */
export const WriteDeadlineRoute = (): MethodDecorator => HandlerDeadline('request');
