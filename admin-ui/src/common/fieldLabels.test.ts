import { describe, expect, it } from 'vitest';
import { humanizeFieldErrors, humanizeMessage } from './fieldLabels';

describe('humanizeMessage', () => {
  it('should name the form labels instead of the API paths', () => {
    expect(humanizeMessage('budget.amount (daily) must not exceed budget.total')).toBe('Daily budget must not exceed total budget');
    expect(humanizeMessage('ad.destination.url must be an http(s) URL')).toBe('Destination URL must be an http(s) URL');
    expect(humanizeMessage('budget.endTime must be after budget.startTime')).toBe('End must be after start');
    expect(humanizeMessage('destination.url must be an http(s) URL')).toBe('Destination URL must be an http(s) URL');
    expect(humanizeMessage('bidding.costPer must have at most 3 decimals for CPM')).toBe('Bid must have at most 3 decimals for CPM');
  });

  it('should keep a parenthesis that says more than the label', () => {
    expect(humanizeMessage('frequencyCap.hours (window) must be at most 720')).toBe('Window (hours) must be at most 720');
    expect(humanizeMessage('budget.total (all days) must be at least 1')).toBe('Total budget (all days) must be at least 1');
  });

  it('should name a CSV row by its line and column', () => {
    expect(humanizeMessage('line.3.walletClassify must be one of primary, secondary')).toBe('Line 3, walletClassify must be one of primary, secondary');
    expect(humanizeMessage('line.7 is not valid CSV: Invalid Closing Quote')).toBe('Line 7 is not valid CSV: Invalid Closing Quote');
    expect(humanizeMessage('header must name the columns messengerUserId,walletAddress,walletClassify (missing: walletClassify)')).toBe(
      'Header row must name the columns messengerUserId,walletAddress,walletClassify (missing: walletClassify)',
    );
  });

  it('should leave plain words and unknown paths alone', () => {
    expect(humanizeMessage('name must not be empty')).toBe('Name must not be empty');
    expect(humanizeMessage('campaignId must be a campaign of yours')).toBe('campaignId must be a campaign of yours');
    expect(humanizeMessage('the text of the name is too long')).toBe('the text of the name is too long');
    expect(humanizeMessage('targeting.unknownRule is not allowed')).toBe('targeting.unknownRule is not allowed');
  });

  it('should keep each error on its field path', () => {
    expect(humanizeFieldErrors([{ field: 'ad.icon', message: 'ad.icon must be an http(s) URL' }])).toEqual([
      { field: 'ad.icon', message: 'Icon URL must be an http(s) URL' },
    ]);
  });
});
