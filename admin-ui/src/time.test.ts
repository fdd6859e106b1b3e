import { describe, expect, it } from 'vitest';
import { localInputToMs, msToLocalInput } from './time';

describe('time pickers', () => {
  it('should read a picker value in the local timezone and give it back unchanged', () => {
    const ms = localInputToMs('2030-01-02T03:04');
    expect(ms).toBe(new Date(2030, 0, 2, 3, 4).getTime());
    expect(msToLocalInput(ms)).toBe('2030-01-02T03:04');
  });

  it('should pass ms through and treat empty values as none', () => {
    expect(localInputToMs(1767225600000)).toBe(1767225600000);
    expect(localInputToMs('')).toBeNull();
    expect(localInputToMs('not a date')).toBeNull();
    expect(msToLocalInput(null)).toBe('');
  });
});

describe('msToLocalInput twice', () => {
  it('should answer a value it already formatted as it is (the date-time input formats twice)', () => {
    const once = msToLocalInput(new Date(2031, 5, 7, 8, 9).getTime());
    expect(once).toBe('2031-06-07T08:09');
    expect(msToLocalInput(once)).toBe('2031-06-07T08:09');
    expect(msToLocalInput('')).toBe('');
  });
});
