/**
 * The rows of the campaign's "By block" tab, from the detail's `optimization` (docs/CONTRACT.md §13, "Where the
 * budget goes"): where the campaign's optimization events come from, block by block, from its own counts only.
 */
export interface BlockRow {
  adBlockId: string;
  impressions: number;
  clicks: number;
  events: number;
  /** the optimization event per 1000 impressions, smoothed */
  perMille: number;
  /** `preferred`: keeps the full pacing line; `heldBack`: where an even campaign ahead of its time holds back first */
  standing: 'preferred' | 'heldBack';
}

interface OptimizationBlock {
  adBlockId: string;
  impressions: number;
  clicks: number;
  events: number;
  estimatedEventRate: number;
}

const num = (value: unknown) => (Number.isFinite(Number(value)) ? Number(value) : 0);

function row(block: OptimizationBlock, standing: BlockRow['standing']): BlockRow {
  return {
    adBlockId: String(block.adBlockId),
    impressions: num(block.impressions),
    clicks: num(block.clicks),
    events: num(block.events),
    perMille: Math.round(num(block.estimatedEventRate) * 1e6) / 1e3,
    standing,
  };
}

/** Best first: the preferred blocks in their order, then the held-back ones from the least bad to the worst. */
export function blockRows(record: object | undefined): BlockRow[] {
  const optimization = (record as { optimization?: unknown } | undefined)?.optimization as
    { blocksPreferred?: OptimizationBlock[]; blocksHeldBack?: OptimizationBlock[] } | undefined;
  if (!optimization) return [];
  return [
    ...(optimization.blocksPreferred ?? []).map((block) => row(block, 'preferred')),
    ...[...(optimization.blocksHeldBack ?? [])].reverse().map((block) => row(block, 'heldBack')),
  ];
}
