import { TrafficClassifier } from './traffic-classifier';

const BROWSER = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148';
const PUBLIC_IP = '203.0.113.7';

describe('TrafficClassifier', () => {
  it('gives the same verdict for an agent seen before as for a new one', () => {
    const classifier = new TrafficClassifier();
    for (let round = 0; round < 3; round++) {
      expect(classifier.invalidReason({ ip: PUBLIC_IP, userAgent: BROWSER })).toBeNull();
      expect(classifier.invalidReason({ ip: PUBLIC_IP, userAgent: 'curl/8.4.0' })).toBe('bot');
      expect(classifier.invalidReason({ ip: PUBLIC_IP, userAgent: '  ' })).toBe('emptyUserAgent');
    }
  });

  it('judges agents too long to remember every time, and still finds the bots among them', () => {
    const classifier = new TrafficClassifier();
    const longBrowser = `${BROWSER} ${'x'.repeat(600)}`;
    const longBot = `Googlebot/2.1 (+http://www.google.com/bot.html) ${'y'.repeat(600)}`;
    for (let round = 0; round < 2; round++) {
      expect(classifier.invalidReason({ ip: PUBLIC_IP, userAgent: longBrowser })).toBeNull();
      expect(classifier.invalidReason({ ip: PUBLIC_IP, userAgent: longBot })).toBe('bot');
    }
  });

  it('keeps its memory of agents bounded under a flood of new ones', () => {
    const classifier = new TrafficClassifier();
    for (let i = 0; i < 12_000; i++) classifier.invalidReason({ ip: PUBLIC_IP, userAgent: `${BROWSER} flood-${i}` });
    const remembered = (classifier as unknown as { botVerdicts: { size: number } }).botVerdicts.size;
    expect(remembered).toBe(5_000);
    expect(classifier.invalidReason({ ip: PUBLIC_IP, userAgent: 'python-requests/2.31' })).toBe('bot');
  });
});
