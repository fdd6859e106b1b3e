import type { EnvReader } from '../config/env-reader';

/** Verification calls (docs/CONTRACT.md §7): delay after the click, timeout, tries, first retry delay, private targets. */
export interface VerificationConfig {
  verifyDelayMs: number;
  verifyTimeoutMs: number;
  verifyAttempts: number;
  verifyBackoffMs: number;
  verificationAllowPrivate: boolean;
}

export const VERIFICATION_CONFIG = Symbol('VERIFICATION_CONFIG');

export function readVerificationConfig(env: EnvReader): VerificationConfig {
  return {
    verifyDelayMs: env.integer('VERIFY_DELAY_MS', 60_000, 0, 86_400_000),
    verifyTimeoutMs: env.integer('VERIFY_TIMEOUT_MS', 5000, 100, 60_000),
    verifyAttempts: env.integer('VERIFY_ATTEMPTS', 5, 1, 20),
    verifyBackoffMs: env.integer('VERIFY_BACKOFF_MS', 10_000, 10, 3_600_000),
    verificationAllowPrivate: env.boolean('VERIFICATION_ALLOW_PRIVATE', false),
  };
}
