import { Global, Module } from '@nestjs/common';

/** Time as the service sees it; tests swap in a clock they can move (the 10-minute exclusion, day changes). */
export class Clock {
  now(): number {
    return Date.now();
  }
}

/** Real time shifted forward by what a test adds: it keeps running with real time and jumps when told to. */
export class ManualClock extends Clock {
  private offset = 0;

  override now(): number {
    return Date.now() + this.offset;
  }

  advance(ms: number): void {
    this.offset += ms;
  }
}

@Global()
@Module({})
export class ClockModule {
  static forRoot(clock: Clock = new Clock()) {
    return { module: ClockModule, providers: [{ provide: Clock, useValue: clock }], exports: [Clock] };
  }
}

export const HOUR_MS = 60 * 60 * 1000;
export const DAY_MS = 24 * HOUR_MS;

export function hourStart(ms: number): number {
  return ms - (ms % HOUR_MS);
}
