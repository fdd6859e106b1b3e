/**
 * What serving needs of a user's profile as the ad block owner uploaded it, kept in a fast store so that an ad request reads it
 * without SQL: process memory on the embedded profile, Redis on the MySQL + Redis profile (one GET per request).
 * The database stays the source of truth: the store is written after each applied chunk and can be rebuilt
 * from it (at start when empty, or through the admin API).
 */
export const PROFILE_STORE = Symbol('PROFILE_STORE');

export interface ProfileFacts {
  premium: boolean;
  highValue: boolean;
  linkedWallet: boolean;
  linkedChainWallet: boolean;
  walletHasBalance: boolean;
  language: string | null;
  ipAddress: string | null;
}

/** One publisher's profile of one user: profiles are kept per (publisher account, messengerUserId). */
export interface PublisherProfileFacts {
  accountId: string;
  messengerUserId: string;
  facts: ProfileFacts;
}

export interface ProfileStore {
  /**
   * The profile the publisher `accountId` uploaded for this user. null: no profile known (or the store lost it):
   * serving treats the user as unknown, every flag false. `redisSince`: when the ad request's first Redis call began
   * (RedisDeadline's `since`).
   */
  get(accountId: string, messengerUserId: string, redisSince?: number): Promise<ProfileFacts | null>;
  /**
   * What `get` would answer, when the store knows it without I/O (kept in this process); undefined when it would have
   * to ask. The ad fetch reads it first: a profile in memory costs the request no promise.
   */
  known(accountId: string, messengerUserId: string): ProfileFacts | null | undefined;
  putMany(entries: PublisherProfileFacts[]): Promise<void>;
  /** False when the store may lack profiles the database has: a fresh process (memory) or a flushed Redis. */
  isBuilt(): Promise<boolean>;
  markBuilt(): Promise<void>;
}

/** The stored profile columns, as the database answers them (booleans may come as 0/1). */
/** The key of one publisher's profile of one user in a store: account ids are fixed-length ULIDs, so it is unambiguous. */
export const publisherUserKey = (accountId: string, messengerUserId: string) => `${accountId}:${messengerUserId}`;

export interface StoredProfileColumns {
  ipAddress: string | null;
  walletAddress: string | null;
  walletClassify: string | null;
  isPremium: boolean | number | null;
  isHighValue: boolean | number | null;
  walletHasBalance: boolean | number | null;
  language: string | null;
}

const yes = (value: boolean | number | null) => value === true || value === 1;

/** Targeting facts of a merged profile: userLinkedChainWallet is a `primary` wallet. */
export function factsOf(profile: StoredProfileColumns): ProfileFacts {
  const linkedWallet = profile.walletAddress !== null && profile.walletAddress !== '';
  return {
    premium: yes(profile.isPremium),
    highValue: yes(profile.isHighValue),
    linkedWallet,
    linkedChainWallet: linkedWallet && profile.walletClassify === 'primary',
    walletHasBalance: yes(profile.walletHasBalance),
    language: profile.language,
    ipAddress: profile.ipAddress,
  };
}

const FLAG_ORDER = ['premium', 'highValue', 'linkedWallet', 'linkedChainWallet', 'walletHasBalance'] as const;

/** Compact text form for Redis: `<flag bits>|<language>|<ip>` (about 20 bytes a user). */
export function encodeFacts(facts: ProfileFacts): string {
  let bits = 0;
  FLAG_ORDER.forEach((flag, i) => {
    if (facts[flag]) bits |= 1 << i;
  });
  return `${bits}|${facts.language ?? ''}|${facts.ipAddress ?? ''}`;
}

export function decodeFacts(text: string): ProfileFacts | null {
  const first = text.indexOf('|');
  const second = text.indexOf('|', first + 1);
  if (first < 0 || second < 0) return null;
  const bits = Number(text.slice(0, first));
  const language = text.slice(first + 1, second);
  const ip = text.slice(second + 1);
  const facts = { language: language || null, ipAddress: ip || null } as ProfileFacts;
  FLAG_ORDER.forEach((flag, i) => {
    facts[flag] = (bits & (1 << i)) !== 0;
  });
  return facts;
}
