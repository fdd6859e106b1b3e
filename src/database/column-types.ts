import { ValueTransformer } from 'typeorm';

/** mysql2 may answer BIGINT as a string; every amount and counter here fits a safe JS integer. */
export const bigintToNumber: ValueTransformer = {
  to: (value: number | null | undefined) => value,
  from: (value: string | number | null) => (value === null || value === undefined ? value : Number(value)),
};
