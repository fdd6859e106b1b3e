import { createHash } from 'node:crypto';
import { Command, type Redis } from 'ioredis';

/** Where a script call's keys and arguments go, in order: the keys all come before the arguments in the call. */
export interface ScriptArguments {
  /** A key, without the client's key prefix. */
  key(name: string): void;
  arg(value: string | number): void;
  /** A key many calls repeat (a campaign's): EncodedArguments keeps its encoding. */
  recurringKey(name: string): void;
  /** An argument many calls repeat (an ad id, a lease field): EncodedArguments keeps its encoding. */
  recurringArg(value: string): void;
}

/** The keys and arguments as lists, for ioredis' own script commands (a Redis Cluster routes by them). */
export class ListedArguments implements ScriptArguments {
  readonly keys: string[] = [];
  readonly args: (string | number)[] = [];

  key(name: string): void {
    this.keys.push(name);
  }

  arg(value: string | number): void {
    this.args.push(value);
  }

  recurringKey(name: string): void {
    this.keys.push(name);
  }

  recurringArg(value: string): void {
    this.args.push(value);
  }
}

/**
 * The keys and arguments written straight in the Redis protocol (RESP bulk strings), prefixed with the client's key
 * prefix. ioredis spends per argument what this does not: the call's argument list is spread twice and flattened,
 * numbers and keys become new strings, and the RESP text is assembled a piece at a time. With some 65 arguments per
 * ad request that was a quarter of the ad fetch's CPU (docs/PERFORMANCE.md#one-serve-call-per-turn).
 */
export class EncodedArguments implements ScriptArguments {
  private keysText = '';
  private argsText = '';
  keyCount = 0;
  argCount = 0;

  constructor(private readonly keyPrefix: string) {}

  key(name: string): void {
    this.keysText += bulkString(this.keyPrefix + name);
    this.keyCount++;
  }

  arg(value: string | number): void {
    this.argsText += typeof value === 'number' ? bulkNumber(value) : bulkString(value);
    this.argCount++;
  }

  recurringKey(name: string): void {
    this.keysText += recurringOf(this.keyPrefix).encoded(name);
    this.keyCount++;
  }

  recurringArg(value: string): void {
    this.argsText += recurringOf('').encoded(value);
    this.argCount++;
  }

  /** What follows the script's sha (or text) in EVALSHA (EVAL): the key count, the keys, the arguments. */
  get encoded(): string {
    return bulkNumber(this.keyCount) + this.keysText + this.argsText;
  }
}

function bulkString(value: string): string {
  return `$${utf8Length(value)}\r\n${value}\r\n`;
}

/** Buffer.byteLength's answer, without its call into C++ for the ASCII strings that keys and ids mostly are. */
function utf8Length(value: string): number {
  for (let i = 0; i < value.length; i++) if (value.charCodeAt(i) >= 0x80) return Buffer.byteLength(value);
  return value.length;
}

/**
 * The encodings of recurring strings with one prefix, by the string without it (the caller's own string, whose hash
 * V8 keeps, is looked up, not a new one), in two generations of at most MAX_RECURRING / 2 (when the current one is
 * full it becomes the previous one): the strings in use stay, the others go.
 */
class RecurringEncodings {
  private current = new Map<string, string>();
  private previous = new Map<string, string>();

  constructor(private readonly prefix: string) {}

  encoded(value: string): string {
    let encoded = this.current.get(value);
    if (encoded !== undefined) return encoded;
    encoded = this.previous.get(value) ?? bulkString(this.prefix + value);
    if (this.current.size >= MAX_RECURRING / 2) {
      this.previous = this.current;
      this.current = new Map();
    }
    this.current.set(value, encoded);
    return encoded;
  }
}

const MAX_RECURRING = 100_000;
const recurringByPrefix = new Map<string, RecurringEncodings>();

function recurringOf(prefix: string): RecurringEncodings {
  let recurring = recurringByPrefix.get(prefix);
  if (recurring === undefined) {
    recurring = new RecurringEncodings(prefix);
    recurringByPrefix.set(prefix, recurring);
  }
  return recurring;
}

function bulkNumber(value: number): string {
  const text = String(value);
  return `$${text.length}\r\n${text}\r\n`;
}

/**
 * A Lua script run with EncodedArguments on one Redis server (not a cluster: its client needs the keys as a list to
 * route a command). Like ioredis' defineCommand, it sends EVALSHA, and the script's text (EVAL) the first time on each
 * connection and again when Redis answers NOSCRIPT (its scripts were flushed or it restarted without them).
 */
export class EncodedScript {
  readonly sha: string;
  private readonly evalShaHead: string;
  private readonly evalHead: string;
  /** The connections (sockets) this script was sent to in full. */
  private readonly sentOn = new WeakSet<object>();

  constructor(lua: string) {
    this.sha = createHash('sha1').update(lua).digest('hex');
    this.evalShaHead = `$7\r\nEVALSHA\r\n${bulkString(this.sha)}`;
    this.evalHead = `$4\r\nEVAL\r\n${bulkString(lua)}`;
  }

  /** Runs the script with these keys and arguments; answers its reply (strings and numbers, as ioredis answers them). */
  async run(redis: Redis, args: EncodedArguments): Promise<unknown> {
    const size = 3 + args.keyCount + args.argCount;
    const body = args.encoded;
    const command = new EncodedScriptCommand(this, size, body);
    try {
      return await redis.sendCommand(command);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT') || command.socket === undefined) throw error;
      this.sentOn.delete(command.socket);
      return redis.sendCommand(new EncodedScriptCommand(this, size, body));
    }
  }

  /** The command's RESP text for this connection: the script in full the first time on it, else its sha. */
  writableFor(socket: object, size: number, body: string): string {
    if (this.sentOn.has(socket)) return `*${size}\r\n${this.evalShaHead}${body}`;
    this.sentOn.add(socket);
    return `*${size}\r\n${this.evalHead}${body}`;
  }
}

class EncodedScriptCommand extends Command {
  /** The connection it was written to. */
  socket: object | undefined;

  constructor(
    private readonly script: EncodedScript,
    private readonly size: number,
    private readonly body: string,
  ) {
    // ioredis' script commands answer strings, not Buffers; no key prefix here: the keys carry it already
    super('evalsha', [], { replyEncoding: 'utf8' });
  }

  override toWritable(socket: object): string {
    this.socket = socket;
    return this.script.writableFor(socket, this.size, this.body);
  }
}
