import { beforeEach, describe, expect, it } from 'vitest';
import { API_KEY_STORAGE, createApiClient, toFormErrors } from './api';
import { type ApiFailure, fakeApi, ok } from './dataProvider/fakeApi';

describe('api client', () => {
  beforeEach(() => localStorage.clear());

  it('should send the stored key as x-api-key and unwrap the envelope', async () => {
    localStorage.setItem(API_KEY_STORAGE, 'adn_stored');
    const { api, calls } = fakeApi({ 'GET /api/v2/openapi/account/me': () => ok({ accountId: 'a1', roles: ['advertiser'] }) });

    const me = await api('/api/v2/openapi/account/me');

    expect(me).toEqual({ accountId: 'a1', roles: ['advertiser'] });
    expect(calls[0].headers['x-api-key']).toBe('adn_stored');
    expect(calls[0].headers['content-type']).toBeUndefined();
  });

  it('should turn a 400 envelope into an HttpError whose body carries nested field errors, in the words of the form', async () => {
    const { api } = fakeApi({
      'POST /api/v2/openapi/ad/campaign/create': () => ({
        status: 400,
        json: {
          code: 400,
          message: 'budget.amount (daily) must not exceed budget.total; ad.destination.url must be an http(s) URL',
          data: {
            errors: [
              { field: 'budget.amount', message: 'budget.amount (daily) must not exceed budget.total' },
              { field: 'ad.destination.url', message: 'ad.destination.url must be an http(s) URL' },
            ],
          },
        },
      }),
    });

    const error = (await api('/api/v2/openapi/ad/campaign/create', { body: {} }).catch((caught: unknown) => caught)) as ApiFailure;

    expect(error.status).toBe(400);
    expect(error.message).toBe('Daily budget must not exceed total budget; Destination URL must be an http(s) URL');
    expect(error.body.errors).toEqual({
      budget: { amount: 'Daily budget must not exceed total budget' },
      ad: { destination: { url: 'Destination URL must be an http(s) URL' } },
    });
    expect(error.body.fieldErrors).toHaveLength(2);
  });

  it('should keep the status of 401, 403, 404 and 409 answers', async () => {
    for (const status of [401, 403, 404, 409]) {
      const { api } = fakeApi({ 'GET /x': () => ({ status, json: { code: status, message: `failure ${status}`, data: {} } }) });
      const error = (await api('/x').catch((caught: unknown) => caught)) as ApiFailure;
      expect(error.status).toBe(status);
      expect(error.message).toBe(`failure ${status}`);
      expect(error.body.errors).toEqual({});
    }
  });

  it('should report a body that is not JSON with its HTTP status', async () => {
    const fetchImpl = async () => new Response('<html>bad gateway</html>', { status: 502, statusText: 'Bad Gateway' });
    const error = (await createApiClient(fetchImpl as typeof fetch)('/x').catch((caught: unknown) => caught)) as ApiFailure;
    expect(error.status).toBe(502);
    expect(error.message).toBe('HTTP 502 Bad Gateway');
  });

  it('should report an unreachable API', async () => {
    const fetchImpl = async () => {
      throw new TypeError('Failed to fetch');
    };
    const error = (await createApiClient(fetchImpl as typeof fetch)('/x').catch((caught: unknown) => caught)) as ApiFailure;
    expect(error.status).toBe(0);
    expect(error.message).toBe('The API cannot be reached: Failed to fetch');
  });

  it('should nest indexed paths and join two messages on one field', () => {
    expect(
      toFormErrors([
        { field: 'list.17.ipAddress', message: 'bad ip' },
        { field: 'name', message: 'too long' },
        { field: 'name', message: 'blank' },
      ]),
    ).toEqual({ list: { '17': { ipAddress: 'bad ip' } }, name: 'too long; blank' });
  });
});
