import pino, { DestinationStream } from 'pino';

/** How long a log line may wait in the buffer on a quiet server. */
const LOG_FLUSH_MS = 200;
/**
 * Lines are written in chunks of about this many characters. Each write is handed to libuv's thread pool, and what
 * one costs the process is mostly per write, not per byte, so larger chunks cost each request less
 * (`node bench/probes/log-writes.js`, docs/PERFORMANCE.md#the-access-log-and-the-request-histogram).
 */
const LOG_CHUNK = 65536;

/**
 * Standard output through a buffer: one write per 64 KiB of lines (or LOG_FLUSH_MS) instead of a system call per
 * request line. The lines are kept in an array and joined once per chunk: sonic-boom's own buffer (`minLength`)
 * appends to one string and measures its byte length on every write, copying the whole buffer each time (5 KB of
 * garbage per request line, an eighth of the ad route's allocations). Flushed synchronously when the process exits;
 * a process killed with SIGKILL can lose the last LOG_FLUSH_MS of lines.
 */
export function bufferedStdout(): DestinationStream {
  return new LineBuffer(pino.destination({ dest: 1, sync: false }));
}

class LineBuffer implements DestinationStream {
  private lines: string[] = [];
  private length = 0;

  constructor(private readonly out: ReturnType<typeof pino.destination>) {
    setInterval(() => this.flush(), LOG_FLUSH_MS).unref();
    // 'exit' is not emitted when the process ends by a signal (Nest's shutdown hooks re-raise SIGTERM after closing
    // the app): the lines of the last LOG_FLUSH_MS before that can be lost, as with pino's own buffer.
    process.once('exit', () => this.flushSync());
  }

  write(line: string): void {
    this.lines.push(line);
    this.length += line.length;
    if (this.length >= LOG_CHUNK) this.flush();
  }

  /** Hands the buffered lines to the stream; with a callback (pino's `flush(cb)`), calls it once they are written. */
  flush(callback?: (error?: Error) => void): void {
    if (this.lines.length > 0) {
      const chunk = this.lines.join('');
      this.lines = [];
      this.length = 0;
      this.out.write(chunk);
    }
    if (!callback) return;
    try {
      this.out.flush(callback);
    } catch (error) {
      callback(error as Error);
    }
  }

  flushSync(): void {
    this.flush();
    try {
      this.out.flushSync();
    } catch {
      // the descriptor is still opening or already closed: nothing more can be written
    }
  }
}
