/** What the "spend over the day" chart needs of a campaign (its detail). */
export interface DaySpendFacts {
  budget: { amount: number; total: number; startTime: number; endTime: number; pacing?: string };
  cost: number;
  spentToday: number;
  budgetResetsAt: number;
}

export interface DaySpendPoint {
  time: number;
  /** Spent since the day began, USDT, at the end of the hour `time` begins. */
  spent: number;
  /** Where an even campaign's spend stands by then: the period's budget times the elapsed share of its period. */
  even: number;
}

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** The day the chart shows: the 24 hours before `budgetResetsAt` (a day changing the clocks is an hour off). */
export function dayOf(facts: Pick<DaySpendFacts, 'budgetResetsAt'>): { start: number; end: number } {
  return { start: facts.budgetResetsAt - DAY_MS, end: facts.budgetResetsAt };
}

/**
 * The day's spend, hour by hour and summed, next to the even line (docs/CONTRACT.md §16 without its 5 % margin): the
 * period is the part of the day inside the campaign's window; its budget the daily amount, or what the total had left
 * when the day began if less. Hours after `now` carry the line only.
 */
export function daySpendPoints(facts: DaySpendFacts, hourly: { time: number; cost: number }[], now: number): (DaySpendPoint | Omit<DaySpendPoint, 'spent'>)[] {
  const day = dayOf(facts);
  const periodStart = Math.max(day.start, facts.budget.startTime);
  const periodEnd = Math.min(day.end, facts.budget.endTime);
  const budget = Math.max(0, Math.min(facts.budget.amount, facts.budget.total - (facts.cost - facts.spentToday)));
  const costs = new Map(hourly.map((point) => [point.time, point.cost]));
  const points: (DaySpendPoint | Omit<DaySpendPoint, 'spent'>)[] = [];
  let spent = 0;
  for (let time = day.start; time < day.end; time += HOUR_MS) {
    const end = time + HOUR_MS;
    const share = periodEnd <= periodStart ? 0 : Math.min(1, Math.max(0, (end - periodStart) / (periodEnd - periodStart)));
    const even = round6(budget * share);
    if (time > now) {
      points.push({ time, even });
      continue;
    }
    spent = round6(spent + (costs.get(time) ?? 0));
    points.push({ time, spent, even });
  }
  return points;
}

function round6(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}
