export type Env = Record<string, string | undefined>;

/** Every bad setting found at start, reported together (the process exits 78, EX_CONFIG). */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Reads settings from one environment and collects every problem instead of stopping at the first, so each feature's
 * reader (`read<Feature>Config`) can validate its own variables and the start-up report still lists them all.
 */
export class EnvReader {
  readonly problems: string[] = [];

  constructor(private readonly env: Env) {}

  /** The trimmed value, or undefined when unset or blank. */
  read(name: string): string | undefined {
    const value = this.env[name];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  }

  problem(message: string): void {
    this.problems.push(message);
  }

  integer(name: string, fallback: number, min: number, max: number): number {
    const raw = this.read(name);
    if (raw === undefined) return fallback;
    if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
      this.problem(`${name} must be an integer from ${min} to ${max} (got "${raw}")`);
      return fallback;
    }
    return Number(raw);
  }

  boolean(name: string, fallback: boolean): boolean {
    const raw = this.read(name);
    if (raw === undefined) return fallback;
    if (/^(true|1|yes)$/i.test(raw)) return true;
    if (/^(false|0|no)$/i.test(raw)) return false;
    this.problem(`${name} must be true or false (got "${raw}")`);
    return fallback;
  }

  /** A secret of at least 16 characters, or null when unset. */
  secret(name: string): string | null {
    const raw = this.read(name);
    if (raw === undefined) return null;
    if (raw.length < 16) {
      this.problem(`${name} must be at least 16 characters long`);
      return null;
    }
    return raw;
  }

  /** One of `values`, or the fallback (with a problem) when another value is set. */
  oneOf<T extends string>(name: string, values: readonly T[], fallback: T, message: string): T {
    const raw = this.read(name) ?? fallback;
    if ((values as readonly string[]).includes(raw)) return raw as T;
    this.problem(`${name} must be ${message} (got "${raw}")`);
    return fallback;
  }
}
