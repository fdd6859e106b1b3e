import { describe, expect, it } from 'vitest';
import { eventName, funnelSteps, OPTIMIZATION_EVENTS } from './funnel';

describe('campaign funnel', () => {
  it('should map a detail record to impressions, clicks and every event type, with rates per impression and per click', () => {
    const steps = funnelSteps({
      impressions: 200,
      clicks: 20,
      events: { conversion: 2, onboard: 10, register: 8, play: 5, payment: 1, withdraw: 0 },
      optimizationEvent: 'register',
    });
    expect(steps.map((step) => [step.key, step.count, step.rate, step.width, step.optimized])).toEqual([
      ['impressions', 200, null, 1, false],
      ['clicks', 20, 0.1, 0.1, false],
      ['conversion', 2, 0.1, 0.01, false],
      ['onboard', 10, 0.5, 0.05, false],
      ['register', 8, 0.4, 0.04, true],
      ['play', 5, 0.25, 0.025, false],
      ['payment', 1, 0.05, 0.005, false],
      ['withdraw', 0, 0, 0, false],
    ]);
    expect(steps.map((step) => step.label)).toEqual(['Impressions', 'Clicks', 'Conversion', 'Onboard', 'Register', 'Play', 'Payment', 'Withdraw']);
  });

  it('should answer zeros without traffic, conversion as the optimization event by default, and tolerate a record without events', () => {
    const steps = funnelSteps({ impressions: 0, clicks: 0 });
    expect(steps.every((step) => step.count === 0 && step.width === 0 && (step.rate === null || step.rate === 0))).toBe(true);
    expect(steps.filter((step) => step.optimized).map((step) => step.key)).toEqual(['conversion']);
  });

  it('should widen bars against the largest step when events outnumber impressions (events reported without served ads)', () => {
    const steps = funnelSteps({ impressions: 0, clicks: 4, events: { play: 4 }, optimizationEvent: 'play' });
    expect(steps.find((step) => step.key === 'clicks')).toMatchObject({ width: 1, rate: 0 });
    expect(steps.find((step) => step.key === 'play')).toMatchObject({ width: 1, rate: 1, optimized: true });
  });

  it('should name each event type the API knows, and show an unknown one as it is', () => {
    expect(OPTIMIZATION_EVENTS.map((event) => event.id)).toEqual(['conversion', 'onboard', 'register', 'play', 'payment', 'withdraw']);
    expect(eventName('payment')).toBe('Payment');
    expect(eventName('later')).toBe('later');
  });
});
