import { DEFAULT_EVENT_RATE, estimatedEventRate, MIN_PRIOR_ADVERTISERS, PRIOR_CLICKS, priorEventRate, priorsFrom } from './event-rate';

describe('event-rate estimate', () => {
  describe(priorEventRate.name, () => {
    it('should take the network mean of the campaigns optimizing for the event when enough advertisers pool it', () => {
      expect(priorEventRate({ advertisers: MIN_PRIOR_ADVERTISERS, clicks: 2000, events: 100 })).toBe(0.05);
      expect(priorEventRate({ advertisers: 12, clicks: 400, events: 3 })).toBe(0.0075);
    });

    it('should fall back to the default rate with too few advertisers, no clicks or no campaigns at all', () => {
      // one advertiser's own rate would show through a new campaign's estimate
      expect(priorEventRate({ advertisers: MIN_PRIOR_ADVERTISERS - 1, clicks: 2000, events: 1000 })).toBe(DEFAULT_EVENT_RATE);
      expect(priorEventRate({ advertisers: 8, clicks: 0, events: 0 })).toBe(DEFAULT_EVENT_RATE);
      expect(priorEventRate(undefined)).toBe(DEFAULT_EVENT_RATE);
    });
  });

  describe(priorsFrom.name, () => {
    it('should give every event type its own prior, the default where the network has none to share', () => {
      expect(
        priorsFrom({
          conversion: { advertisers: 6, clicks: 1000, events: 40 },
          payment: { advertisers: 9, clicks: 500, events: 5 },
          play: { advertisers: 2, clicks: 800, events: 400 },
        }),
      ).toEqual({
        conversion: 0.04,
        onboard: DEFAULT_EVENT_RATE,
        register: DEFAULT_EVENT_RATE,
        play: DEFAULT_EVENT_RATE,
        payment: 0.01,
        withdraw: DEFAULT_EVENT_RATE,
      });
    });
  });

  describe(estimatedEventRate.name, () => {
    it('should start at the prior for a campaign without clicks', () => {
      expect(estimatedEventRate(0, 0, 0.03)).toBeCloseTo(0.03, 12);
      expect(estimatedEventRate(0, 0, DEFAULT_EVENT_RATE)).toBeCloseTo(DEFAULT_EVENT_RATE, 12);
    });

    it('should be the Beta posterior mean: events plus the prior worth PRIOR_CLICKS clicks', () => {
      expect(PRIOR_CLICKS).toBe(100);
      // (3 + 100 * 0.02) / (10 + 100) = 5 / 110
      expect(estimatedEventRate(3, 10, 0.02)).toBeCloseTo(5 / 110, 12);
      // (50 + 100 * 0.1) / (100 + 100) = 0.3
      expect(estimatedEventRate(50, 100, 0.1)).toBeCloseTo(0.3, 12);
    });

    it('should not overrate a lucky campaign with few clicks, nor bury an unlucky one', () => {
      const lucky = estimatedEventRate(2, 2, 0.05);
      const unlucky = estimatedEventRate(0, 2, 0.05);
      expect(lucky).toBeGreaterThan(0.05);
      expect(lucky).toBeLessThan(0.07);
      expect(unlucky).toBeLessThan(0.05);
      expect(unlucky).toBeGreaterThan(0.045);
    });

    it('should approach the observed rate as clicks accumulate, staying within 0..1', () => {
      const observed = 0.2;
      const errors = [100, 1_000, 10_000, 100_000].map((clicks) => Math.abs(estimatedEventRate(observed * clicks, clicks, 0.02) - observed));
      for (let i = 1; i < errors.length; i++) expect(errors[i]).toBeLessThan(errors[i - 1]);
      expect(errors[errors.length - 1]).toBeLessThan(0.001);
      expect(estimatedEventRate(1000, 1000, 1)).toBe(1);
      expect(estimatedEventRate(0, 1000, 0)).toBe(0);
    });
  });
});
