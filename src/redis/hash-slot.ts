/** Redis Cluster's 16384 hash slots: a key's slot is CRC16 (XMODEM) of its hash tag, or of the whole key. */
export const HASH_SLOTS = 16384;

const CRC16_TABLE = (() => {
  const table = new Uint16Array(256);
  for (let byte = 0; byte < 256; byte++) {
    let crc = byte << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    table[byte] = crc;
  }
  return table;
})();

function crc16(bytes: Uint8Array): number {
  let crc = 0;
  for (const byte of bytes) crc = ((crc << 8) & 0xffff) ^ CRC16_TABLE[((crc >> 8) ^ byte) & 0xff];
  return crc;
}

/**
 * The hash slot of a key as Redis Cluster computes it: when the key holds a `{` followed later by a `}` with at least
 * one character between, only that first tag is hashed (so keys sharing a tag share a slot). Pass the full key, with
 * the client's key prefix.
 */
export function hashSlot(key: string): number {
  const bytes = Buffer.from(key, 'utf8');
  const open = bytes.indexOf(0x7b);
  if (open !== -1) {
    const close = bytes.indexOf(0x7d, open + 1);
    if (close > open + 1) return crc16(bytes.subarray(open + 1, close)) % HASH_SLOTS;
  }
  return crc16(bytes) % HASH_SLOTS;
}

/** Items grouped by the slot of their key, in the order each slot first appears (and items in their own order). */
export function groupBySlot<T>(items: readonly T[], keyOf: (item: T) => string): T[][] {
  const groups = new Map<number, T[]>();
  for (const item of items) {
    const slot = hashSlot(keyOf(item));
    const group = groups.get(slot);
    if (group) group.push(item);
    else groups.set(slot, [item]);
  }
  return [...groups.values()];
}
