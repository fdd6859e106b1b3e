import { DependencyUnavailableError } from './errors';
import { WriteDeadline } from './write-deadline';

/** A write that takes `ms` before it reaches its commit, then commits (records it) after `commitMs`. */
function slowWrite(ms: number, commitMs: number, log: string[]) {
  return async (deadline: WriteDeadline) => {
    await new Promise((resolve) => setTimeout(resolve, ms));
    try {
      deadline.beforeCommit();
    } catch (error) {
      log.push('rolled back');
      throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, commitMs));
    log.push('committed');
    return 'stored';
  };
}

describe(WriteDeadline.name, () => {
  it('should answer a write that commits within the deadline with its outcome', async () => {
    const log: string[] = [];
    await expect(WriteDeadline.run(slowWrite(5, 5, log), 200)).resolves.toBe('stored');
    expect(log).toEqual(['committed']);
  });

  it('should answer 503 at the deadline and roll the write back when it reaches its commit later', async () => {
    const log: string[] = [];
    const started = Date.now();
    await expect(WriteDeadline.run(slowWrite(150, 0, log), 30)).rejects.toThrow(DependencyUnavailableError);
    expect(Date.now() - started).toBeLessThan(150);
    expect(log).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(log).toEqual(['rolled back']);
  });

  it('should wait for a commit sent before the deadline, however long it takes', async () => {
    const log: string[] = [];
    await expect(WriteDeadline.run(slowWrite(5, 120, log), 30)).resolves.toBe('stored');
    expect(log).toEqual(['committed']);
  });

  it('should hold a second transaction of the same write to the deadline after the first failed', async () => {
    const log: string[] = [];
    const write = async (deadline: WriteDeadline) => {
      deadline.beforeCommit();
      deadline.rolledBack(); // the first transaction failed at its commit
      await new Promise((resolve) => setTimeout(resolve, 100));
      try {
        deadline.beforeCommit();
      } catch (error) {
        log.push('second rolled back');
        throw error;
      }
      log.push('second committed');
    };
    await expect(WriteDeadline.run(write, 30)).rejects.toThrow(DependencyUnavailableError);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(log).toEqual(['second rolled back']);
  });
});
