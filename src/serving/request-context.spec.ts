import { languageFromAcceptLanguage, platformFromUserAgent } from './request-context';

describe('request context', () => {
  it.each([
    [undefined, null],
    ['', null],
    ['en-US,en;q=0.9', 'en'],
    ['zu-ZA', 'zu'],
    ['fr;q=0.5, de;q=0.9', 'de'],
    ['*', null],
    ['*;q=1, ru;q=0.2', 'ru'],
    ['!!, es', 'es'],
    ['en;q=0, fr;q=0.1', 'fr'],
    ['DE-de', 'de'],
  ])('should read Accept-Language %p as %p', (header, language) => {
    expect(languageFromAcceptLanguage(header)).toBe(language);
  });

  it.each([
    ['Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15', 'iOS'],
    ['Mozilla/5.0 (iPad; CPU OS 16_6 like Mac OS X) AppleWebKit/605.1.15', 'iOS'],
    ['Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 Chrome/120.0 Mobile Safari/537.36', 'Android'],
    ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 Chrome/120.0 Safari/537.36', 'Desktop'],
    ['Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 Version/17.0 Safari/605.1.15', 'Desktop'],
    ['Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/120.0 Safari/537.36', 'Desktop'],
    ['curl/8.5.0', null],
    [undefined, null],
  ])('should read the platform of %p as %p', (userAgent, platform) => {
    expect(platformFromUserAgent(userAgent)).toBe(platform);
  });
});
