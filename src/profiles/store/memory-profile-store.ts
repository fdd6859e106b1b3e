import { ProfileFacts, ProfileStore, PublisherProfileFacts, publisherUserKey } from './profile-store';

/** The embedded profile's store: a Map in the one process, rebuilt from the database at every start. */
export class MemoryProfileStore implements ProfileStore {
  private readonly profiles = new Map<string, ProfileFacts>();
  private built = false;

  async get(accountId: string, messengerUserId: string): Promise<ProfileFacts | null> {
    return this.known(accountId, messengerUserId);
  }

  known(accountId: string, messengerUserId: string): ProfileFacts | null {
    return this.profiles.get(publisherUserKey(accountId, messengerUserId)) ?? null;
  }

  async putMany(entries: PublisherProfileFacts[]): Promise<void> {
    for (const { accountId, messengerUserId, facts } of entries) this.profiles.set(publisherUserKey(accountId, messengerUserId), facts);
  }

  async isBuilt(): Promise<boolean> {
    return this.built;
  }

  async markBuilt(): Promise<void> {
    this.built = true;
  }
}
