import type { MatchContext, Platform } from '../serving/campaign-matcher';

const FLAG_PREMIUM = 1;
const FLAG_HIGH_VALUE = 2;
const FLAG_LINKED_WALLET = 4;
const FLAG_LINKED_CHAIN_WALLET = 8;
const FLAG_WALLET_HAS_BALANCE = 16;

/** A sampled request's context as stored: the targeting facts, the block and the ads it asked for. */
export interface SampledContext {
  adBlockId: string;
  country: string | null;
  language: string | null;
  platform: string | null;
  flags: number;
  adLimit: number;
}

/** A sample as written. */
export interface SampleRow extends SampledContext {
  id: string;
  sampledAt: number;
  /** Requests it stands for, in thousandths */
  weightMilli: number;
}

/** Requests of one context over the sample's window, with the weight they stand for. */
export interface ContextWeight extends SampledContext {
  /** Requests represented (sum of 1 / sample rate) */
  requests: number;
}

export function flagsOf(context: MatchContext): number {
  return (
    (context.premium ? FLAG_PREMIUM : 0) |
    (context.highValue ? FLAG_HIGH_VALUE : 0) |
    (context.linkedWallet ? FLAG_LINKED_WALLET : 0) |
    (context.linkedChainWallet ? FLAG_LINKED_CHAIN_WALLET : 0) |
    (context.walletHasBalance ? FLAG_WALLET_HAS_BALANCE : 0)
  );
}

/** The matcher's context of a sampled request at `now`. */
export function matchContextOf(sample: SampledContext, now: number): MatchContext {
  return {
    now,
    country: sample.country,
    language: sample.language,
    platform: sample.platform as Platform | null,
    premium: (sample.flags & FLAG_PREMIUM) !== 0,
    highValue: (sample.flags & FLAG_HIGH_VALUE) !== 0,
    linkedWallet: (sample.flags & FLAG_LINKED_WALLET) !== 0,
    linkedChainWallet: (sample.flags & FLAG_LINKED_CHAIN_WALLET) !== 0,
    walletHasBalance: (sample.flags & FLAG_WALLET_HAS_BALANCE) !== 0,
  };
}
