import { describe, expect, it } from 'vitest';
import { i18nProvider, plural } from './i18n';

describe('i18n', () => {
  it('should count in plain words', () => {
    expect(plural(1, 'campaign')).toBe('1 campaign');
    expect(plural(0, 'campaign')).toBe('0 campaigns');
    expect(plural(12_000, 'profile')).toBe('12,000 profiles');
    expect(plural(2, 'batch', 'batches')).toBe('2 batches');
  });

  it('should say which record was created or saved', () => {
    const translate = i18nProvider.translate;
    expect(translate('resources.campaigns.notifications.created', { smart_count: 1 })).toBe('Campaign created');
    expect(translate('resources.adBlocks.notifications.updated', { smart_count: 1 })).toBe('Ad block saved');
    expect(translate('resources.exchangeCampaigns.notifications.created', { smart_count: 1 })).toBe('Exchange campaign created');
    expect(translate('resources.campaigns.notifications.updated', { smart_count: 3 })).toBe('3 campaigns saved');
  });

  it('should name resources in the singular for a page and in the plural (or the menu word) for a list', () => {
    const translate = i18nProvider.translate;
    expect(translate('resources.adBlocks.name', { smart_count: 1 })).toBe('Ad block');
    expect(translate('resources.adBlocks.name', { smart_count: 2 })).toBe('Ad blocks');
    expect(translate('resources.exchangeCampaigns.name', { smart_count: 2 })).toBe('Exchange');
  });

  it("should fall back to react-admin's English", () => {
    expect(i18nProvider.translate('ra.action.save')).toBe('Save');
  });
});
