import type { EnvReader } from '../config/env-reader';

export interface ExchangeConfig {
  /** Exchange partners whose ledger balance is below minus this many clicks are far in debt (shown less). */
  exchangeDebtLimit: number;
}

export const EXCHANGE_CONFIG = Symbol('EXCHANGE_CONFIG');

export function readExchangeConfig(env: EnvReader): ExchangeConfig {
  return { exchangeDebtLimit: env.integer('EXCHANGE_DEBT_LIMIT', 100, 0, 1_000_000_000) };
}
