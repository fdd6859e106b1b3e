import type { ReserveResult } from './state/serving-state';

/** Candidates offered to the serving state per requested ad: spares for ads it refuses (budget, exclusion, caps). */
export const SPARE_CANDIDATES = 3;
/** Rounds of offering further candidates when the state refused some; each round doubles the offer. */
export const MAX_SELECTION_ROUNDS = 4;

export interface ReservationRounds<T> {
  /** How many to serve at most. */
  limit: number;
  /** The best candidates left, at most `max`, none of those already offered (`offered`, absent in the first round). */
  candidates(max: number, offered: ReadonlySet<string> | undefined): T[];
  /** Offers candidates to the serving state for `wanted` more; answers what it served (indexes into `candidates`). */
  reserve(candidates: T[], wanted: number): Promise<ReserveResult>;
}

/**
 * Offers the best candidates to the serving state, which serves those with budget left and not excluded or capped
 * for this user. When it refuses some, the next best are offered, a bounded number of rounds with a doubling offer,
 * so a user who clicked the top ads still gets the ones below them. Answers those served, in order.
 */
export async function reserveInRounds<T extends { id: string }>(rounds: ReservationRounds<T>): Promise<T[]> {
  const served: T[] = [];
  let offered: Set<string> | undefined;
  for (let round = 0; round < MAX_SELECTION_ROUNDS && served.length < rounds.limit; round++) {
    const wanted = rounds.limit - served.length;
    const max = (wanted + SPARE_CANDIDATES) << round;
    const candidates = rounds.candidates(max, offered);
    if (candidates.length === 0) break;
    const result = await rounds.reserve(candidates, wanted);
    for (const i of result.served) served.push(candidates[i]);
    if (candidates.length < max || result.userCapped) break;
    offered ??= new Set();
    for (const candidate of candidates) offered.add(candidate.id);
  }
  return served;
}
