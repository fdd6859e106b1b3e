/** The contract (docs/CONTRACT.md) as integrators read it at /docs. Keep the two in step. */
export const API_DESCRIPTION = `
Ad network for messaging mini-apps. Advertisers buy traffic with **campaigns**, publishers show ads in their
**ad blocks** and earn, partners swap traffic through the **exchange**. All paths start with \`/api/v2/openapi\`
(admin API: \`/api/v2/admin\`). Bodies are JSON.

### Authentication and roles
Every endpoint except \`/health\` needs the header \`x-api-key\`. An account has roles:
\`advertiser\` (campaigns, conversions), \`publisher\` (ad serving, clicks, profiles), \`partner\` (exchange),
\`admin\` (everything, plus the admin API). Keys are shown once at creation, stored only as a hash, revocable,
several per account. \`GET /api/v2/openapi/account/me\` tells who a key is. In the test environment
(\`APP_ENV=test\`) the published \`TEST_API_KEY\` works on a sandbox account with the advertiser, publisher and partner roles.
Get a first key from an admin: \`POST /api/v2/admin/accounts {name, roles}\` answers \`{accountId, apiKey}\`.

### Publishable keys (for frontends)
A key has a scope: \`full\` (default) or \`serve\`. A \`serve\` key is safe to ship in a web page or mini-app: it
may only call \`matching/ad\`, \`ad/event/report\`, \`matching/exchange\` and \`exchange/event/report\` for the
account's own blocks and exchange campaigns; anything else answers 403. A key may carry \`allowedOrigins\` (exact
origins such as \`https://app.example.com\`): a browser request from another \`Origin\` is 403 (requests without
\`Origin\` are not a browser's and pass). Manage your keys with \`POST /api/v2/openapi/account/keys {scope, label?,
allowedOrigins?}\` → \`{keyId, apiKey, scope}\`, \`GET /api/v2/openapi/account/keys\` (no secrets) and
\`POST /api/v2/openapi/account/keys/revoke {keyId}\` (a \`serve\` key cannot). Keys are checked before the body
is read; bodies are limited to 64 KiB except on the profile batch and CSV import. On the four routes above the rate
limit counts per (key, client IP), elsewhere per key; requests with a missing or unknown key are limited per client IP.

### Envelope and errors
Success: HTTP 200, \`{code: 0, message: "success", data}\` (endpoints 7 and 9 answer \`{status: "success"}\`).
Every failure is \`{code, message, data}\` with \`code\` = the HTTP status and \`message\` naming the field and
the problem; validation failures list \`data.errors: [{field, message}]\` with dotted paths (\`budget.amount\`).
400 bad input or malformed JSON · 401 missing/unknown/revoked key · 403 role missing, a \`serve\` key off its routes or a
foreign \`Origin\` · 404 unknown id
(another account's id answers the same) · 408 request not received in time · 409 forbidden state change · 413 body
too large · 414 query string too long · 429 rate limited (\`Retry-After\`) · 431 headers too large · 500
internal (never a stack trace) · 503 not answered in time, retry later. Checks run in the order 401 → 403 → 400 → 404 → 409.
A failed request stores nothing; unknown extra fields are ignored.

### Campaigns
\`campaignStatus\`: \`inReview\`, \`onGoing\`, \`paused\`, \`ended\`. A new campaign is \`onGoing\` (\`inReview\` when
the service runs with \`CAMPAIGN_REVIEW=true\`, until an admin approves it; then an edit of an approved campaign's
\`ad\` waits as a revision, \`pendingAd\`, while the approved creative serves: docs/CONTRACT.md §18). \`start\`: paused → onGoing (idempotent);
\`paused\`: onGoing/inReview → paused; \`end\`: any → ended, final (\`start\`/\`paused\` on it are 409, \`end\` again is
success). \`deliveryStatus\` says why a campaign is or is not serving: \`delivering\`, \`scheduled\`, \`finished\`,
\`dailyBudgetSpent\`, \`budgetSpent\`, \`paused\`, \`inReview\`, \`ended\`.
Rules: \`endTime > startTime\` (ms); \`0 < amount ≤ total\`; \`costPer > 0\`; amounts in USDT with at most 6
decimals (CPM bids at most 3, so one impression costs whole micro-USDT); URLs http(s); \`platform\` in \`All\`,
\`iOS\`, \`Android\`, \`Desktop\`; regions ISO 3166-1 alpha-2; languages ISO 639-1; \`actionType\` in
\`visit.website\`, \`open.miniapp\`. Lists are newest first; \`1 ≤ current\`, \`1 ≤ pageSize ≤ 100\`.
Optional \`frequencyCap: {impressions, hours}\` (1..1000, 1..720): a user is served at most \`impressions\` of the
campaign within any \`hours\`-long window (rolling); \`null\` in an update removes it. Across campaigns, one user is
served at most \`USER_IMPRESSIONS_PER_HOUR\` (60) impressions on one ad block within any hour. Capped ads are simply not
served (the next best may be).

### Publishers' own data
Profiles (\`user/profile/batch\`, CSV import) belong to the publisher that uploaded them: keyed by (publisher,
\`messengerUserId\`), they target users on that publisher's ad blocks only, and no publisher can change or read another's.
An admin uploads for a publisher by naming it (\`?publisherId=\`). An ad block may set \`requireSignedViewer\` (at create or
with \`POST ad/block/update {adBlockId, name?, requireSignedViewer?}\`): \`matching/ad\` on it then needs the header
\`x-adnet-viewer: <openId>.<expiresAtMs>.<hex HMAC-SHA256(webhookSecret, "<openId>.<expiresAtMs>")>\` made by the
publisher's server with its webhook secret (\`account/me\`), expiring within 24 h; otherwise 401. Clicks need no header.

### Exchange
Partners register exchange campaigns (\`exchange/campaign/create|list|detail|update|status|stats\`). \`matching/exchange\`
answers other partners' ongoing campaigns as entries (\`outExchangeCampaignId\` = yours, \`inExchangeCampaignId\` = the
promoted one); a counted click (\`exchange/event/report\`) credits the out campaign and debits the in one. Entries are
ranked by their partner's ledger balance (clicks sent minus received), creditors first; a partner more than
\`EXCHANGE_DEBT_LIMIT\` (100) clicks in debt comes last with at most one entry per answer. In production a clicked entry
is not offered to that user again for 10 minutes.

### Money
USDT on the wire, integer micro-USDT (1e-6) in storage. CPM costs \`costPer/1000\` per impression, CPC
\`costPer\` per counted click. \`ctr = clicks/impressions\`, \`cr = conversions/clicks\`, fractions 0..1 (0 when the
denominator is 0).

### Custom events and the optimization event
Besides conversions (\`ad/event/report/conversion\`), advertisers report the custom events \`onboard\`, \`register\`,
\`play\`, \`payment\` and \`withdraw\` with \`ad/event/report/custom\`, attributed like conversions (the user's latest
counted click on your campaigns within 7 days, once per click and event type). A campaign's \`optimizationEvent\`
(\`conversion\` by default) is what its \`conversions\` and \`cr\` count; \`events\` in list, detail and series carries
every type, and the detail's \`estimatedEventRate\` is a smoothed estimate of that event per click (never used for
billing).

### What is billed
A served impression takes at most one click in its 24 hours; a repeat answers success and is not counted again.
A click is \`counted\` (and billed for CPC) only when its campaign is billable as it arrives (\`onGoing\`, inside
\`[startTime, endTime)\`, budget left); otherwise it answers success and counts in \`unbilledClicks\`. General invalid
traffic (a bot, crawler or HTTP library \`User-Agent\`, or none; a click on an impression served to such a request, or
sooner than \`MIN_CLICK_DELAY_MS\` after its impression) is answered as usual, never billed and counted apart in
\`invalidImpressions\` and \`invalidClicks\`. None of these are in \`impressions\`, \`clicks\`, \`ctr\`, \`cost\` or
conversions attribution.

### TON AI's \`ton-ai-sdk\` (tag ton-ai-sdk)
The npm package \`ton-ai-sdk\` 2.2.2 works against this service with its base URL pointed here (a host name holding
\`ton.ai\`, as its TonAdInit requires): its routes under \`/api/v2\` (not \`/api/v2/openapi\`) answer in its shapes,
served by the endpoints above. Its \`appId\` (\`x-api-id\`) is a \`serve\` key's keyId, its \`appKey\` (\`x-api-key\`,
\`apikey\`) a key; each event is allowed exactly as its canonical route allows it. Its \`impression\` and \`complete\`
events count a view (\`views\`) of a served impression, at most one per impression, never billed; clicks must follow a
served ad; its md5 \`sign\` is checked (400 naming \`sign\`). See docs/SWITCHING_FROM_TON_AI.md.
`;
